import Foundation
import Primitives

/// Starts `oa-bridge-sim` and waits for the line it prints once it accepts connections.
public enum SimulatorLauncher {
    /// A started simulator.
    public struct Started {
        public let process: Process
        /// `ws://127.0.0.1:PORT`, or `wss://` when it serves TLS.
        public let url: String
        /// What it printed when ready.
        public let readyLine: String
    }

    /// Runs `executable` with `arguments` and reads its standard output up to the ready line,
    /// on a thread of its own: the calling task waits without holding a thread of the pool.
    ///
    /// - Parameter timeout: how long it may take to be ready (seeding a history included); past
    ///   it the simulator is killed and this throws.
    public static func start(executable: URL, arguments: [String], timeout: Duration) async throws -> Started {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let firstLine = OneShot<Data>()
        let reader = output.fileHandleForReading
        Thread {
            var buffer = Data()
            while !buffer.contains(0x0A) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            firstLine.settle(buffer)
        }.start()
        let buffer: Data
        if let ready = await firstLine.value(within: timeout) {
            buffer = ready
        } else {
            // Killed, its pipe closes and the reading thread ends, unless a process it started
            // holds the pipe: what it printed is then not waited for past a few seconds.
            kill(process.processIdentifier, SIGKILL)
            try Task.checkCancellation()
            let printed = await firstLine.value(within: .seconds(5)).map { String(decoding: $0, as: UTF8.self) } ?? "(its output is still open)"
            throw LaunchError("oa-bridge-sim was not ready within \(timeout); it printed: \(printed)")
        }
        guard buffer.contains(0x0A) else {
            throw LaunchError("oa-bridge-sim exited before it was ready: \(String(decoding: buffer, as: UTF8.self))")
        }
        let line = String(decoding: buffer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let range = line.range(of: #"wss?://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
            process.terminate()
            throw LaunchError("unexpected output from oa-bridge-sim: \(line)")
        }
        return Started(process: process, url: String(line[range]), readyLine: line)
    }

    /// Why the simulator did not start.
    public struct LaunchError: Error, CustomStringConvertible {
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }
}
