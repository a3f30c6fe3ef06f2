import MirrorStore

/// What a session's view says of what its desktop no longer has (the mirror keeps it): the session
/// itself gone, or some of its events, by their ordinals.
package enum ArchiveNote {
    /// One line, or nil when the desktop still has all of it.
    package static func line(session: SessionSummary, events: [TimelineEvent]) -> String? {
        line(session: session, goneOrdinals: events.filter { $0.goneAt != nil }.map(\.ordinal))
    }

    /// One line, or nil when the desktop still has all of it, given the ordinals of the events
    /// it no longer has.
    package static func line(session: SessionSummary, goneOrdinals: [Int64]) -> String? {
        let desktop = session.desktop.map { "desktop \($0)" } ?? "desktop"
        if let gone = session.goneAt {
            return "No longer on its \(desktop) (noticed \(Timestamp(milliseconds: gone).iso8601)): kept in the mirror."
        }
        guard !goneOrdinals.isEmpty else { return nil }
        return "\(goneOrdinals.count) of its events (\(ranges(goneOrdinals))) are no longer on its \(desktop): kept in the mirror."
    }

    /// `#0–#24, #30`: ordinals in order, runs of consecutive ones as ranges.
    package static func ranges(_ ordinals: [Int64]) -> String {
        var runs: [(Int64, Int64)] = []
        for ordinal in ordinals.sorted() {
            if let last = runs.last, last.1 + 1 == ordinal {
                runs[runs.count - 1].1 = ordinal
            } else {
                runs.append((ordinal, ordinal))
            }
        }
        return runs.map { $0.0 == $0.1 ? "#\($0.0)" : "#\($0.0)–#\($0.1)" }.joined(separator: ", ")
    }
}
