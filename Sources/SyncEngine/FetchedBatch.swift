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
    /// reads the other; a page of one event is asked alone. With `maxBytes` (a bridge that offers
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
        @Sendable func page(since: Int64, limit: Int) async throws -> HistoryChangesPage {
            do {
                return try await client.historyChanges(since: since, limit: limit, maxBytes: maxBytes, timeout: nil)
            } catch BridgeError.messageTooLarge(let size, let messageLimit) {
                throw PageRefused(since: since, requested: limit, size: size, limit: messageLimit)
            }
        }
        do {
            // Its tasks never throw: each answer carries its error, thrown when its turn comes.
            try await withThrowingTaskGroup(of: PageRequests.Answer.self) { group in
                // Whatever is still in flight at the end (a page guessed past the end) is not wanted.
                defer { group.cancelAll() }
                var requests = PageRequests(cursor: since)
                func ask(since: Int64) {
                    let limit = sizer.size
                    let number = requests.ask(since: since, limit: limit)
                    group.addTask {
                        do {
                            return PageRequests.Answer(number: number, result: .success(try await page(since: since, limit: limit)))
                        } catch {
                            return PageRequests.Answer(number: number, result: .failure(error))
                        }
                    }
                }
                func askAhead() {
                    if requests.mayAskAhead(limit: sizer.size) { ask(since: requests.guessedNext) }
                }
                ask(since: since)
                askAhead()
                while let (askedSince, fetched) = try await requests.next(from: &group) {
                    sizer.observe(events: fetched.items.count, bytes: fetched.byteCount)
                    // A page may be empty yet move the cursor (the bridge skipped rows it could not
                    // decode): go on while it moves, stop if it does not.
                    let hasMore = fetched.hasMore && fetched.next > askedSince
                    let items = requests.take(fetched, hasMore: hasMore)
                    if hasMore {
                        if requests.waiting == 0 { ask(since: requests.cursor) }
                        askAhead()
                    }
                    EventMapping.append(items, to: &pending.events)
                    pending.cursor = max(pending.cursor, requests.cursor)
                    // The first batch goes at an eighth of a transaction's worth: the writer starts
                    // while the pages after it come.
                    let share = sentCursor == since ? 8 : 1
                    let full = pending.events.count >= configuration.eventsPerTransaction / share
                        || pending.events.byteCount >= configuration.bytesPerTransaction / share
                    guard !hasMore || full else { continue }
                    // Refused only when this task is cancelled (the writer failed or stopped).
                    guard await batches.send(pending, bytes: pending.events.byteCount) else { throw CancellationError() }
                    sentCursor = pending.cursor
                    pending.events = EventBatch(reservingRowsAndBytesOf: pending.events)
                    guard hasMore else { break }
                }
            }
        } catch {
            if !pending.events.isEmpty || pending.cursor > sentCursor { await batches.send(pending, bytes: pending.events.byteCount) }
            throw error
        }
    }
}
