-- The certificates of wss:// bridges this mirror trusts: the SHA-256 of each one's leaf
-- certificate (64 lowercase hex digits), remembered on first use or when a pin was given
-- deliberately, by the bridge as the user named it (a URL, or a DNS-SD instance).
CREATE TABLE bridge_pins (
    bridge TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    pinned_at INTEGER NOT NULL
);
