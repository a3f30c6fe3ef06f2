import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A short connection to a bridge's address beside the WebSocket library, for what its upgrade
/// does not tell: the certificate a `wss://` bridge presents (checked against a pin before any
/// byte of HTTP is sent), and the HTTP status with which a bridge refuses an upgrade.
enum BridgeProbe {
    /// What a probe learnt.
    struct Outcome: Sendable {
        /// The leaf certificate (TLS only).
        var certificate: NIOSSLCertificate?
        /// The HTTP status of the answer to the upgrade request (when one was sent).
        var status: Int?
    }

    /// Why a probe failed.
    enum Failure: Error {
        /// The certificate presented is not the one pinned.
        case pinMismatch(presented: CertificatePin)
        /// The bridge presented no certificate, or one that has expired or is not yet valid.
        case unusableCertificate(String)
        case noAnswer
    }

    /// Connects to `target`; over TLS, completes the handshake, refusing a certificate whose pin
    /// is not `expected` (any certificate when nil: trust on first use) or that is out of its
    /// validity period; then, with `upgradeHeaders`, sends a WebSocket upgrade request and reads
    /// the status of its answer. Gives up at `deadline`.
    static func probe(
        _ target: BridgeEndpoint,
        expected: CertificatePin?,
        upgradeHeaders: [(String, String)]?,
        deadline: NIODeadline,
        eventLoop: any EventLoopGroup
    ) async throws -> Outcome {
        let sslContext = try target.usesTLS ? NIOSSLContext(configuration: verifyingConfiguration()) : nil
        let request = upgradeHeaders.map { upgradeRequest(target, headers: $0) }
        let loop = eventLoop.next()
        let outcome = loop.makePromise(of: Outcome.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let recorder = ProbeHandler(outcome: outcome, request: request, awaitsHandshake: sslContext != nil,
                                                    deadline: deadline)
                        if let sslContext {
                            let tls = try NIOSSLClientHandler(context: sslContext, serverHostname: target.hostIsAddress ? nil : target.host) { chain, verdict in
                                verdict.succeed(recorder.check(chain, expected: expected))
                            }
                            try channel.pipeline.syncOperations.addHandler(tls)
                        }
                        try channel.pipeline.syncOperations.addHandler(recorder)
                    }
                }
                .connect(host: target.host, port: target.port)
                .get()
        } catch {
            outcome.fail(error)
            throw error
        }
        defer { channel.close(promise: nil) }
        return try await outcome.futureResult.get()
    }

    /// Verification is the pin's (in `ProbeHandler.check`), not a certificate authority's.
    private static func verifyingConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        return configuration
    }

    private static func upgradeRequest(_ target: BridgeEndpoint, headers: [(String, String)]) -> [UInt8] {
        var lines = [
            "GET \(target.path) HTTP/1.1", "Host: \(target.host):\(target.port)", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
        ]
        lines += headers.map { "\($0.0): \($0.1)" }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}

/// Runs on the probe's event loop: notes the certificate, sends the request once the connection
/// (and its TLS handshake) is up, reads the answer's status line.
private final class ProbeHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    // @unchecked: every property is touched only on the channel's event loop (handler callbacks,
    // and `check`, which NIOSSL calls on that loop); `outcome` is an EventLoopPromise, itself Sendable.
    typealias InboundIn = ByteBuffer

    let outcome: EventLoopPromise<BridgeProbe.Outcome>
    private let request: [UInt8]?
    private let awaitsHandshake: Bool
    private let deadline: NIODeadline
    private var certificate: NIOSSLCertificate?
    private var pinFailure: BridgeProbe.Failure?
    private var answer: [UInt8] = []
    private var timeout: Scheduled<Void>?
    private var done = false

    init(outcome: EventLoopPromise<BridgeProbe.Outcome>, request: [UInt8]?, awaitsHandshake: Bool, deadline: NIODeadline) {
        self.outcome = outcome
        self.request = request
        self.awaitsHandshake = awaitsHandshake
        self.deadline = deadline
    }

    func check(_ chain: [NIOSSLCertificate], expected: CertificatePin?) -> NIOSSLVerificationResult {
        guard let leaf = chain.first, let der = try? leaf.toDERBytes() else {
            pinFailure = .unusableCertificate("the bridge presented no certificate")
            return .failed
        }
        let now = time(nil)
        guard leaf.notValidBefore <= now, now <= leaf.notValidAfter else {
            pinFailure = .unusableCertificate("the bridge's certificate is out of its validity period")
            return .failed
        }
        let presented = CertificatePin(certificateDER: der)
        if let expected, expected != presented {
            pinFailure = .pinMismatch(presented: presented)
            return .failed
        }
        certificate = leaf
        return .certificateVerified
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timeout = context.eventLoop.scheduleTask(deadline: deadline) { [self] in
            guard !done else { return }
            done = true
            outcome.fail(BridgeProbe.Failure.noAnswer)
            channel.close(promise: nil)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        if !awaitsHandshake { start(context: context) }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { start(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    private func start(context: ChannelHandlerContext) {
        guard let request else { return finish(context: context, .success(.init(certificate: certificate, status: nil))) }
        context.writeAndFlush(NIOAny(ByteBuffer(bytes: request)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        answer += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard let end = answer.firstIndex(of: UInt8(ascii: "\n")) else { return }
        // "HTTP/1.1 401 Unauthorized"
        let statusLine = String(decoding: answer[..<end], as: UTF8.self).split(separator: " ")
        let status = statusLine.count >= 2 ? Int(statusLine[1]) : nil
        finish(context: context, status.map { .success(.init(certificate: certificate, status: $0)) } ?? .failure(BridgeProbe.Failure.noAnswer))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context: context, .failure(pinFailure ?? error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context: context, .failure(pinFailure ?? BridgeProbe.Failure.noAnswer))
        context.fireChannelInactive()
    }

    private func finish(context: ChannelHandlerContext, _ result: Result<BridgeProbe.Outcome, any Error>) {
        guard !done else { return }
        done = true
        timeout?.cancel()
        outcome.completeWith(result)
        context.close(promise: nil)
    }
}
