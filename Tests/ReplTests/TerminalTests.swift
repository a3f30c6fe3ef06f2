import Foundation
import TestSupport
import Testing
import ToolSupport

/// The interactive REPL in a real terminal: `tools/scripts/repl-terminal-check` drives it through tmux.
@Suite("oa-repl on a terminal", .startsPrograms(endsWithin: .seconds(120)))
struct TerminalTests {
    @Test("completion, .mode, history across runs and colour rules, typed through tmux")
    func interactiveSession() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let process = Process()
        process.executableURL = Repository.root.appending(path: "tools/scripts/repl-terminal-check")
        process.arguments = [BuildProducts.executable("oa-repl").path, mirror]
        // Files, not pipes: nothing the script starts can keep a pipe open and stall the reader.
        let output = directory.url.appending(path: "check.out")
        #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        let end = try ProcessEnd(running: process)
        let status = await end.status(within: .seconds(100))
        let report = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard let status else {
            await end.kill()
            try Task.checkCancellation()
            Issue.record("tools/scripts/repl-terminal-check did not end within 100 s:\n\(report)")
            return
        }
        #expect(status == 0, "tools/scripts/repl-terminal-check failed:\n\(report)")
        #expect(report.hasPrefix("ok: "), "\(report)")
    }
}
