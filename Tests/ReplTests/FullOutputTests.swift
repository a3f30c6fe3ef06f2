import Foundation
import TestSupport
import Testing
import ToolSupport

/// Output that cannot be written whole (standard output on a full disk) never ends with status 0.
@Suite("oa-repl on a full disk", .startsPrograms(endsWithin: .seconds(60)))
struct FullOutputTests {
    @Test("show and a table written to /dev/full: status 1, and the reason on standard error")
    func fullDisk() async throws {
        try #require(FileManager.default.isWritableFile(atPath: "/dev/full"), "this check needs /dev/full")
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        for command in ["show 798c", "sessions"] {
            let process = Process()
            process.executableURL = BuildProducts.executable("oa-repl")
            process.arguments = ["--db", mirror, "-c", command]
            let errors = directory.url.appending(path: "errors.txt")
            #expect(FileManager.default.createFile(atPath: errors.path, contents: nil))
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let errorHandle = try FileHandle(forWritingTo: errors)
            defer {
                try? full.close()
                try? errorHandle.close()
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = full
            process.standardError = errorHandle
            let end = try ProcessEnd(running: process)
            guard let status = await end.status(within: .seconds(30)) else {
                await end.kill()
                Issue.record("oa-repl -c \(command) did not end within 30 s")
                return
            }
            let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            #expect(status == 1, "\(command): \(said)")
            #expect(said.contains("cannot write standard output: No space left on device"), "\(command): \(said)")
        }
    }
}
