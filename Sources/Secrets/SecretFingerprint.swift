import Crypto

/// What names a secret without giving it away: its first four characters and the start of its
/// SHA-256 (`ghp_…1f0c9a2e`). Two mentions of one value have the same fingerprint.
public struct SecretFingerprint: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The fingerprint as shown.
    public let text: String

    /// The fingerprint of `value`.
    public init(of value: some StringProtocol) {
        text = String(value.prefix(4)) + "…" + String(Self.sha256Hex(value).prefix(8))
    }

    public var description: String { text }

    public static func < (lhs: SecretFingerprint, rhs: SecretFingerprint) -> Bool { lhs.text < rhs.text }

    /// The SHA-256 of `value`'s UTF-8, in lowercase hexadecimal: how the allow list names a value
    /// without holding it.
    public static func sha256Hex(_ value: some StringProtocol) -> String {
        SHA256.hash(data: Array(value.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}
