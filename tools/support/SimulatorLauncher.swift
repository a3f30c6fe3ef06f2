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

    /// Runs `executable` with `arguments` and reads its standard output up to the ready line.
    ///
    /// - Parameter timeout: how long it may take to be ready (seeding a history included); past
    ///   it the simulator is killed and this throws. Nil: no limit.
    public static func start(executable: URL, arguments: [String], timeout: Duration? = nil) throws -> Started {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // A watchdog kills a simulator that is not ready in time: its pipe closes, and the
        // blocking read below ends.
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeout.milliseconds)), execute: watchdog)
        }
        defer { watchdog.cancel() }
        var buffer = Data()
        while !buffer.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                let limit = timeout.map { " (or was not ready within \($0))" } ?? ""
                throw LaunchError("oa-bridge-sim exited before it was ready\(limit): \(String(decoding: buffer, as: UTF8.self))")
            }
            buffer.append(chunk)
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
