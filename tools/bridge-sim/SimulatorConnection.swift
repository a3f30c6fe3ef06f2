import Logging
import NIOCore
import Synchronization
import WSCore

/// One client connection of the simulator: frames to it go through a queue, so that everything
/// sent to a connection keeps the order it was queued in.
final class SimulatorConnection: Sendable {
    let id: Int
    private let queue: AsyncStream<(bytes: [UInt8], binary: Bool)>.Continuation
    private let frames: AsyncStream<(bytes: [UInt8], binary: Bool)>
    private let channel: any Channel
    private let open = Atomic<Bool>(true)
    private let sentBytes = Atomic<Int>(0)

    init(id: Int, channel: any Channel) {
        self.id = id
        self.channel = channel
        (frames, queue) = AsyncStream<(bytes: [UInt8], binary: Bool)>.makeStream()
    }

    /// Queues a frame: text, or binary (which a bridge may also send JSON in).
    func send(_ bytes: [UInt8], binary: Bool = false) {
        queue.yield((bytes, binary))
    }

    /// Payload bytes written to this connection so far.
    var bytesSent: Int { sentBytes.load(ordering: .relaxed) }

    /// False once the connection was dropped or ended.
    var isOpen: Bool { open.load(ordering: .relaxed) }

    /// Drops the TCP connection at once, with no WebSocket close handshake.
    func drop() {
        open.store(false, ordering: .relaxed)
        queue.finish()
        channel.close(promise: nil)
    }

    /// Writes queued frames until the connection ends; with `closeAfterFrames`, drops the
    /// connection right after writing that many.
    func runWriter(_ outbound: WebSocketOutboundWriter, closeAfterFrames: Int?) async {
        var written = 0
        for await frame in frames {
            do {
                if frame.binary {
                    try await outbound.write(.binary(ByteBuffer(bytes: frame.bytes)))
                } else {
                    try await outbound.write(.text(String(decoding: frame.bytes, as: UTF8.self)))
                }
            } catch {
                return
            }
            written += 1
            sentBytes.add(frame.bytes.count, ordering: .relaxed)
            if let closeAfterFrames, written >= closeAfterFrames {
                drop()
                return
            }
        }
    }

    /// Ends the writer when the client went away.
    func finish() {
        open.store(false, ordering: .relaxed)
        queue.finish()
    }
}
