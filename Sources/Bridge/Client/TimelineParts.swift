import Primitives
import Synchronization

/// A stock timeline's answer: whole, or in parts when it came in a message over the limit.
public enum TimelineAnswer: Sendable {
    /// The answer came in one message within the limit.
    case whole([TimelineItem])
    /// The answer is over the limit: its items arrive as they are read (`TimelineParts.next`).
    case inParts(TimelineParts)
}

/// The items of a timeline whose answer is read in parts, in order, as each is complete: bounded
/// in items and bytes, so that while the reader is behind the connection stops reading its socket
/// (TCP then pushes back on the bridge). One reader.
public final class TimelineParts: Sendable {
    /// Items kept unread at most: this many…
    static let itemLimit = 4096
    /// …and this many bytes of them (a single larger item is still taken).
    static let byteLimit = 8 << 20

    private let items = BoundedBuffer<TimelineItem>(elementLimit: TimelineParts.itemLimit, byteLimit: TimelineParts.byteLimit)
    /// How the answer ended: nil while it is being read.
    private let outcome = Mutex<Result<Void, BridgeError>?>(nil)

    init() {}

    /// The next items, oldest first: those waiting, up to `limit`, or the next to arrive.
    /// Empty once every item of the answer was read.
    ///
    /// - Throws: why the answer could not be read whole (the connection ended, an item over the
    ///   message limit or undecodable, an error answer), once the items read before are taken.
    public func next(upTo limit: Int) async throws(BridgeError) -> [TimelineItem] {
        let taken = await items.take(upTo: limit)
        guard taken.isEmpty else { return taken }
        switch outcome.withLock({ $0 }) {
        case .success?: return []
        case .failure(let error)?: throw error
        case nil: throw BridgeError.connectionClosed(reason: "the timeline's answer was left unread")
        }
    }

    /// Stops reading: the rest of the answer is skipped.
    public func stop() {
        end(.failure(.connectionClosed(reason: "the timeline's answer was left unread")))
    }

    /// Passes an item on, waiting while the reader is behind; false once reading stopped.
    func send(_ item: TimelineItem, bytes: Int) async -> Bool {
        await items.send(item, bytes: bytes)
    }

    /// Every item was passed on.
    func complete() {
        end(.success(()))
    }

    /// The answer cannot be read whole, for `error`.
    func fail(_ error: BridgeError) {
        end(.failure(error))
    }

    private func end(_ result: Result<Void, BridgeError>) {
        outcome.withLock { $0 = $0 ?? result }
        items.finish()
    }
}
