import Foundation

/// The real `oa-repl` binary, run to the end with some standard input.
public enum ReplProcess {
    public static func run(_ arguments: [String], input: Data = Data(), environment: [String: String] = [:]) throws -> ProgramRun.Outcome {
        try ProgramRun.run(BuildProducts.executable("oa-repl"), arguments, input: input, environment: environment)
    }
}

/// Any program, run to its end with some standard input.
public enum ProgramRun {
    public struct Outcome {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    public static func run(_ executable: URL, _ arguments: [String], input: Data = Data(),
                           environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Write and read at once, so that neither side waits on a full pipe.
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errors = ErrorCollector(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, standardOutput: String(decoding: output, as: UTF8.self),
                       standardError: errors.finish())
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorCollector: @unchecked Sendable {
    // Safe: `data` is written by the reading thread only, and read after `done` is signalled.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }.start()
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
