import MirrorStore

/// One distinct secret of the `secrets` report: its kind and fingerprint (never its value), where
/// it occurs and which exports hold it; encoded member for member as `docs/cli.md` documents
/// `secrets.list`.
public struct SecretReport: Sendable, Encodable {
    public var kind: String
    public var fingerprint: String
    public var firstSeen: Timestamp?
    public var lastSeen: Timestamp?
    public var occurrences: [Occurrence]
    /// The exports of the sessions where it occurs, oldest first.
    public var exports: [Export]

    enum CodingKeys: String, CodingKey {
        case kind, fingerprint, firstSeen = "first_seen", lastSeen = "last_seen", reachedExport = "reached_export", occurrences, exports
    }

    /// An event where it occurs.
    public struct Occurrence: Sendable, Encodable {
        public var sessionID: String
        public var eventID: Int64
        public var ordinal: Int64
        public var time: Timestamp?

        enum CodingKeys: String, CodingKey {
            case sessionID = "session_id", eventID = "event_id", ordinal, time
        }
    }

    /// An export the mirror wrote of a session where it occurs.
    public struct Export: Sendable, Encodable {
        public var sessionID: String
        public var exportedAt: Timestamp
        public var format: String
        public var redacted: Bool
        public var path: String

        enum CodingKeys: String, CodingKey {
            case sessionID = "session_id", exportedAt = "exported_at", format, redacted, path
        }
    }

    /// An export written without redaction, of a session where it occurs, after it was first
    /// seen (or at any time, when its events have no time): the secret left the mirror in it.
    public var reachedExport: Bool {
        unredactedExports > 0
    }

    /// `no`, `redacted (2)`, or `YES, unredacted (1 of 3)`.
    public var exportNote: String {
        guard !exports.isEmpty else { return "no" }
        return reachedExport ? "YES, unredacted (\(unredactedExports) of \(exports.count))" : "redacted (\(exports.count))"
    }

    private var unredactedExports: Int {
        exports.count { !$0.redacted && $0.exportedAt.milliseconds >= (firstSeen?.milliseconds ?? .min) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encode(firstSeen, forKey: .firstSeen)
        try container.encode(lastSeen, forKey: .lastSeen)
        try container.encode(reachedExport, forKey: .reachedExport)
        try container.encode(occurrences, forKey: .occurrences)
        try container.encode(exports, forKey: .exports)
    }

    /// The report of these occurrences (ordered by fingerprint), most recently seen first.
    static func make(occurrences: [SecretOccurrence], exports: [ExportRecord]) -> [SecretReport] {
        let exportsBySession = Dictionary(grouping: exports, by: \.sessionID)
        var groups: [(kind: String, fingerprint: String, occurrences: [SecretOccurrence])] = []
        for occurrence in occurrences {
            if let last = groups.last, last.fingerprint == occurrence.fingerprint, last.kind == occurrence.kind {
                groups[groups.count - 1].occurrences.append(occurrence)
            } else {
                groups.append((occurrence.kind, occurrence.fingerprint, [occurrence]))
            }
        }
        let reports = groups.map { group in
            let times = group.occurrences.compactMap(\.timestamp)
            let sessions = Set(group.occurrences.map(\.sessionID))
            return SecretReport(
                kind: group.kind, fingerprint: group.fingerprint,
                firstSeen: Timestamp(milliseconds: times.min()), lastSeen: Timestamp(milliseconds: times.max()),
                occurrences: group.occurrences.map {
                    Occurrence(sessionID: $0.sessionID, eventID: $0.eventID, ordinal: $0.ordinal, time: Timestamp(milliseconds: $0.timestamp))
                },
                exports: sessions.sorted().flatMap { exportsBySession[$0] ?? [] }.sorted { $0.exportedAt < $1.exportedAt }.map {
                    Export(sessionID: $0.sessionID, exportedAt: Timestamp(milliseconds: $0.exportedAt), format: $0.format, redacted: $0.redacted,
                           path: $0.path)
                }
            )
        }
        return reports.sorted {
            ($0.lastSeen?.milliseconds ?? 0, $0.fingerprint) > ($1.lastSeen?.milliseconds ?? 0, $1.fingerprint)
        }
    }
}
