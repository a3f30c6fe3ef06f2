import Bridge

/// The `tinyvex/history.changes` requests of a catch-up that are in flight, and what their answers
/// mean taken in order.
///
/// Seqs are contiguous (bridge protocol, part 2), so the page after one asked from `since` with
/// `limit` most likely starts at `since + limit`: it is asked for before that one is answered
/// (`guessedNext`), and the bridge prepares it while the client reads the other. Its answer is used
/// only if the one before reached that far (`next` at or past its `since`); otherwise (seqs were
/// skipped, or the history ended) it is dropped, for it could leave seqs out, and the pages go on
/// from the cursor. Items at or below the cursor (the page before reached past where this one
/// starts) are left out.
struct PageRequests {
    /// A request's answer, or why it has none.
    struct Answer: Sendable {
        var number: Int
        var result: Result<HistoryChangesPage, any Error>
    }

    /// The seq up to which the answers taken so far cover the history.
    private(set) var cursor: Int64
    /// The requests whose answers will be taken, in order.
    private var inFlight: [(number: Int, since: Int64, limit: Int)] = []
    /// Answers that came before the ones ahead of them.
    private var early: [Int: Result<HistoryChangesPage, any Error>] = [:]
    /// Requests whose answers are not wanted.
    private var dropped: Set<Int> = []
    private var lastNumber = 0

    init(cursor: Int64) {
        self.cursor = cursor
    }

    /// How many requests whose answers will be taken are in flight.
    var waiting: Int { inFlight.count }

    /// Where the page after those in flight most likely starts (the cursor when none is).
    var guessedNext: Int64 {
        inFlight.last.map { $0.since + Int64($0.limit) } ?? cursor
    }

    /// Whether a request for `limit` events may be asked ahead, beside those in flight: not when it,
    /// or one in flight, asks for one event. A message over the client's limit ends the connection
    /// and fails every request in flight alike, answered in whatever order the bridge chose; only
    /// a page of one event asked alone names that event as the one too large.
    func mayAskAhead(limit: Int) -> Bool {
        limit > 1 && inFlight.allSatisfy { $0.limit > 1 }
    }

    /// Notes a request asked from `since` for `limit` events; returns its number, for its `Answer`.
    mutating func ask(since: Int64, limit: Int) -> Int {
        lastNumber += 1
        inFlight.append((lastNumber, since, limit))
        return lastNumber
    }

    /// The answer of the first request in flight, once it is there, with where it was asked from;
    /// nil when none is in flight.
    ///
    /// - Throws: that request's error (not those of requests after it, nor of dropped ones).
    mutating func next(from group: inout ThrowingTaskGroup<Answer, any Error>) async throws -> (since: Int64, page: HistoryChangesPage)? {
        guard let first = inFlight.first else { return nil }
        while early[first.number] == nil {
            guard let answer = try await group.next() else { return nil }
            if dropped.remove(answer.number) == nil { early[answer.number] = answer.result }
        }
        guard let result = early.removeValue(forKey: first.number) else { return nil }
        return (first.since, try result.get())
    }

    /// Takes the first request's answer (from `next(from:)`); returns its items past the cursor,
    /// and drops the requests after it when it did not reach where they start or has no more.
    mutating func take(_ page: HistoryChangesPage, hasMore: Bool) -> [HistoryChange] {
        inFlight.removeFirst()
        let cursorBefore = cursor
        let items = page.items.contains { $0.seq <= cursorBefore } ? page.items.filter { $0.seq > cursorBefore } : page.items
        cursor = max(cursor, page.next)
        if let following = inFlight.first, !hasMore || page.next < following.since {
            for request in inFlight where early.removeValue(forKey: request.number) == nil {
                dropped.insert(request.number)
            }
            inFlight.removeAll()
        }
        return items
    }
}
