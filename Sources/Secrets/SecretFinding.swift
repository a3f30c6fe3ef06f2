/// A secret found in a text: its kind, how sure the rule is, where it is, and its fingerprint.
/// Its description never holds the value; the value is the text's `range`, for whoever holds the
/// text.
public struct SecretFinding: Sendable, Equatable, CustomStringConvertible {
    public let kind: String
    public let confidence: SecretConfidence
    /// Where the secret is, in the UTF-8 of the text searched.
    public let utf8Range: Range<Int>
    public let fingerprint: SecretFingerprint

    public init(kind: String, confidence: SecretConfidence, utf8Range: Range<Int>, fingerprint: SecretFingerprint) {
        self.kind = kind
        self.confidence = confidence
        self.utf8Range = utf8Range
        self.fingerprint = fingerprint
    }

    /// `github_token ghp_…1f0c9a2e (high)`.
    public var description: String { "\(kind) \(fingerprint) (\(confidence.rawValue))" }
}
