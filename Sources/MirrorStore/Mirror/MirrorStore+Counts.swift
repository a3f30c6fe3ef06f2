/// How much the mirror holds.
public struct MirrorCounts: Sendable, Equatable {
    public var sessions: Int
    public var events: Int
    public var threads: Int
    /// Outbox items per state (states with none are absent).
    public var outbox: [OutboxState: Int]
}

extension MirrorStore {
    /// Counts of sessions, events, threads and outbox items, from one snapshot.
    public func counts() throws -> MirrorCounts {
        try read {
            let outboxRows = try database.query("SELECT state, count(*) FROM outbox GROUP BY state") {
                (OutboxState(rawValue: $0.string(0)), $0.int(1))
            }
            var outbox: [OutboxState: Int] = [:]
            for case let (state?, count) in outboxRows { outbox[state] = count }
            return MirrorCounts(
                sessions: Int(try database.scalarInt64("SELECT count(*) FROM sessions") ?? 0),
                // Each session keeps its count with every write; counting the events table
                // itself reads all of it (0.9 s for 1M events).
                events: Int(try database.scalarInt64("SELECT coalesce(sum(local_event_count), 0) FROM sessions") ?? 0),
                threads: Int(try database.scalarInt64("SELECT count(*) FROM threads") ?? 0),
                outbox: outbox
            )
        }
    }
}
