/// The certificate pins of `wss://` bridges the mirror trusts.
extension MirrorStore {
    /// The pin remembered for `bridge` (64 lowercase hex digits), if any.
    public func rememberedPin(forBridge bridge: String) throws -> String? {
        try database.queryFirst("SELECT sha256 FROM bridge_pins WHERE bridge = ?", [bridge]) { $0.string(0) }
    }

    /// Remembers `sha256` (64 lowercase hex digits) as the pin of `bridge`, replacing any other.
    public func rememberPin(_ sha256: String, forBridge bridge: String) throws {
        try write {
            try database.run(
                """
                INSERT INTO bridge_pins (bridge, sha256, pinned_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (bridge) DO UPDATE SET sha256 = excluded.sha256, pinned_at = excluded.pinned_at
                """,
                [bridge, sha256, clock.now()]
            )
        }
    }
}
