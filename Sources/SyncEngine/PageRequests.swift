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
        var result: Result<HistoryChangesAnswer, any Error>

        /// Lets the answer go unread: one read in parts is stopped, for the connection to go on
        /// reading what follows it.
        func abandon() {
            if case .success(.inParts(let parts)) = result { parts.stop() }
        }
    }

    /// The seq up to which the answers taken so far cover the history.
    private(set) var cursor: Int64
    /// The requests whose answers will be taken, in order.
    private var inFlight: [(number: Int, since: Int64, limit: Int)] = []
    /// Answers that came before the ones ahead of them.
    private var early: [Int: Answer] = [:]
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

    /// The answer of the first request in flight, once it is there, with where it was asked from
    /// and for how many events; nil when none is in flight. Answers of dropped requests are
    /// abandoned as they come.
    ///
    /// An answer read in parts may come before the one ahead of it: the connection read that one
    /// first, and its task is a step behind. One the bridge sent first on the connection was
    /// skipped by the client (`HistoryPageAnsweredAhead`): it and the requests after it are
    /// dropped, and the pages go on from the cursor once the first is taken; when it is the
    /// first (the one ahead of it was taken meanwhile), they are all dropped, and this throws it.
    ///
    /// - Throws: that request's error (not those of requests after it, nor of dropped ones);
    ///   `HistoryPageAnsweredAhead`: nothing is in flight any more, ask again from the cursor.
    mutating func next(from group: inout ThrowingTaskGroup<Answer, any Error>) async throws
        -> (since: Int64, limit: Int, answer: HistoryChangesAnswer)? {
        guard let first = inFlight.first else { return nil }
        while early[first.number] == nil {
            guard let answer = try await group.next() else { return nil }
            if dropped.remove(answer.number) != nil {
                answer.abandon()
                continue
            }
            if case .failure(let error) = answer.result, error is HistoryPageAnsweredAhead,
               let index = inFlight.firstIndex(where: { $0.number == answer.number }), index > 0 {
                drop(inFlight[index...].map(\.number), besides: answer.number)
                inFlight.removeSubrange(index...)
                continue
            }
            early[answer.number] = answer
        }
        guard let answer = early.removeValue(forKey: first.number) else { return nil }
        if case .failure(let error) = answer.result, error is HistoryPageAnsweredAhead {
            drop(inFlight.map(\.number), besides: first.number)
            inFlight.removeAll()
        }
        return (first.since, first.limit, try answer.result.get())
    }

    /// Whether an item of the first request's answer is past the cursor (the page before may have
    /// reached past where this one starts).
    func isNew(_ seq: Int64) -> Bool {
        seq > cursor
    }

    /// The first request's answer (from `next(from:)`) was read: it ended at `next`, with more
    /// after it or not. Drops the requests after it when it did not reach where they start or has
    /// no more.
    mutating func finishFirst(next: Int64, hasMore: Bool) {
        inFlight.removeFirst()
        cursor = max(cursor, next)
        if let following = inFlight.first, !hasMore || next < following.since {
            drop(inFlight.map(\.number))
            inFlight.removeAll()
        }
    }

    /// The answers of `numbers` are not wanted: those taken are abandoned, the others will be as
    /// they come (but `taken`'s, at hand).
    private mutating func drop(_ numbers: [Int], besides taken: Int? = nil) {
        for number in numbers where number != taken {
            if let answer = early.removeValue(forKey: number) {
                answer.abandon()
            } else {
                dropped.insert(number)
            }
        }
    }

    /// Abandons the answers taken early and not read (the catch-up ended before them).
    mutating func abandonEarly() {
        for answer in early.values { answer.abandon() }
        early.removeAll()
    }
}
