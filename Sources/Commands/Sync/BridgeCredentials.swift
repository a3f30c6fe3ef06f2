import Bridge
import Foundation

/// What oa-sync presents to a bridge beyond its URL: the pin it insists on and the token it sends,
/// from options and the environment.
public struct BridgeCredentials: Sendable {
    /// A pin given deliberately (`--tls-pin`, `OA_TLS_PIN`).
    public var pin: CertificatePin?
    public var token: BridgeToken?

    /// Reads them: the pin from `--tls-pin`, else `OA_TLS_PIN`; the token from `--token-file`,
    /// else `OA_TOKEN_FILE`, else `OA_TOKEN` (never from a command-line value: `ps` shows those).
    ///
    /// - Throws: `CredentialsError`; `BridgeTokenError` for a token file that cannot be used.
    public init(
        pinOption: String?,
        tokenFileOption: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        if let text = Self.nonEmpty(pinOption) ?? Self.nonEmpty(environment["OA_TLS_PIN"]) {
            guard let pin = CertificatePin(parsing: text) else { throw CredentialsError.invalidPin }
            self.pin = pin
        }
        if let path = Self.nonEmpty(tokenFileOption) ?? Self.nonEmpty(environment["OA_TOKEN_FILE"]) {
            token = try BridgeToken(contentsOfFile: path)
        } else if let text = environment["OA_TOKEN"] {
            guard let token = BridgeToken(text) else { throw CredentialsError.invalidToken }
            self.token = token
        }
    }

    private static func nonEmpty(_ value: String?) -> String? {
        value.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// Why the pin or the token given cannot be used (neither is ever repeated in the message).
public enum CredentialsError: Error, Equatable, CustomStringConvertible {
    case invalidPin
    case invalidToken

    public var description: String {
        switch self {
        case .invalidPin:
            "the TLS pin is not a SHA-256 fingerprint: expected 64 hex digits, with or without colons or a sha256: prefix"
        case .invalidToken:
            "OA_TOKEN holds no token (one line of printable characters)"
        }
    }
}
