import HTTPTypes
import NIOCore
import NIOPosix
import NIOSSL
import Primitives

/// What a connection needs beyond its URL: the pinned trust of a `wss://` bridge and the token.
struct ConnectionSecurity: Sendable {
    /// What the WebSocket connection is given.
    var security: WebSocketConnection.Security
    /// The pin of the certificate the bridge presented (`wss://` only).
    var pin: CertificatePin?

    /// The name sent as SNI to a bridge reached by IP address (an address cannot be sent).
    static let placeholderServerName = "openagents-bridge"

    /// For `wss://`, completes a TLS handshake with the bridge first, beside the WebSocket
    /// library: a certificate whose pin is not `options.pin` is refused there, before anything is
    /// sent (the token included). The connection proper then trusts that one certificate alone,
    /// so the bridge that answers it is the one that was checked.
    ///
    /// - Throws: `BridgeError.certificateMismatch`, `.connectionFailed`, `.handshakeTimedOut`.
    static func establish(
        for endpoint: BridgeEndpoint,
        url: String,
        options: BridgeClientOptions,
        deadline: ContinuousClock.Instant
    ) async throws -> ConnectionSecurity {
        var security = WebSocketConnection.Security()
        if let token = options.token {
            security.headers[.authorization] = token.authorization
        }
        guard endpoint.usesTLS else { return ConnectionSecurity(security: security, pin: nil) }
        let certificate: NIOSSLCertificate
        do {
            let outcome = try await BridgeProbe.probe(endpoint, expected: options.pin, upgradeHeaders: nil,
                                                      deadline: NIODeadline(deadline), eventLoop: MultiThreadedEventLoopGroup.singleton)
            guard let presented = outcome.certificate else { throw BridgeProbe.Failure.unusableCertificate("no certificate") }
            certificate = presented
        } catch BridgeProbe.Failure.pinMismatch(let presented) {
            guard let expected = options.pin else { throw BridgeError.connectionFailed(url: url, reason: "certificate refused") }
            throw BridgeError.certificateMismatch(url: url, expected: expected, presented: presented)
        } catch BridgeProbe.Failure.unusableCertificate(let reason) {
            throw BridgeError.connectionFailed(url: url, reason: reason)
        } catch BridgeProbe.Failure.noAnswer {
            throw BridgeError.handshakeTimedOut(url: url, after: options.firstHandshakeTimeout)
        } catch {
            throw BridgeError.connectionFailed(url: url, reason: WebSocketConnection.describe(error))
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([certificate])
        tls.certificateVerification = .noHostnameVerification
        // The WebSocket close handshake has ended the conversation by then: a bridge that does not
        // answer TLS's own close is not waited for (5 s by default).
        tls.shutdownTimeout = .milliseconds(250)
        security.tls = tls
        security.serverName = endpoint.hostIsAddress ? placeholderServerName : nil
        return ConnectionSecurity(security: security, pin: try CertificatePin(certificateDER: certificate.toDERBytes()))
    }

    /// Why the bridge declined the WebSocket upgrade: asks again, beside the WebSocket library,
    /// and reads the HTTP status.
    static func whyUpgradeFailed(_ endpoint: BridgeEndpoint, url: String, options: BridgeClientOptions,
                                 trust: ConnectionSecurity) async -> BridgeError {
        let headers = trust.security.headers.map { ($0.name.rawName, $0.value) }
        let outcome = try? await BridgeProbe.probe(endpoint, expected: trust.pin, upgradeHeaders: headers,
                                                   deadline: .now() + .seconds(10), eventLoop: MultiThreadedEventLoopGroup.singleton)
        return .declinedUpgrade(url: url, status: outcome?.status, tokenSent: options.token != nil)
    }
}

extension NIODeadline {
    /// The same instant on NIO's clock.
    init(_ instant: ContinuousClock.Instant) {
        let remaining = ContinuousClock.now.duration(to: instant)
        self = .now() + .nanoseconds(max(0, remaining.nanoseconds))
    }
}
