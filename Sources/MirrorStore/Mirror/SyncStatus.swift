/// A fact about syncing, as the last sync wrote it.
public struct SyncStatusEntry: Sendable, Equatable {
    public var value: String
    /// When it was written (ms since the epoch).
    public var updatedAt: Int64
}

/// The keys a sync writes to `sync_status`. Others may be added; readers show unknown keys as they are.
public enum SyncStatusKey {
    public static let bridgeURL = "bridge_url"
    public static let connectionState = "connection_state"
    public static let lastSuccessAt = "last_success_at"
    public static let lastError = "last_error"
    public static let lastErrorAt = "last_error_at"
    /// Sessions and events in the mirror after the last catch-up.
    public static let sessions = "sessions"
    public static let events = "events"

    /// One desktop's own `key` (`desktop:NAME:key`): with several bridges, each has its connection
    /// state, bridge URL, last success and last error.
    public static func desktop(_ name: String, _ key: String) -> String {
        "desktop:\(name):\(key)"
    }
}

extension MirrorStore {
    /// Writes status facts in one transaction; a nil value removes the key.
    public func setStatus(_ values: [String: String?]) throws {
        try write {
            let now = clock.now()
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                if let value {
                    try database.run(
                        """
                        INSERT INTO sync_status (key, value, updated_at) VALUES (?1, ?2, ?3)
                        ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                        """,
                        [key, value, now]
                    )
                } else {
                    try database.run("DELETE FROM sync_status WHERE key = ?", [key])
                }
            }
        }
    }

    /// Every status fact.
    public func status() throws -> [String: SyncStatusEntry] {
        let rows = try database.query("SELECT key, value, updated_at FROM sync_status") {
            ($0.string(0), SyncStatusEntry(value: $0.string(1), updatedAt: $0.int64(2)))
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }
}
