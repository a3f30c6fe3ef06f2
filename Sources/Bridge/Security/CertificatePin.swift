import Crypto
import Foundation

/// The trust in a `wss://` bridge: the SHA-256 of its leaf certificate's DER bytes (bridges make
/// their certificates themselves, so trust is a pin, not a certificate authority).
public struct CertificatePin: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes of the digest.
    public let digest: [UInt8]

    /// The pin of a certificate, from its DER bytes.
    public init(certificateDER: [UInt8]) {
        digest = Array(SHA256.hash(data: certificateDER))
    }

    /// Reads a pin as people copy it: 64 hex digits, with or without colons, in any case, with or
    /// without a `sha256:` prefix (`openssl x509 -noout -fingerprint -sha256` prints
    /// `sha256 Fingerprint=AB:CD:…`, whose part after `=` is taken too). Nil for anything else.
    public init?(parsing text: String) {
        var hex = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if let equals = hex.lastIndex(of: "=") { hex = hex[hex.index(after: equals)...] }
        if hex.lowercased().hasPrefix("sha256:") { hex = hex.dropFirst("sha256:".count) }
        let digits = hex.filter { $0 != ":" }
        // Each digit checked: UInt8(_:radix:) would also take a sign ("+f").
        guard digits.count == 64, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        digest = bytes
    }

    /// 64 lowercase hex digits (the `tls_sha256` TXT form, and how the mirror stores it).
    public var hex: String {
        digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Colon-separated uppercase pairs, as `openssl x509 -fingerprint -sha256` prints them.
    public var description: String {
        digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
    }
}
