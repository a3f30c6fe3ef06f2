/// A secret found in an event, as the mirror keeps it: its kind and fingerprint, never its value.
public struct SecretFindingRecord: Sendable, Equatable, Hashable {
    public var eventID: Int64
    public var kind: String
    public var fingerprint: String

    public init(eventID: Int64, kind: String, fingerprint: String) {
        self.eventID = eventID
        self.kind = kind
        self.fingerprint = fingerprint
    }
}

/// Where a secret occurs: a finding with its event's session, ordinal and time.
public struct SecretOccurrence: Sendable, Equatable {
    public var kind: String
    public var fingerprint: String
    public var sessionID: String
    public var eventID: Int64
    public var ordinal: Int64
    public var timestamp: Int64?
}

/// An export of a session the mirror wrote to a file.
public struct ExportRecord: Sendable, Equatable {
    public var sessionID: String
    /// When, in ms by this machine's clock.
    public var exportedAt: Int64
    /// `md`, `html` or `json`.
    public var format: String
    public var redacted: Bool
    public var path: String

    public init(sessionID: String, exportedAt: Int64, format: String, redacted: Bool, path: String) {
        self.sessionID = sessionID
        self.exportedAt = exportedAt
        self.format = format
        self.redacted = redacted
        self.path = path
    }
}

/// The secrets found in events (scanned lazily, up to a watermark) and the exports written.
extension MirrorStore {
    /// How far events were scanned for secrets, and with which rules (their digest); nil before
    /// the first scan.
    public func secretScanState() throws -> (rulesDigest: String, scannedThrough: Int64)? {
        try database.queryFirst("SELECT rules_digest, scanned_through FROM secret_scan WHERE id = 1") { ($0.string(0), $0.int64(1)) }
    }

    /// The events after the event id `eventID`, by event id, at most `limit`.
    public func events(afterEventID eventID: Int64, limit: Int) throws -> [TimelineEvent] {
        try database.query(
            "SELECT \(Self.eventColumns) FROM \(Self.eventsWithSessions) WHERE e.event_id > ? ORDER BY e.event_id LIMIT ?",
            [eventID, limit]
        ) { Self.timelineEvent($0) }
    }

    /// Keeps `findings` and moves the watermark to `eventID` for the rules of `rulesDigest`;
    /// when the digest is not the one of the findings kept, those are dropped first.
    public func recordSecretScan(_ findings: [SecretFindingRecord], through eventID: Int64, rulesDigest: String) throws {
        try write {
            if try secretScanState()?.rulesDigest != rulesDigest { try database.execute("DELETE FROM secret_findings") }
            for finding in findings {
                try database.run("INSERT OR IGNORE INTO secret_findings (event_id, kind, fingerprint) VALUES (?, ?, ?)",
                                 [finding.eventID, finding.kind, finding.fingerprint])
            }
            try database.run(
                """
                INSERT INTO secret_scan (id, rules_digest, scanned_through) VALUES (1, ?1, ?2)
                ON CONFLICT (id) DO UPDATE SET rules_digest = excluded.rules_digest, scanned_through = excluded.scanned_through
                """,
                [rulesDigest, eventID]
            )
        }
    }

    /// Every occurrence of a secret kept, of one session or all, by fingerprint then time; the
    /// findings of events no longer mirrored are left out.
    public func secretOccurrences(sessionID: String? = nil) throws -> [SecretOccurrence] {
        try database.query(
            """
            SELECT f.kind, f.fingerprint, s.session_id, e.event_id, e.ordinal, e.ts
            FROM secret_findings f JOIN events e ON e.event_id = f.event_id JOIN sessions s ON s.session_no = e.session_no
            WHERE ?1 IS NULL OR s.session_id = ?1
            ORDER BY f.fingerprint, e.ts, e.event_id
            """,
            [sessionID]
        ) { SecretOccurrence(kind: $0.string(0), fingerprint: $0.string(1), sessionID: $0.string(2), eventID: $0.int64(3),
                             ordinal: $0.int64(4), timestamp: $0.optionalInt64(5)) }
    }

    /// Notes that a session was exported.
    public func recordExport(_ record: ExportRecord) throws {
        try write {
            try database.run("INSERT INTO exports (session_id, exported_at, format, redacted, path) VALUES (?, ?, ?, ?, ?)",
                             [record.sessionID, record.exportedAt, record.format, record.redacted, record.path])
        }
    }

    /// The exports written, oldest first.
    public func exports() throws -> [ExportRecord] {
        try database.query("SELECT session_id, exported_at, format, redacted, path FROM exports ORDER BY exported_at, rowid") {
            ExportRecord(sessionID: $0.string(0), exportedAt: $0.int64(1), format: $0.string(2), redacted: $0.bool(3), path: $0.string(4))
        }
    }
}
