import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Primitives
import Synchronization
import WSClient

/// One WebSocket connection, as a stream of received messages and a way to send, for the length
/// of a scope (`withConnection`).
///
/// Wraps `WSClient`'s structured `connect`: the connection, its frame reader and its writer are
/// child tasks of `withConnection`. The connection ends when the scope's body is done, on
/// `close()`, when the peer closes it, or when keepalive finds it dead; `inbound` then ends with
/// `.closed`.
final class WebSocketConnection: Sendable {
    /// What the connection receives.
    enum Event: Sendable {
        /// A text or binary message's payload.
        case message([UInt8])
        /// The next bytes of a message over `streamsMessagesOver` bytes, read while that was set:
        /// its frames' payloads in pieces of at most `partSize` bytes, as they arrive; `isLast`
        /// on the message's last piece.
        case part([UInt8], isLast: Bool)
        /// The connection is gone, and why: `connectionClosed` with its reason, or
        /// `messageTooLarge` when this client refused a message over its limit.
        case closed(BridgeError)
    }

    private enum Command: Sendable {
        case send([UInt8], CheckedContinuation<Void, any Error>)
        case close
    }

    /// The WebSocket upgrade was not answered by the deadline given to `withConnection`.
    struct OpeningTimedOut: Error {}

    /// The bridge answered the WebSocket upgrade with something else than 101.
    struct UpgradeDeclined: Error {}

    /// How to reach a `wss://` bridge, and what to send with the upgrade.
    struct Security: Sendable {
        /// TLS trust (for `wss://`).
        var tls: TLSConfiguration?
        /// The name sent as SNI where the URL's host is an IP address (which SNI cannot carry).
        var serverName: String?
        /// Extra headers of the upgrade request (`Authorization`).
        var headers: HTTPFields = [:]
    }

    /// What was received and not yet read: bounded, so that a reader that falls behind stops the
    /// connection from reading its socket (TCP then pushes back on the bridge).
    let inbound: BoundedBuffer<Event>
    private let commands: AsyncStream<Command>.Continuation
    /// A message over this many bytes is passed on in parts (`Event.part`), up to
    /// `maximumStreamedSize` bytes, instead of whole (or, over the message limit, ending the
    /// connection): lowered by a client waiting for an answer it can read in parts; `Int.max` else.
    let streamsMessagesOver = Atomic<Int>(Int.max)
    /// Settled once the connection's task is over.
    private let ended = OneShot<Void>()

    /// Received messages kept before the socket is no longer read: at most this many…
    static let inboundMessageLimit = 256
    /// …and this many bytes (a single larger message is still taken).
    static let inboundByteLimit = 4 << 20
    /// The most bytes of one `Event.part`.
    static let partSize = 1 << 20

    private init(commands: AsyncStream<Command>.Continuation) {
        inbound = BoundedBuffer(elementLimit: Self.inboundMessageLimit, byteLimit: Self.inboundByteLimit)
        self.commands = commands
    }

    /// Opens a connection, runs `body` with it once the WebSocket upgrade succeeded, then closes
    /// it (with the close handshake, which waits at most `closeTimeout` for the peer).
    ///
    /// Everything the connection runs is a child of this call, and has ended when it returns,
    /// whether `body` returned or threw. Cancelling the calling task drops the connection.
    ///
    /// The connection runs on an event loop (one thread) of its own, shut down before this call
    /// returns: until the upgrade is answered, WSClient gives no handle on the socket and does not
    /// heed cancellation, so shutting the loop down is what closes a socket whose upgrade never
    /// comes (a frozen bridge).
    ///
    /// - Parameters:
    ///   - openDeadline: when to stop waiting for the upgrade (`OpeningTimedOut`).
    ///   - isolation: where `body` runs: the caller's actor, by default.
    /// - Throws: `BridgeError.invalidURL`, `.connectionFailed`, `OpeningTimedOut`;
    ///   `CancellationError` when cancelled before the connection opened; what `body` throws.
    static func withConnection<T>(
        url: String,
        maximumMessageSize: Int,
        maximumStreamedSize: Int,
        keepaliveInterval: Duration?,
        closeTimeout: Duration,
        openDeadline: ContinuousClock.Instant,
        security: Security = Security(),
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (WebSocketConnection) async throws -> T
    ) async throws -> T {
        guard BridgeURL.isValid(url) else { throw BridgeError.invalidURL(url) }
        try Task.checkCancellation()
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: frameSizeCap(forMessageLimit: maximumMessageSize),
            additionalHeaders: security.headers,
            closeTimeout: closeTimeout,
            autoPing: keepaliveInterval.map { .enabled(timePeriod: $0) } ?? .disabled,
            sniHostname: security.serverName
        )
        let eventLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (commandStream, commands) = AsyncStream<Command>.makeStream()
        let connection = WebSocketConnection(commands: commands)
        let opened = OpenSignal()
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await withThrowingTaskGroup(of: Void.self, returning: T.self, isolation: isolation) { group in
                group.addTask {
                    await connection.run(url: url, configuration: configuration,
                                         limits: MessageLimits(whole: maximumMessageSize, streamed: maximumStreamedSize), tls: security.tls,
                                         eventLoop: eventLoop, commandStream: commandStream, opened: opened, logger: logger)
                }
                do {
                    try await waitUntilOpen(opened, deadline: openDeadline)
                } catch {
                    // Given up before the connection's task began connecting, it never will. Given up
                    // while the upgrade is awaited, closing the loop closes its socket; the task may
                    // still be a few steps short of handing its socket to the loop (work handed to a
                    // loop that has shut down is dropped, and would never end), so it gets a moment
                    // to get there, or to end by itself, first.
                    if opened.giveUp(CancellationError()), await !connection.endsByItself(within: .seconds(1)) {
                        try? await eventLoop.shutdownGracefully()
                    }
                    throw Self.openingError(error, url: url)
                }
                let result: T
                do {
                    result = try await body(connection)
                } catch {
                    await connection.close()
                    throw error
                }
                await connection.close()
                return result
            })
        } catch {
            outcome = .failure(error)
        }
        try? await eventLoop.shutdownGracefully()
        return try outcome.get()
    }

    /// Waits for the upgrade until `deadline`; the wait and the deadline are children of this call.
    private static func waitUntilOpen(_ opened: OpenSignal, deadline: ContinuousClock.Instant) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { race in
            race.addTask {
                try await opened.wait()
                return true
            }
            race.addTask {
                try await Task.sleep(until: deadline)
                return false
            }
            defer { race.cancelAll() }
            guard try await race.next() == true else { throw OpeningTimedOut() }
        }
    }

    /// What a failed opening throws: its own errors as they are, anything else as a failed connection.
    private static func openingError(_ error: any Error, url: String) -> any Error {
        switch error {
        case is BridgeError, is OpeningTimedOut, is UpgradeDeclined, is CancellationError: error
        default: BridgeError.connectionFailed(url: url, reason: "\(error)")
        }
    }

    /// The connection's task: connects, reads and writes until the connection ends, then ends
    /// `inbound` with `.closed` and fails the sends still queued.
    private func run(
        url: String,
        configuration: WebSocketClientConfiguration,
        limits: MessageLimits,
        tls: TLSConfiguration?,
        eventLoop: MultiThreadedEventLoopGroup,
        commandStream: AsyncStream<Command>,
        opened: OpenSignal,
        logger: Logger
    ) async {
        var ending = BridgeError.connectionClosed(reason: "closed by the bridge")
        do {
            guard opened.beginConnecting() else { throw CancellationError() }
            let close = try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tls,
                                                          eventLoopGroup: eventLoop, logger: logger) { frames, outbound, _ in
                guard opened.succeed() else { return }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.assembleMessages(from: frames, limits: limits) }
                    group.addTask { try await Self.write(commandStream, to: outbound) }
                    try await group.next()
                    group.cancelAll()
                }
            }
            if let close {
                ending = .connectionClosed(reason: "closed by the bridge (\(close.closeCode)\(close.reason.map { ": \($0)" } ?? ""))")
            } else {
                ending = .connectionClosed(reason: "the connection ended without a close frame (the bridge dropped it, "
                    + "or sent a frame over \(configuration.maxFrameSize) bytes, which is refused unread)")
            }
        } catch let error as BridgeError {
            // This side ended it, and said why (a message over the limit, a broken protocol).
            ending = error
        } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
            ending = .connectionClosed(reason: "the bridge refused the WebSocket upgrade")
            opened.fail(UpgradeDeclined())
        } catch {
            let reason = Self.describe(error)
            ending = .connectionClosed(reason: reason)
            opened.fail(BridgeError.connectionFailed(url: url, reason: reason))
        }
        opened.fail(ending)
        await inbound.send(.closed(ending))
        inbound.finish()
        // Sends still queued will never be written.
        commands.finish()
        for await command in commandStream {
            if case .send(_, let done) = command { done.resume(throwing: ending) }
        }
        ended.settle()
    }

    /// The most bytes of a message passed on whole, and of one passed on in parts.
    struct MessageLimits {
        var whole: Int
        var streamed: Int
    }

    /// Assembles messages from frames into `inbound`, so that a text message's bytes reach the
    /// parser exactly as sent, never repaired through a String; a message over
    /// `streamsMessagesOver` bytes is passed on in parts. Returns once `inbound` is finished.
    ///
    /// - Throws: `BridgeError.messageTooLarge` for a message over `limits.whole` (or, in parts,
    ///   over `limits.streamed`), with its size (at least) when its frames were read
    ///   (`frameSizeCap`).
    private func assembleMessages(from frames: WebSocketInboundStream, limits: MessageLimits) async throws {
        var message: [UInt8] = []
        var inMessage = false
        // Bytes of the message passed on in parts so far; nil while it is assembled whole.
        var streamed: Int?
        for try await frame in frames {
            // A continuation continues a message; a text or binary frame starts one.
            guard (frame.opcode == .continuation) == inMessage else {
                throw BridgeError.connectionClosed(reason: "the bridge broke the WebSocket protocol: "
                    + (inMessage ? "a new message began inside a fragmented one" : "a continuation frame with no message to continue"))
            }
            inMessage = !frame.fin
            let size = (streamed ?? message.count) + frame.data.readableBytes
            if streamed == nil, size > min(limits.whole, streamsMessagesOver.load(ordering: .relaxed)) {
                guard size <= limits.whole || streamsMessagesOver.load(ordering: .relaxed) <= limits.whole else {
                    throw BridgeError.messageTooLarge(size: size, limit: limits.whole)
                }
                streamed = message.count
                if !message.isEmpty {
                    guard await inbound.send(.part(message, isLast: false), bytes: message.count) else { return }
                    message = []
                }
            }
            if streamed != nil {
                guard size <= limits.streamed else { throw BridgeError.messageTooLarge(size: size, limit: limits.streamed) }
                streamed = size
                guard await passOn(frame.data, isLast: frame.fin) else { return }
                if frame.fin { streamed = nil }
                continue
            }
            message += frame.data.readableBytesView
            if frame.fin {
                guard await inbound.send(.message(message), bytes: message.count) else { return }
                message = []
            }
        }
    }

    /// Passes a frame's payload on in parts of at most `partSize` bytes; false once `inbound` is finished.
    private func passOn(_ payload: ByteBuffer, isLast: Bool) async -> Bool {
        var payload = payload
        repeat {
            let bytes = payload.readBytes(length: min(payload.readableBytes, Self.partSize)) ?? []
            guard await inbound.send(.part(bytes, isLast: isLast && payload.readableBytes == 0), bytes: bytes.count) else { return false }
        } while payload.readableBytes > 0
        return true
    }

    /// Writes each send as a text frame, until a close command.
    private static func write(_ commandStream: AsyncStream<Command>, to outbound: WebSocketOutboundWriter) async throws {
        for await command in commandStream {
            switch command {
            case .send(let bytes, let done):
                do {
                    try await outbound.write(.text(String(decoding: bytes, as: UTF8.self)))
                    done.resume()
                } catch {
                    done.resume(throwing: error)
                    throw error
                }
            case .close:
                return
            }
        }
    }

    /// A short reason for a failed connection: the system's words for an errno where there is one.
    static func describe(_ error: any Error) -> String {
        if let connectionError = error as? NIOConnectionError,
           let ioError = connectionError.connectionErrors.lazy.compactMap({ $0.error as? IOError }).first {
            return String(cString: strerror(ioError.errnoCode)).lowercased()
        }
        if let ioError = error as? IOError {
            return String(cString: strerror(ioError.errnoCode)).lowercased()
        }
        if let clientError = error as? WebSocketClientError {
            return "\(clientError)"
        }
        return "\(error)"
    }

    /// The largest frame the frame decoder reads: four times the message limit (at most 4 GiB), so
    /// that a message over the limit is read and refused with its size (`messageTooLarge`), and
    /// the engine can ask for less; a larger frame is refused unread, and ends the connection
    /// without a word from the decoder. A frame is held whole while it is read.
    static func frameSizeCap(forMessageLimit limit: Int) -> Int {
        let cap = limit.multipliedReportingOverflow(by: 4)
        return cap.overflow ? Int(UInt32.max) : min(cap.partialValue, Int(UInt32.max))
    }

    /// Sends a text frame; returns once it is written.
    func send(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            if case .terminated = commands.yield(.send(bytes, done)) {
                done.resume(throwing: BridgeError.connectionClosed(reason: "the connection is closed"))
            }
        }
    }

    /// Whether the connection's task ends within `timeout`, waited for whether or not the calling
    /// task is cancelled: the scope, cancelled, still gives a connection being made its moment.
    private func endsByItself(within timeout: Duration) async -> Bool {
        await ended.valueIgnoringCancellation(within: timeout) != nil
    }

    /// Closes the connection (with the WebSocket close handshake) and waits until it is gone.
    /// The scope does it when its body is done; calling it earlier ends the connection early.
    func close() async {
        commands.yield(.close)
        inbound.finish()
        await ended.value()
    }
}
