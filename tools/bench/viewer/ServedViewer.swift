import Foundation
import ToolSupport

/// `oa-repl serve` on a mirror, started as a person would start it, its URL read from the line it
/// prints; its peak RSS read from /proc before it is stopped.
final class ServedViewer {
    let process: Process
    let port: Int

    init(mirror: String) throws {
        let repl = try ProgramLinks.executable("oa-repl", in: URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        process = Process()
        process.executableURL = repl
        process.arguments = ["serve", "--db", mirror, "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(0x0A) {
            // At most 30 s for each part of the line.
            var ready = pollfd(fd: reader.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 30_000) == 1 else {
                process.terminate()
                throw BenchmarkFailure("oa-repl serve printed no URL within 30 s")
            }
            let chunk = reader.availableData
            guard !chunk.isEmpty else { throw BenchmarkFailure("oa-repl serve ended before it printed its URL") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression),
              let port = Int(text[range].split(separator: ":").last ?? "") else { throw BenchmarkFailure("no URL in: \(text)") }
        self.port = port
    }

    /// The server's peak resident memory so far, in MiB (`VmHWM`).
    var peakResidentMiB: Double {
        ProcessMemory.peakResidentKiB(process.processIdentifier).map { Double($0) / 1024 } ?? .nan
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
