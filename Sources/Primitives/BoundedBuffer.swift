import Synchronization

/// A first-in, first-out buffer between one producer task and one consumer task, with a bound on
/// how many elements and how many bytes it holds: `send` waits while it is full, so a producer
/// reading a socket stops reading it, and TCP pushes back on the peer. Nothing is ever dropped.
///
/// An element larger than the byte bound alone is still taken when the buffer is empty, so that
/// the bound delays large elements but never refuses them.
///
/// `finish()` ends it: `send` then returns `false`, and the consumer receives what is left, then
/// `nil`. One producer and one consumer at a time (a second waiting one is a programming error).
public final class BoundedBuffer<Element: Sendable>: Sendable {
    private struct State {
        /// Waiting elements from `head` on; slots before it are emptied as they are taken (so
        /// that nothing taken stays referenced) and dropped from time to time.
        var slots: [(element: Element?, bytes: Int)] = []
        var head = 0
        var bytes = 0
        var finished = false
        var waitingProducer: CheckedContinuation<Bool, Never>?
        var waitingConsumer: CheckedContinuation<Void, Never>?

        var count: Int { slots.count - head }

        mutating func append(_ element: Element, bytes: Int) {
            slots.append((element, bytes))
            self.bytes += bytes
        }

        mutating func removeFirst() -> Element {
            guard let element = slots[head].element else { preconditionFailure("BoundedBuffer: an empty slot past head") }
            let size = slots[head].bytes
            slots[head] = (nil, 0)
            head += 1
            bytes -= size
            if head == slots.count {
                slots.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= slots.count {
                slots.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    private enum SendStep {
        case taken(consumer: CheckedContinuation<Void, Never>?)
        case refused
        case full
    }

    private enum TakeStep {
        case taken([Element], producer: CheckedContinuation<Bool, Never>?)
        case ended
        case empty
    }

    /// The most elements it holds.
    public let elementLimit: Int
    /// The most bytes it holds (as counted by the producer).
    public let byteLimit: Int
    private let state = Mutex(State())

    public init(elementLimit: Int, byteLimit: Int = .max) {
        precondition(elementLimit > 0 && byteLimit > 0, "a buffer holds at least one element")
        self.elementLimit = elementLimit
        self.byteLimit = byteLimit
    }

    /// Appends `element`, waiting while the buffer is full. Returns false (and drops nothing that
    /// was accepted) once the buffer is finished or the calling task is cancelled: the element was
    /// not taken.
    @discardableResult
    public func send(_ element: Element, bytes: Int = 0) async -> Bool {
        while true {
            let step = state.withLock { state -> SendStep in
                if state.finished { return .refused }
                let fits = state.count == 0
                    || (state.count < elementLimit && state.bytes + bytes <= byteLimit)
                guard fits else { return .full }
                state.append(element, bytes: bytes)
                defer { state.waitingConsumer = nil }
                return .taken(consumer: state.waitingConsumer)
            }
            switch step {
            case .taken(let consumer):
                consumer?.resume()
                return true
            case .refused:
                return false
            case .full:
                let goOn = await waitAsProducer { state in
                    state.count == 0 || (state.count < elementLimit && state.bytes + bytes <= byteLimit)
                }
                guard goOn else { return false }
            }
        }
    }

    /// Waits until the consumer has taken every element sent. Returns false once the buffer is
    /// finished or the calling task is cancelled. For a producer that should hold no more than
    /// one element of its own besides the one waiting: it waits here before preparing the next.
    @discardableResult
    public func untilEmpty() async -> Bool {
        while true {
            let done = state.withLock { state -> Bool? in
                if state.finished { return false }
                return state.count == 0 ? true : nil
            }
            if let done { return done }
            guard await waitAsProducer(until: { $0.count == 0 }) else { return false }
        }
    }

    /// Suspends the producer until `ready` holds of the state, checked now and again each time the
    /// consumer takes; false once the buffer is finished or the task cancelled.
    private func waitAsProducer(until ready: (State) -> Bool) async -> Bool {
        guard !Task.isCancelled else { return false }
        let goOn = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow = state.withLock { state -> Bool? in
                    // Checked under the lock that `onCancel` takes: a cancellation is
                    // seen either here or there, never lost in between.
                    if state.finished || Task.isCancelled { return false }
                    if ready(state) { return true }
                    precondition(state.waitingProducer == nil, "BoundedBuffer: one producer at a time")
                    state.waitingProducer = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Bool, Never>? in
                defer { state.waitingProducer = nil }
                return state.waitingProducer
            }?.resume(returning: false)
        }
        return goOn && !Task.isCancelled
    }

    /// Up to `limit` elements, oldest first: all that are waiting, or, when none is, the next to
    /// arrive. Empty once the buffer is finished and drained, or when the calling task is cancelled.
    public func take(upTo limit: Int) async -> [Element] {
        while true {
            let step = state.withLock { state -> TakeStep in
                if state.count > 0 {
                    var taken: [Element] = []
                    taken.reserveCapacity(Swift.min(limit, state.count))
                    while taken.count < limit, state.count > 0 { taken.append(state.removeFirst()) }
                    defer { state.waitingProducer = nil }
                    return .taken(taken, producer: state.waitingProducer)
                }
                return state.finished ? .ended : .empty
            }
            switch step {
            case .taken(let elements, let producer):
                producer?.resume(returning: true)
                return elements
            case .ended:
                return []
            case .empty:
                guard !Task.isCancelled else { return [] }
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let resumeNow = state.withLock { state -> Bool in
                            if state.count > 0 || state.finished || Task.isCancelled { return true }
                            precondition(state.waitingConsumer == nil, "BoundedBuffer: one consumer at a time")
                            state.waitingConsumer = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    state.withLock { state -> CheckedContinuation<Void, Never>? in
                        defer { state.waitingConsumer = nil }
                        return state.waitingConsumer
                    }?.resume()
                }
                guard !Task.isCancelled else { return [] }
            }
        }
    }

    /// The next element, or nil once the buffer is finished and drained (or the task cancelled).
    public func next() async -> Element? {
        await take(upTo: 1).first
    }

    /// Ends the buffer: no more elements are taken; the consumer gets what is left, then nil.
    public func finish() {
        let (producer, consumer) = state.withLock { state in
            state.finished = true
            defer { state.waitingProducer = nil; state.waitingConsumer = nil }
            return (state.waitingProducer, state.waitingConsumer)
        }
        producer?.resume(returning: false)
        consumer?.resume()
    }

    /// How many elements are waiting.
    public var count: Int { state.withLock { $0.count } }

    /// How many tasks are suspended in `send` (the buffer was full) or `take` (it was empty): what
    /// tests read to know that a task is waiting before they make room or send.
    public var suspendedWaiters: Int {
        state.withLock { ($0.waitingProducer == nil ? 0 : 1) + ($0.waitingConsumer == nil ? 0 : 1) }
    }
}

extension BoundedBuffer: AsyncSequence {
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: BoundedBuffer

        public mutating func next() async -> Element? {
            await buffer.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(buffer: self)
    }
}
