import Foundation
import ToolSupport

/// The real `oa-repl` binary, run to the end with some standard input, waited for off the
/// cooperative pool (`ProgramRun.run`).
public enum ReplProcess {
    public static func run(_ arguments: [String], input: Data = Data(), environment: [String: String] = [:]) async throws -> ProgramRun.Outcome {
        ProgramGate.checkPlaceHeld(toStart: "oa-repl")
        return try await ProgramRun.run(BuildProducts.executable("oa-repl"), arguments, input: input, environment: environment)
    }
}
