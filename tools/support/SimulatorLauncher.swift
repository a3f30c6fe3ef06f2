import Foundation

/// Starts `oa-bridge-sim` and waits for the line it prints once it accepts connections.
public enum SimulatorLauncher {
    /// A started simulator.
    public struct Started {
        public let process: Process
        /// `ws://127.0.0.1:PORT`.
        public let url: String
        /// What it printed when ready.
        public let readyLine: String
    }

    /// Runs `executable` with `arguments` and reads its standard output up to the ready line.
    public static func start(executable: URL, arguments: [String]) throws -> Started {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var buffer = Data()
        while !buffer.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw LaunchError("oa-bridge-sim exited before it was ready: \(String(decoding: buffer, as: UTF8.self))") }
            buffer.append(chunk)
        }
        let line = String(decoding: buffer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let range = line.range(of: #"ws://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
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
