import Bridge
import MirrorStore
import Primitives

/// Pages of `tinyvex/history.changes`, packed for the store: a transaction's worth.
struct FetchedBatch: Sendable {
    /// The cursor that covers the pages.
    var cursor: Int64
    var events: EventBatch

    /// A page the client refused as over its message limit (the connection ended with it).
    struct PageRefused: Error {
        /// The cursor the page was asked from.
        var since: Int64
        /// The events it asked for.
        var requested: Int
        /// The message's bytes, at least (nil when unknown), and the limit.
        var size: Int?
        var limit: Int
    }

    /// Fetches the pages from `since` to the end, each decoded and packed in the calling task
    /// (not on the engine's thread) while the next ones are already asked for, and sends them to
    /// `batches` a transaction's worth (`eventsPerTransaction` events or `bytesPerTransaction`
    /// bytes) at a time; finishes `batches` when done, failed or cancelled. On a failure, the pages
    /// fetched before it are sent first. Each page's size follows the bytes of the one before
    /// (`PageSizer`).
    ///
    /// Two pages are asked for at a time (`PageRequests`): the bridge prepares one while the client
    /// reads the other; a page of one event is asked alone. Each request is sent once the answer
    /// ahead of it is here (read whole, or its parts read to the end), so that answers come in the
    /// order asked and the client holds one large answer at a time. With `maxBytes` (a bridge that offers
    /// the budget), each page also ends once its updates reach that many bytes, so that a page
    /// meeting a run of large events holds a few of them, not as many as the sizer guessed.
    ///
    /// - Throws: `PageRefused` when a page was over the client's message limit; the request's errors.
    static func fetchAll(
        from client: any BridgeConnection,
        since: Int64,
        pageSizer: PageSizer,
        maxBytes: Int?,
        configuration: SyncConfiguration,
        into batches: BoundedBuffer<FetchedBatch>
    ) async throws {
        defer { batches.finish() }
        var sizer = pageSizer
        var pending = FetchedBatch(cursor: since, events: EventBatch())
        var sentCursor = since
        @Sendable func page(since: Int64, limit: Int) async throws -> HistoryChangesAnswer {
            do {
                return try await client.historyChangesInParts(since: since, limit: limit, maxBytes: maxBytes, timeout: nil)
            } catch BridgeError.messageTooLarge(let size, let messageLimit) {
                throw PageRefused(since: since, requested: limit, size: size, limit: messageLimit)
            }
        }
        /// Sends what is pending once it is a transaction's worth, or would be past it with
        /// `adding` bytes more (or `always`); false when the writer is gone.
        func send(always: Bool, adding: Int = 0) async -> Bool {
            // The first batch goes at an eighth of a transaction's worth: the writer starts while
            // the pages after it come.
            let share = sentCursor == since ? 8 : 1
            let full = pending.events.count >= configuration.eventsPerTransaction / share
                || pending.events.byteCount + adding >= configuration.bytesPerTransaction / share
            guard always || (full && !pending.events.isEmpty) else { return true }
            guard await batches.send(pending, bytes: pending.events.byteCount) else { return false }
            sentCursor = pending.cursor
            pending.events = EventBatch(reservingRowsAndBytesOf: pending.events, upTo: configuration.bytesPerTransaction)
            // The next batch is packed once the writer has taken this one: two batches in memory
            // (one committed, one packed or waiting), not three. Packing one takes less time than
            // committing it, so the writer does not wait for it.
            return await batches.untilEmpty()
        }
        var requests = PageRequests(cursor: since)
        do {
            // Its tasks never throw: each answer carries its error, thrown when its turn comes.
            try await withThrowingTaskGroup(of: PageRequests.Answer.self) { group in
                /// Settled once the answer of the request asked last is here: with its parts when
                /// it comes in parts (the connection is past it once they end), nil else.
                var lastAnswered: OneShot<HistoryPageParts?>?
                func ask(since: Int64) {
                    let limit = sizer.size
                    let number = requests.ask(since: since, limit: limit)
                    let answerAhead = lastAnswered
                    let answered = OneShot<HistoryPageParts?>()
                    lastAnswered = answered
                    group.addTask {
                        var parts: HistoryPageParts?
                        defer { answered.settle(parts) }
                        // Sent once the connection is past the answer ahead of it: the bridge
                        // answers in the order asked, and the client never holds two large
                        // answers at once (a message's frame is held whole while it is read).
                        if let partsAhead = await answerAhead?.valueUnlessCancelled() {
                            await partsAhead?.untilEnded()
                        }
                        // Cancelled while waiting (the wait then returns at once): nothing is sent.
                        guard !Task.isCancelled else {
                            return PageRequests.Answer(number: number, result: .failure(CancellationError()))
                        }
                        do {
                            let answer = try await page(since: since, limit: limit)
                            if case .inParts(let answerParts) = answer { parts = answerParts }
                            return PageRequests.Answer(number: number, result: .success(answer))
                        } catch {
                            return PageRequests.Answer(number: number, result: .failure(error))
                        }
                    }
                }
                func askAhead() {
                    if requests.mayAskAhead(limit: sizer.size) { ask(since: requests.guessedNext) }
                }
                /// Appends a page's items past the cursor; a page read in parts may be sent in
                /// several batches, each with the cursor of its last item.
                func append(_ items: [HistoryChange]) {
                    let new = items.contains { !requests.isNew($0.seq) } ? items.filter { requests.isNew($0.seq) } : items
                    EventMapping.append(new, to: &pending.events)
                    if let last = new.last { pending.cursor = max(pending.cursor, last.seq) }
                }
                ask(since: since)
                askAhead()
                do {
                    while true {
                        let taken: (since: Int64, limit: Int, answer: HistoryChangesAnswer)?
                        do {
                            taken = try await requests.next(from: &group)
                        } catch is HistoryPageAnsweredAhead {
                            // Skipped by the client, with the pages after it: asked again.
                            ask(since: requests.cursor)
                            askAhead()
                            continue
                        }
                        guard let (askedSince, limit, answer) = taken else { break }
                        let ending: HistoryPageEnding
                        let events: Int
                        switch answer {
                        case .whole(let fetched):
                            append(fetched.items)
                            ending = HistoryPageEnding(next: fetched.next, hasMore: fetched.hasMore, byteCount: fetched.byteCount)
                            events = fetched.items.count
                        case .inParts(let parts):
                            (ending, events) = try await readInParts(parts, askedSince: askedSince, limit: limit,
                                                                     itemLimit: configuration.clientOptions.maximumMessageSize) { items in
                                // A large event goes into the next batch rather than grow this one past its worth.
                                for item in items {
                                    guard await send(always: false, adding: item.update.rawBytes.count) else { return false }
                                    append([item])
                                }
                                return true
                            }
                        }
                        sizer.observe(events: events, bytes: ending.byteCount)
                        // A page may be empty yet move the cursor (the bridge skipped rows it could
                        // not decode): go on while it moves, stop if it does not.
                        let hasMore = ending.hasMore && ending.next > askedSince
                        requests.finishFirst(next: ending.next, hasMore: hasMore)
                        if hasMore {
                            if requests.waiting == 0 { ask(since: requests.cursor) }
                            askAhead()
                        }
                        pending.cursor = max(pending.cursor, requests.cursor)
                        // Refused only when this task is cancelled (the writer failed or stopped).
                        guard await send(always: !hasMore) else { throw CancellationError() }
                        guard hasMore else { break }
                    }
                } catch {
                    try await abandonAll(&requests, &group)
                    throw error
                }
                // Whatever is still in flight (a page guessed past the end) is not wanted.
                try await abandonAll(&requests, &group)
            }
        } catch {
            if !pending.events.isEmpty || pending.cursor > sentCursor { await batches.send(pending, bytes: pending.events.byteCount) }
            throw error
        }
    }

    /// Reads a page that comes in parts, its items taken (`take`: appended, and sent on in batches
    /// as they fill; false when the writer is gone) as they come; returns how the page ended and
    /// how many events it held.
    private static func readInParts(
        _ parts: HistoryPageParts, askedSince: Int64, limit: Int, itemLimit: Int,
        take: ([HistoryChange]) async -> Bool
    ) async throws -> (HistoryPageEnding, events: Int) {
        defer { parts.stop() }
        var events = 0
        var lastSeq = askedSince
        do {
            while true {
                let items = try await parts.next(upTo: 1024)
                guard !items.isEmpty else { break }
                events += items.count
                lastSeq = items.last?.seq ?? lastSeq
                guard await take(items) else { throw CancellationError() }
            }
        } catch BridgeError.messageTooLarge(let size, let messageLimit) {
            // Over the message limit, the item after the last one read is too large alone (no
            // smaller page helps); over the cap on a message read in parts, the page is.
            throw messageLimit == itemLimit ? PageRefused(since: lastSeq, requested: 1, size: size, limit: messageLimit)
                : PageRefused(since: askedSince, requested: limit, size: size, limit: messageLimit)
        }
        guard let ending = parts.ending else {
            throw BridgeError.connectionClosed(reason: "a history page read in parts ended unread")
        }
        return (ending, events)
    }

    /// Cancels the requests still in flight and lets their answers go unread.
    private static func abandonAll(_ requests: inout PageRequests, _ group: inout ThrowingTaskGroup<PageRequests.Answer, any Error>) async throws {
        group.cancelAll()
        requests.abandonEarly()
        while let answer = try await group.next() { answer.abandon() }
    }
}
