import Foundation
import MirrorStore
import ToolSupport

/// The simulator's seeded history, and the fresh copy of it that each phase's simulator writes
/// its burst into (so that both phases start from the same history, and `--history` never grows).
enum HistoryCopies {
    static let sessions = 10
    static let events = 1000

    /// Seeds `path` once (by running the simulator on it) when it is missing or empty.
    static func seedIfNeeded(_ path: String, children: Children) async throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size == 0 else { return }
        let simulator = try await children.startSimulator(history: path, sessions: sessions, events: events, timeout: .seconds(120))
        await children.stop(simulator.process)
    }

    /// A consistent copy of `path` at `destination` (replaced if there), made by SQLite.
    static func copy(_ path: String, to destination: URL) throws {
        remove(destination)
        let source = try Database(path: path, mode: .readOnly)
        try source.execute("VACUUM INTO '\(destination.path.replacingOccurrences(of: "'", with: "''"))'")
    }

    /// Removes a copy, with its write-ahead log (a burst of 300,000 updates makes it large).
    static func remove(_ copy: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: copy.path + suffix)
        }
    }
}
