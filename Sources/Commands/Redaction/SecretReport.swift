import Bridge
import MirrorStore

/// One distinct secret of the `secrets` report: where it occurs and which exports hold it.
struct SecretReport {
    var kind: String
    var fingerprint: String
    var occurrences: [SecretOccurrence]
    /// The exports of the sessions where it occurs.
    var exports: [ExportRecord]
    var firstSeen: Int64?
    var lastSeen: Int64?

    /// An export written without redaction, of a session where it occurs, after it was first
    /// seen (or at any time, when its events have no time): the secret left the mirror in it.
    var reachedExport: Bool {
        exports.contains { !$0.redacted && $0.exportedAt >= (firstSeen ?? .min) }
    }

    /// `no`, `redacted (2)`, or `YES, unredacted (1 of 3)`.
    var exportNote: String {
        guard !exports.isEmpty else { return "no" }
        let plain = exports.filter { !$0.redacted && $0.exportedAt >= (firstSeen ?? .min) }.count
        return reachedExport ? "YES, unredacted (\(plain) of \(exports.count))" : "redacted (\(exports.count))"
    }

    var json: JSONValue {
        .object([
            JSONMember("kind", .string(kind)), JSONMember("fingerprint", .string(fingerprint)),
            JSONMember("first_seen", BrowseCommands.iso(firstSeen)), JSONMember("last_seen", BrowseCommands.iso(lastSeen)),
            JSONMember("reached_export", .bool(reachedExport)),
            JSONMember("occurrences", .array(occurrences.map { occurrence in
                .object([JSONMember("session_id", .string(occurrence.sessionID)), JSONMember("event_id", .number(occurrence.eventID)),
                         JSONMember("ordinal", .number(occurrence.ordinal)), JSONMember("time", BrowseCommands.iso(occurrence.timestamp))])
            })),
            JSONMember("exports", .array(exports.map { export in
                .object([JSONMember("session_id", .string(export.sessionID)), JSONMember("exported_at", BrowseCommands.iso(export.exportedAt)),
                         JSONMember("format", .string(export.format)), JSONMember("redacted", .bool(export.redacted)),
                         JSONMember("path", .string(export.path))])
            })),
        ])
    }

    /// The report of these occurrences (ordered by fingerprint), most recently seen first.
    static func make(occurrences: [SecretOccurrence], exports: [ExportRecord]) -> [SecretReport] {
        let exportsBySession = Dictionary(grouping: exports, by: \.sessionID)
        var reports: [SecretReport] = []
        for occurrence in occurrences {
            if let last = reports.last, last.fingerprint == occurrence.fingerprint, last.kind == occurrence.kind {
                reports[reports.count - 1].occurrences.append(occurrence)
            } else {
                reports.append(SecretReport(kind: occurrence.kind, fingerprint: occurrence.fingerprint, occurrences: [occurrence], exports: []))
            }
        }
        for index in reports.indices {
            let times = reports[index].occurrences.compactMap(\.timestamp)
            reports[index].firstSeen = times.min()
            reports[index].lastSeen = times.max()
            let sessions = Set(reports[index].occurrences.map(\.sessionID))
            reports[index].exports = sessions.sorted().flatMap { exportsBySession[$0] ?? [] }.sorted { $0.exportedAt < $1.exportedAt }
        }
        return reports.sorted { ($0.lastSeen ?? 0, $0.fingerprint) > ($1.lastSeen ?? 0, $1.fingerprint) }
    }
}
