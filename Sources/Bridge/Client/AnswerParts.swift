import Primitives
import Synchronization

/// A stock timeline's answer: whole, or in parts when it came in a message over the limit.
public enum TimelineAnswer: Sendable {
    /// The answer came in one message within the limit.
    case whole([TimelineItem])
    /// The answer is over the limit: its items arrive as they are read (`TimelineParts.next`).
    case inParts(TimelineParts)
}

/// A page of `tinyvex/history.changes`: whole, or in parts when it came in a large message.
public enum HistoryChangesAnswer: Sendable {
    /// The page came in one message, read whole.
    case whole(HistoryChangesPage)
    /// The page's items arrive as they are read (`HistoryPageParts.next`), then its `ending`.
    case inParts(HistoryPageParts)
}

/// A history page's answer came, to be read in parts, while a page asked from an earlier seq was
/// still unanswered: it is skipped unread, for the connection to go on to that one (which its
/// reader takes first, and which could not come while this one waited unread). Ask for it again.
public struct HistoryPageAnsweredAhead: Error, Sendable {}

/// The items of a stock timeline read in parts.
public typealias TimelineParts = AnswerParts<TimelineItem, Void>

/// The items of a history page read in parts, and what the page said besides them.
public typealias HistoryPageParts = AnswerParts<HistoryChange, HistoryPageEnding>

/// What a history page read in parts says besides its items, known once they were all read.
public struct HistoryPageEnding: Sendable, Equatable {
    /// The seq to ask from next (as `HistoryChangesPage.next`).
    public var next: Int64
    public var hasMore: Bool
    /// The size of the message, in bytes.
    public var byteCount: Int

    public init(next: Int64, hasMore: Bool, byteCount: Int) {
        self.next = next
        self.hasMore = hasMore
        self.byteCount = byteCount
    }
}

/// The items of an answer read in parts, in order, as each is complete, then how the answer
/// ended: bounded in items and bytes, so that while the reader is behind the connection stops
/// reading its socket (TCP then pushes back on the bridge). One reader.
public final class AnswerParts<Item: Sendable, Ending: Sendable>: Sendable {
    private let items: BoundedBuffer<Item>
    /// How the answer ended: nil while it is being read.
    private let outcome = Mutex<Result<Ending, BridgeError>?>(nil)
    /// Settled once the answer was read to its end, failed or stopped.
    private let ended = OneShot<Void>()

    /// - Parameter byteLimit: the bytes of the items kept unread at most (a single larger item
    ///   is still taken), besides at most 4,096 items.
    init(byteLimit: Int = 8 << 20) {
        items = BoundedBuffer(elementLimit: 4096, byteLimit: byteLimit)
    }

    /// The next items, oldest first: those waiting, up to `limit`, or the next to arrive.
    /// Empty once every item of the answer was read (`ending` then says what else it said).
    ///
    /// - Throws: why the answer could not be read whole (the connection ended, an item over the
    ///   message limit or undecodable, an error answer), once the items read before are taken.
    public func next(upTo limit: Int) async throws(BridgeError) -> [Item] {
        let taken = await items.take(upTo: limit)
        guard taken.isEmpty else { return taken }
        switch outcome.withLock({ $0 }) {
        case .success?: return []
        case .failure(let error)?: throw error
        case nil: throw Self.leftUnread
        }
    }

    /// What the answer said besides its items, once it was read whole (nil before, or when it failed).
    public var ending: Ending? {
        outcome.withLock { outcome in
            guard case .success(let ending)? = outcome else { return nil }
            return ending
        }
    }

    /// Returns once the connection is past the answer (every item passed on, or reading
    /// failed or stopped), or the calling task is cancelled: what a request that must not be
    /// answered beside this one waits for.
    public func untilEnded() async {
        _ = await ended.valueUnlessCancelled()
    }

    /// Stops reading: the rest of the answer is skipped.
    public func stop() {
        end(.failure(Self.leftUnread))
    }

    /// Passes an item on, waiting while the reader is behind; false once reading stopped.
    func send(_ item: Item, bytes: Int) async -> Bool {
        await items.send(item, bytes: bytes)
    }

    /// Every item was passed on, and the answer said `ending` besides.
    func complete(_ ending: Ending) {
        end(.success(ending))
    }

    /// The answer cannot be read whole, for `error`.
    func fail(_ error: BridgeError) {
        end(.failure(error))
    }

    private static var leftUnread: BridgeError { .connectionClosed(reason: "the answer was left unread") }

    private func end(_ result: Result<Ending, BridgeError>) {
        outcome.withLock { $0 = $0 ?? result }
        items.finish()
        ended.settle()
    }
}
