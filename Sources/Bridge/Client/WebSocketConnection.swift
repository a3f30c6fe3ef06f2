import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import WSClient

/// One WebSocket connection, as a stream of received messages and a way to send.
///
/// Wraps `WSClient`'s structured `connect`: the connection lives in its own task until `close()`,
/// until the peer closes it, or until keepalive finds it dead; `inbound` then ends with `.closed`.
final class WebSocketConnection: Sendable {
    /// What the connection receives.
    enum Event: Sendable {
        /// A text or binary message's payload.
        case message([UInt8])
        /// The connection is gone, and why.
        case closed(reason: String)
    }

    private enum Command: Sendable {
        case send([UInt8], CheckedContinuation<Void, any Error>)
        case close
    }

    /// What was received and not yet read: bounded, so that a reader that falls behind stops the
    /// connection from reading its socket (TCP then pushes back on the bridge).
    let inbound: BoundedBuffer<Event>
    private let commands: AsyncStream<Command>.Continuation
    private let task: Task<Void, Never>

    /// Received messages kept before the socket is no longer read: at most this many…
    static let inboundMessageLimit = 256
    /// …and this many bytes (a single larger message is still taken).
    static let inboundByteLimit = 4 << 20

    private init(inbound: BoundedBuffer<Event>, commands: AsyncStream<Command>.Continuation, task: Task<Void, Never>) {
        self.inbound = inbound
        self.commands = commands
        self.task = task
    }

    deinit {
        commands.finish()
    }

    /// Opens a connection; returns once the WebSocket upgrade succeeded.
    ///
    /// - Throws: `BridgeError.invalidURL`, `.connectionFailed`; `CancellationError` when cancelled.
    static func open(
        url: String,
        maximumMessageSize: Int,
        keepaliveInterval: Duration?,
        logger: Logger
    ) async throws -> WebSocketConnection {
        guard BridgeURL.isValid(url) else { throw BridgeError.invalidURL(url) }
        let events = BoundedBuffer<Event>(elementLimit: inboundMessageLimit, byteLimit: inboundByteLimit)
        let (commandStream, commands) = AsyncStream<Command>.makeStream()
        let opened = OpenSignal()
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: maximumMessageSize,
            autoPing: keepaliveInterval.map { .enabled(timePeriod: $0) } ?? .disabled
        )
        let task = Task {
            var reason = "closed by the bridge"
            do {
                let close = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                    opened.succeed()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            // Messages are assembled from frames here, so that a text message's bytes
                            // reach the parser exactly as sent, never repaired through a String.
                            var message: [UInt8] = []
                            var inMessage = false
                            for try await frame in inbound {
                                // A continuation continues a message; a text or binary frame starts one.
                                guard (frame.opcode == .continuation) == inMessage else {
                                    throw BridgeError.connectionClosed(reason: "the bridge broke the WebSocket protocol: "
                                        + (inMessage ? "a new message began inside a fragmented one" : "a continuation frame with no message to continue"))
                                }
                                guard message.count + frame.data.readableBytes <= maximumMessageSize else {
                                    throw BridgeError.connectionClosed(reason: "the bridge sent a message over \(maximumMessageSize) bytes")
                                }
                                message += frame.data.readableBytesView
                                inMessage = !frame.fin
                                if frame.fin {
                                    guard await events.send(.message(message), bytes: message.count) else { return }
                                    message = []
                                }
                            }
                        }
                        group.addTask {
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
                        try await group.next()
                        group.cancelAll()
                    }
                }
                if let close {
                    reason = "closed by the bridge (\(close.closeCode)\(close.reason.map { ": \($0)" } ?? ""))"
                }
            } catch {
                reason = Self.describe(error)
                opened.fail(BridgeError.connectionFailed(url: url, reason: reason))
            }
            opened.fail(BridgeError.connectionClosed(reason: reason))
            await events.send(.closed(reason: reason))
            events.finish()
            // Sends still queued will never be written.
            commands.finish()
            for await command in commandStream {
                if case .send(_, let done) = command { done.resume(throwing: BridgeError.connectionClosed(reason: reason)) }
            }
        }
        do {
            try await withTaskCancellationHandler {
                try await opened.wait()
            } onCancel: {
                task.cancel()
                opened.fail(CancellationError())
            }
        } catch let error as BridgeError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw BridgeError.connectionFailed(url: url, reason: "\(error)")
        }
        return WebSocketConnection(inbound: events, commands: commands, task: task)
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

    /// Sends a text frame; returns once it is written.
    func send(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            if case .terminated = commands.yield(.send(bytes, done)) {
                done.resume(throwing: BridgeError.connectionClosed(reason: "the connection is closed"))
            }
        }
    }

    /// Closes the connection (with the WebSocket close handshake) and waits until it is gone.
    func close() async {
        commands.yield(.close)
        inbound.finish()
        await task.value
    }

    /// Drops the connection at once, without waiting for the peer.
    func abort() {
        inbound.finish()
        task.cancel()
    }
}

/// Signals, once, whether the connection opened.
private final class OpenSignal: Sendable {
    private let state = Mutex<(result: Result<Void, any Error>?, waiter: CheckedContinuation<Void, any Error>?)>((nil, nil))

    func succeed() { settle(.success(())) }

    func fail(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let result = state.withLock { state -> Result<Void, any Error>? in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }
}
