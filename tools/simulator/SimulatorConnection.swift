import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import WSCore

/// One client connection of the simulator: frames to it go through a queue, so that everything
/// sent to a connection keeps the order it was queued in.
///
/// `send` queues without waiting (the queue is unbounded: fine for answers and small batches);
/// `sendPaced` waits for the socket, for bursts of any length.
final class SimulatorConnection: Sendable {
    let id: Int
    private let queue: AsyncStream<QueuedFrame>.Continuation
    private let frames: AsyncStream<QueuedFrame>
    private let channel: any Channel
    private let open = Atomic<Bool>(true)
    private let sentBytes = Atomic<Int>(0)
    private let largestSent = Atomic<Int>(0)
    private let backlog = Mutex(Backlog())
    private let largeMessages: LargeMessages

    /// How messages over a size go out (`_sim/set_frame_size`), as a bridge that fragments them
    /// would send them.
    struct LargeMessages: Sendable {
        /// Messages over this many bytes go out in frames of this many (nil: one frame each).
        var frameSize: Int?
        /// The connection is dropped after this many frames of such a message (nil: never).
        var dropAfterFrames: Int?
    }

    /// Frames queued and not yet written, and the senders waiting for the queue to shrink.
    private struct Backlog {
        var queued = 0
        /// True once the writer stopped: nothing queued will be written any more.
        var closed = false
        var waiters: [(lowWater: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Removes and returns the waiters that may go on.
        mutating func takeReadyWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = waiters.filter { closed || queued <= $0.lowWater }.map(\.continuation)
            if !ready.isEmpty { waiters.removeAll { closed || queued <= $0.lowWater } }
            return ready
        }
    }

    init(id: Int, channel: any Channel, largeMessages: LargeMessages = LargeMessages()) {
        self.id = id
        self.channel = channel
        self.largeMessages = largeMessages
        (frames, queue) = AsyncStream<QueuedFrame>.makeStream()
    }

    /// Queues a frame: text, or binary (which a bridge may also send JSON in); `fragments` sends
    /// it in pieces, also in sequences the WebSocket protocol forbids (for tests of clients).
    func send(_ bytes: [UInt8], binary: Bool = false, fragments: Fragments = .whole) {
        backlog.withLock { $0.queued += 1 }
        queue.yield(QueuedFrame(bytes: bytes, binary: binary, fragments: fragments))
    }

    /// How a message goes out.
    enum Fragments: String, Sendable {
        /// One frame.
        case whole
        /// A first frame and a continuation: one message, as the protocol allows.
        case split
        /// A continuation frame with no message to continue (a protocol error).
        case orphanContinuation = "orphan_continuation"
        /// A first frame, then a new message's frame before the first one ended (a protocol error).
        case newMessageInside = "new_message_inside"
    }

    private struct QueuedFrame: Sendable {
        var bytes: [UInt8]
        var binary: Bool
        var fragments: Fragments
    }

    /// Sends `count` text frames, made one at a time by `frame(index)`, as fast as the client's
    /// socket takes them: never more than `window` of them wait in the queue. Returns early when
    /// the connection ends. Frames queued meanwhile by `send` may come between them.
    func sendPaced(count: Int, window: Int = 256, frame: (Int) -> [UInt8]) async {
        for index in 0..<count {
            if backlog.withLock({ $0.queued >= window }) {
                await waitForBacklog(atMost: window / 2)
            }
            guard isOpen, !backlog.withLock({ $0.closed }) else { return }
            send(frame(index))
        }
    }

    /// Waits until at most `lowWater` frames are queued, or the writer stopped.
    private func waitForBacklog(atMost lowWater: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let goOn = backlog.withLock { backlog -> Bool in
                if backlog.closed || backlog.queued <= lowWater { return true }
                backlog.waiters.append((lowWater, continuation))
                return false
            }
            if goOn { continuation.resume() }
        }
    }

    /// Payload bytes written to this connection so far.
    var bytesSent: Int { sentBytes.load(ordering: .relaxed) }
    /// The largest message written, in bytes.
    var largestMessageSent: Int { largestSent.load(ordering: .relaxed) }

    /// False once the connection was dropped or ended.
    var isOpen: Bool { open.load(ordering: .relaxed) }

    /// Drops the TCP connection at once, with no WebSocket close handshake.
    func drop() {
        open.store(false, ordering: .relaxed)
        queue.finish()
        channel.close(promise: nil)
        closeBacklog()
    }

    /// Writes queued frames until the connection ends; with `closeAfterFrames`, drops the
    /// connection right after writing that many.
    func runWriter(_ outbound: WebSocketOutboundWriter, closeAfterFrames: Int?) async {
        defer { closeBacklog() }
        var written = 0
        for await frame in frames {
            do {
                try await write(frame, to: outbound)
            } catch {
                return
            }
            written += 1
            sentBytes.add(frame.bytes.count, ordering: .relaxed)
            largestSent.max(frame.bytes.count, ordering: .relaxed)
            let ready = backlog.withLock { backlog in
                backlog.queued -= 1
                return backlog.takeReadyWaiters()
            }
            ready.forEach { $0.resume() }
            if let closeAfterFrames, written >= closeAfterFrames {
                drop()
                return
            }
        }
    }

    private func write(_ frame: QueuedFrame, to outbound: WebSocketOutboundWriter) async throws {
        let opcode: WebSocketOpcode = frame.binary ? .binary : .text
        let half = frame.bytes.count / 2
        var first: ByteBuffer { ByteBuffer(bytes: frame.bytes[..<half]) }
        var second: ByteBuffer { ByteBuffer(bytes: frame.bytes[half...]) }
        switch frame.fragments {
        case .whole where largeMessages.frameSize.map { frame.bytes.count > $0 } ?? false:
            try await writeInFrames(frame.bytes, opcode: opcode, to: outbound)
        case .whole where frame.binary:
            try await outbound.write(.binary(ByteBuffer(bytes: frame.bytes)))
        case .whole:
            try await outbound.write(.text(String(decoding: frame.bytes, as: UTF8.self)))
        case .split:
            try await outbound.write(.custom(WebSocketFrame(fin: false, opcode: opcode, data: first)))
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .continuation, data: second)))
        case .orphanContinuation:
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(bytes: frame.bytes))))
        case .newMessageInside:
            try await outbound.write(.custom(WebSocketFrame(fin: false, opcode: opcode, data: first)))
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: opcode, data: second)))
        }
    }

    /// Writes a message in frames of `largeMessages.frameSize` bytes; drops the connection after
    /// `largeMessages.dropAfterFrames` of them.
    private func writeInFrames(_ bytes: [UInt8], opcode: WebSocketOpcode, to outbound: WebSocketOutboundWriter) async throws {
        let size = max(largeMessages.frameSize ?? bytes.count, 1)
        var start = 0
        var written = 0
        while start < bytes.count {
            let end = min(start + size, bytes.count)
            try await outbound.write(.custom(WebSocketFrame(fin: end == bytes.count, opcode: start == 0 ? opcode : .continuation,
                                                            data: ByteBuffer(bytes: bytes[start..<end]))))
            start = end
            written += 1
            if let limit = largeMessages.dropAfterFrames, written >= limit, start < bytes.count {
                drop()
                throw CancellationError()
            }
        }
    }

    /// Ends the writer when the client went away.
    func finish() {
        open.store(false, ordering: .relaxed)
        queue.finish()
        closeBacklog()
    }

    /// Nothing queued will be written any more: lets every waiting sender go.
    private func closeBacklog() {
        let waiters = backlog.withLock { backlog in
            backlog.closed = true
            return backlog.takeReadyWaiters()
        }
        waiters.forEach { $0.resume() }
    }
}
