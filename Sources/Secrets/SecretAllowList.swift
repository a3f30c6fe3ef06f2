/// Values never to flag, from the secrets file: each as itself, or as `sha256:<hex>` of its UTF-8
/// (so that the file need not hold it).
public struct SecretAllowList: Sendable, Equatable {
    private var literals: Set<String>
    private var hashes: Set<String>

    /// The list of these entries (`sha256:` entries by hash, the others as written).
    public init(_ entries: [String] = []) {
        literals = []
        hashes = []
        for entry in entries {
            if entry.hasPrefix("sha256:") { hashes.insert(entry.dropFirst(7).lowercased()) } else { literals.insert(entry) }
        }
    }

    /// A digest of the list (the hashes of its values, in order), for `SecretDetector.rulesDigest`.
    var digest: String {
        (literals.map { SecretFingerprint.sha256Hex($0) } + hashes).sorted().joined(separator: ",")
    }

    /// Whether `value` is on the list.
    public func allows(_ value: Substring) -> Bool {
        if literals.contains(String(value)) { return true }
        return !hashes.isEmpty && hashes.contains(SecretFingerprint.sha256Hex(value))
    }
}
