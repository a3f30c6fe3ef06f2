import Logging
import Primitives

/// A JSON-RPC 2.0 session with an OpenAgents bridge over one WebSocket connection, for the length
/// of a scope: `withConnection` opens the socket, sends `initialize` before anything else, and runs
/// its body with the client once the bridge answered (or fails after the handshake timeout). Then
/// every request gets its own id and timeout, answers are matched to requests by id (compared as
/// strings), and only one request is in flight at a time unless the bridge said `pipelining`.
/// Notifications arrive, in order, on `notifications`. When the connection dies every waiting
/// request fails at once with `BridgeError.connectionClosed`, and `notifications` ends.
public actor BridgeClient {
    /// What the bridge said in answer to `initialize`.
    public private(set) var capabilities: BridgeCapabilities
    /// Notifications from the bridge, in the order they arrived; ends when the connection closes.
    /// One reader only. Bounded (`BridgeClientOptions.notifications`): while it is full the
    /// client reads nothing more from the socket, answers included, so the reader must keep up.
    public nonisolated let notifications: BoundedBuffer<BridgeNotification>
    /// The URL this client connected to.
    public nonisolated let url: String
    /// The pin of the certificate a `wss://` bridge presented (nil over `ws://`).
    public nonisolated let certificatePin: CertificatePin?
    /// True when that certificate was checked against `BridgeClientOptions.pin`.
    public nonisolated var certificateWasPinned: Bool { certificatePin != nil && options.pin != nil }

    /// Frames that were not JSON-RPC messages (logged and skipped).
    public private(set) var malformedFrameCount = 0

    private let connection: WebSocketConnection
    nonisolated let options: BridgeClientOptions
    private let logger: Logger
    private let pending = PendingRequests()
    private let slots = RequestSlots()
    private var nextRequestNumber = 1
    private var closedError: BridgeError?
    /// The requests that read their answers in parts, while they wait for them.
    private var waitingForParts: [RequestID: AnswerInParts] = [:]
    /// The message being read in parts, between its parts (nil while a part is read).
    private var messageInParts: MessageInParts?
    /// Where the items of the answer being read in parts go (kept apart, for the connection's end
    /// to fail them).
    private var partsInFlight: AnswerInParts.Sink?

    private init(connection: WebSocketConnection, url: String, options: BridgeClientOptions, certificatePin: CertificatePin?,
                 logger: Logger) {
        self.connection = connection
        self.url = url
        self.certificatePin = certificatePin
        self.options = options
        self.logger = logger
        self.capabilities = BridgeCapabilities(protocolVersion: "unknown")
        switch options.notifications {
        case .buffered(let limit, let byteLimit):
            notifications = BoundedBuffer(elementLimit: limit, byteLimit: byteLimit)
        case .discarded:
            notifications = BoundedBuffer(elementLimit: 1)
            notifications.finish()
        }
    }

    /// Connects to the bridge at `url`, completes the `initialize` handshake, runs `body` with the
    /// client, and closes the connection.
    ///
    /// The connection is scoped to this call: the WebSocket, its frame reader and writer, and the
    /// client's reading loop are child tasks of it. When `body` returns or throws, the connection
    /// is closed (waiting requests fail with `connectionClosed`) and every child has ended before
    /// this call returns; cancelling the calling task drops the connection. `close()` ends the
    /// connection earlier, inside `body`. The client must not be used after `body`: it is closed.
    ///
    /// The handshake timeout covers everything before `body`: the TCP connection, the WebSocket
    /// upgrade and the answer to `initialize`.
    ///
    /// - Parameters:
    ///   - isRetry: a reconnect attempt, which waits `retryHandshakeTimeout` instead of
    ///     `firstHandshakeTimeout` (a desktop waking from sleep may be slow).
    ///   - onWebSocketOpen: called once the WebSocket is open, before `initialize` is sent.
    ///   - isolation: where `body` runs: the caller's actor, by default.
    ///   - body: what to do with the connected client; its result is returned.
    /// - Throws: `BridgeError.invalidURL`, `.connectionFailed`, `.handshakeTimedOut`, the
    ///   handshake's errors; `CancellationError` when cancelled; what `body` throws.
    public static func withConnection<T>(
        to url: String,
        options: BridgeClientOptions = BridgeClientOptions(),
        isRetry: Bool = false,
        logger: Logger = Logger(label: "openagents.bridge"),
        onWebSocketOpen: () async -> Void = {},
        isolation: isolated (any Actor)? = #isolation,
        _ body: (BridgeClient) async throws -> T
    ) async throws -> T {
        let timeout = isRetry ? options.retryHandshakeTimeout : options.firstHandshakeTimeout
        let deadline = ContinuousClock.now + timeout
        guard let endpoint = BridgeEndpoint(url: url) else { throw BridgeError.invalidURL(url) }
        let trust = try await ConnectionSecurity.establish(for: endpoint, url: url, options: options, deadline: deadline)
        do {
            return try await WebSocketConnection.withConnection(
                url: url,
                maximumMessageSize: options.maximumMessageSize,
                maximumStreamedSize: options.maximumTimelineSize,
                keepaliveInterval: options.keepaliveInterval,
                closeTimeout: options.closeTimeout,
                openDeadline: deadline,
                security: trust.security,
                logger: logger,
                isolation: isolation
            ) { connection in
                await onWebSocketOpen()
                let client = BridgeClient(connection: connection, url: url, options: options, certificatePin: trust.pin, logger: logger)
                return try await withThrowingTaskGroup(of: Void.self, returning: T.self, isolation: isolation) { group in
                    group.addTask { await client.readMessages() }
                    try await client.handshake(by: deadline, timeout: timeout)
                    let result: T
                    do {
                        result = try await body(client)
                    } catch {
                        await client.close()
                        throw error
                    }
                    await client.close()
                    return result
                }
            }
        } catch is WebSocketConnection.OpeningTimedOut {
            throw BridgeError.handshakeTimedOut(url: url, after: timeout)
        } catch is WebSocketConnection.UpgradeDeclined {
            throw await ConnectionSecurity.whyUpgradeFailed(endpoint, url: url, options: options, trust: trust)
        }
    }

    /// Closes the connection and waits until it is gone; waiting requests fail with
    /// `connectionClosed`. The connection's scope does it when its body is done: call it to end
    /// the connection earlier.
    public func close() async {
        connectionEnded(.connectionClosed(reason: "closed by this client"))
        await connection.close()
    }

    /// True once the connection is gone.
    public var isClosed: Bool { closedError != nil }

    /// Why the connection is gone (nil while it is open): what waiting requests failed with.
    public var closeError: BridgeError? { closedError }

    /// Why the connection is gone, in words (nil while it is open).
    public var closeReason: String? {
        guard let closedError else { return nil }
        if case .connectionClosed(let reason) = closedError { return reason }
        return closedError.description
    }

    // MARK: Requests

    /// Sends a request and waits for its answer.
    ///
    /// - Returns: the `result` and the frame it came in (for the exact bytes of its parts).
    /// - Throws: `BridgeError.server` for an error answer, `.timedOut`, `.connectionClosed`;
    ///   `CancellationError` when the calling task is cancelled.
    public func call(_ method: String, params: JSONValue? = nil, timeout: Duration? = nil) async throws -> (result: JSONValue, frame: Frame) {
        guard case .whole(let result, let frame) = try await request(method, params: params, timeout: timeout) else {
            throw BridgeError.unexpectedResult(method: method, reason: "an answer in parts to a request that takes none")
        }
        return (result, frame)
    }

    /// Sends a request and waits for its answer; with `inParts`, an answer over `streamsOver`
    /// bytes is read in parts into its sink (`.inParts` is returned once the message is known to
    /// answer this request).
    func request(_ method: String, params: JSONValue?, timeout: Duration?,
                 inParts: (sink: AnswerInParts.Sink, streamsOver: Int)? = nil) async throws -> PendingRequests.Answer {
        if let closedError { throw closedError }
        try await slots.acquire(unlimited: mayPipeline)
        defer { slots.release() }
        try Task.checkCancellation()
        let id = RequestID("\(Self.idPrefix(for: method))-\(nextRequestNumber)")
        nextRequestNumber += 1
        let bytes = JSONRPCEncoder.request(id: id, method: method, params: params)
        let limit = timeout ?? options.requestTimeout
        try pending.expect(id)
        defer { pending.forget(id) }
        if let inParts {
            waitingForParts[id] = AnswerInParts(id: id, method: method, sink: inParts.sink, streamsOver: inParts.streamsOver)
            updateStreamingThreshold()
        }
        do {
            let answer = try await send(bytes, id: id, method: method, limit: limit)
            switch answer {
            case .whole, .historyPage: stopReadingInParts(id)
            case .inParts: break
            }
            return answer
        } catch {
            // Its answer may have begun to be read in parts meanwhile: nobody will read them.
            stopReadingInParts(id)
            inParts?.sink.fail(error as? BridgeError ?? .connectionClosed(reason: "\(error)"))
            throw error
        }
    }

    /// Sends a request's bytes and waits for the answer to `id` until `limit`.
    private func send(_ bytes: [UInt8], id: RequestID, method: String, limit: Duration) async throws -> PendingRequests.Answer {
        do {
            do {
                try await connection.send(bytes)
            } catch {
                throw error as? BridgeError ?? BridgeError.connectionClosed(reason: "\(error)")
            }
            // The answer races the request's time limit; both are children of this call.
            let pending = self.pending
            return try await withThrowingTaskGroup(of: PendingRequests.Answer?.self) { group in
                group.addTask { try await pending.wait(for: id) }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else {
                    throw BridgeError.timedOut(method: method, after: limit)
                }
                return answer
            }
        } catch let error as JSONRPCError {
            throw BridgeError.server(method: method, error: error)
        } catch BridgeError.timedOut(let method, let after) {
            // A stock bridge may still be working on it, and would answer the next request's
            // sender: the connection cannot be trusted with another request.
            if !mayPipeline, BridgeMethod.answeredByStockBridge.contains(method) {
                logger.warning("closing the connection after a timeout", metadata: ["method": "\(method)"])
                await close()
            }
            throw BridgeError.timedOut(method: method, after: after)
        }
    }

    /// The request `id` no longer waits for an answer in parts.
    private func stopReadingInParts(_ id: RequestID) {
        guard waitingForParts.removeValue(forKey: id) != nil else { return }
        updateStreamingThreshold()
    }

    /// Messages are read in parts over the smallest size a waiting request reads in parts.
    private func updateStreamingThreshold() {
        connection.streamsMessagesOver.store(waitingForParts.values.map(\.streamsOver).min() ?? Int.max, ordering: .relaxed)
    }

    /// A short readable id prefix: `init-1`, `hist-2`, `sess-3`.
    private static func idPrefix(for method: String) -> String {
        if method == BridgeMethod.initialize { return "init" }
        if method.hasPrefix("tinyvex/") { return "hist" }
        if method.hasPrefix("session/") { return "sess" }
        if method.hasPrefix("threads/") { return "thr" }
        return "req"
    }

    /// Sends `initialize` and reads the bridge's capabilities, by `deadline`; closes the
    /// connection when that fails.
    private func handshake(by deadline: ContinuousClock.Instant, timeout: Duration) async throws {
        do {
            let (result, _) = try await call(BridgeMethod.initialize, params: options.clientInfo.initializeParams,
                                             timeout: max(deadline - ContinuousClock.now, .zero))
            capabilities = try BridgeCapabilities(result: result)
        } catch {
            await close()
            if case BridgeError.timedOut = error { throw BridgeError.handshakeTimedOut(url: url, after: timeout) }
            throw error
        }
        logger.info("connected", metadata: [
            "url": "\(url)", "protocol": "\(capabilities.protocolVersion)",
            "history_cursor": "\(capabilities.historyCursor.map(String.init) ?? "no")",
            "pipelining": "\(capabilities.pipelining)",
        ])
    }

    // MARK: One request at a time

    private var mayPipeline: Bool { capabilities.pipelining }

    // MARK: Reading

    /// Reads the connection's messages until it ends: the connection's scope runs it as a child.
    private nonisolated func readMessages() async {
        for await event in connection.inbound {
            switch event {
            case .message(let bytes): await receive(bytes)
            case .part(let bytes, let isLast): await receivePart(bytes, isLast: isLast)
            case .closed(let error): await connectionEnded(error)
            }
        }
        // Ended without `.closed`: closed by this client (already recorded), or cancelled.
        await connectionEnded(.connectionClosed(reason: "cancelled"))
    }

    private func receive(_ bytes: [UInt8]) async {
        // A history page goes to its request without its tree, if it has the common shape.
        if let answer = HistoryPageReading.answer(bytes, answers: { waitingForParts[$0]?.readsHistoryPages == true }) {
            if !pending.settle(answer.id, with: .success(.historyPage(answer.page, byteCount: bytes.count))) {
                logger.debug("answer to no waiting request", metadata: ["id": "\(answer.id)"])
            }
            return
        }
        let frame: Frame
        let message: JSONRPCMessage
        do {
            frame = try Frame(bytes: bytes)
            message = try frame.message()
        } catch {
            malformedFrameCount += 1
            logger.warning("skipped a frame", metadata: ["reason": "\(error)", "bytes": "\(bytes.count)"])
            return
        }
        switch message {
        case .response(let id, let result):
            if !pending.settle(id, with: .success(.whole(result: result, frame: frame))) {
                logger.debug("answer to no waiting request", metadata: ["id": "\(id)"])
            }
        case .failure(let id, let error):
            guard let id, pending.settle(id, with: .failure(error)) else {
                logger.warning("error answer to no waiting request", metadata: ["error": "\(error)"])
                return
            }
        case .notification(let method, let params):
            guard case .buffered = options.notifications else { return }
            // Waits while the buffer is full: the reading stops, and TCP pushes back on the bridge.
            await notifications.send(WireDecoding.notification(method: method, params: params, frame: frame), bytes: bytes.count)
        case .request(let id, let method, _):
            // This client offers the bridge no methods; say so rather than leave it waiting.
            let answer: JSONValue = ["jsonrpc": "2.0", "id": .string(id.rawValue),
                                     "error": ["code": -32601, "message": .string("Method not found: \(method)")]]
            try? await connection.send(JSONWriter.bytes(of: answer))
        }
    }

    /// The next bytes of a message read in parts. Its first pieces say who takes it
    /// (`MessageInParts.decision`): the request it answers, which reads it in parts, its items
    /// going to that request's `AnswerParts` and waiting while their reader is behind (once the
    /// answer cannot be read, the rest is skipped); or, kept whole within the message limit, the
    /// path every smaller message takes. A message over the limit that no request reads in parts
    /// ends the connection, as without parts.
    private func receivePart(_ bytes: [UInt8], isLast: Bool) async {
        // Taken out while it is read, so that its buffers are not copied.
        var message = messageInParts ?? MessageInParts(itemLimit: options.maximumMessageSize)
        messageInParts = nil
        message.byteCount += bytes.count
        var scanned: Result<[AnswerScanner.Piece], BridgeError> = .success([])
        switch message.taker {
        case .undecided, .answer:
            do {
                scanned = .success(try message.scanner.feed(bytes))
                if isLast { try message.scanner.finish() }
            } catch .pieceTooLarge(let size) {
                scanned = .failure(.messageTooLarge(size: size, limit: options.maximumMessageSize))
            } catch {
                scanned = .failure(.unexpectedResult(method: "an answer in parts", reason: "not JSON-RPC's: \(error)"))
            }
        case .whole, .skipped:
            break
        }
        switch message.taker {
        case .undecided(var prefix):
            message.taker = .skipped  // the enum lets go of the bytes, so that appending does not copy them
            prefix += bytes
            message.taker = decide(prefix, scanned)
        case .whole(var whole):
            message.taker = .skipped
            whole += bytes
            message.taker = .whole(whole)
        case .answer, .skipped:
            break
        }
        switch message.taker {
        case .answer(var answer):
            if case .success(let pieces) = scanned { await answer.take(pieces) }
            if isLast {
                answer.finish(scanned: scanned.map { _ in () }, byteCount: message.byteCount)
            } else if case .failure(let error) = scanned {
                answer.fail(error)
            }
            message.taker = answer.skipsRest ? .skipped : .answer(answer)
        case .whole(let kept), .undecided(let kept):
            guard kept.count <= options.maximumMessageSize else {
                connectionEnded(.messageTooLarge(size: kept.count, limit: options.maximumMessageSize))
                await connection.close()
                return
            }
            if isLast { await receive(kept) }
        case .skipped:
            break
        }
        if isLast {
            partsInFlight = nil
        } else {
            messageInParts = message
        }
    }

    /// Who takes a message still undecided, now that `prefix` of it was read.
    private func decide(_ prefix: [UInt8], _ scanned: Result<[AnswerScanner.Piece], BridgeError>) -> MessageInParts.Taker {
        // What the scanner cannot read, the whole path reports.
        guard case .success(let pieces) = scanned else { return .whole(prefix) }
        let onlyWaiting = waitingForParts.count == 1 && pending.count == 1 ? waitingForParts.keys.first : nil
        switch MessageInParts.decision(pieces, answering: { waitingForParts[$0] != nil }, onlyWaiting: onlyWaiting) {
        case nil:
            return .undecided(prefix: prefix)
        case .whole?:
            return .whole(prefix)
        case .answer(let id)?:
            guard let answer = waitingForParts.removeValue(forKey: id) else { return .whole(prefix) }
            updateStreamingThreshold()
            if isAhead(answer) {
                answer.sink.fail(.connectionClosed(reason: "answered ahead of an earlier page"))
                pending.settle(id, with: .failure(HistoryPageAnsweredAhead()))
                return .skipped
            }
            partsInFlight = answer.sink
            pending.settle(id, with: .success(.inParts))
            return .answer(answer)
        }
    }

    /// Whether `answer` is a history page's while a page from an earlier seq waits: its reader
    /// takes pages in order of their seqs, so it would wait for that one while this one, unread,
    /// held the connection.
    private func isAhead(_ answer: AnswerInParts) -> Bool {
        guard case .historyPage(_, let since) = answer.sink else { return false }
        return waitingForParts.values.contains { waiting in
            if case .historyPage(_, let earlier) = waiting.sink { return earlier < since }
            return false
        }
    }

    func connectionEnded(_ error: BridgeError) {
        guard closedError == nil else { return }
        closedError = error
        logger.info("disconnected", metadata: ["url": "\(url)", "reason": "\(closeReason ?? "")"])
        pending.end(with: error)
        partsInFlight?.fail(error)
        for waiting in waitingForParts.values { waiting.sink.fail(error) }
        slots.end(with: error)
        notifications.finish()
    }
}
