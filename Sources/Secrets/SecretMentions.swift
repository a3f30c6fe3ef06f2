/// The places of secrets already found, wherever else a text mentions them: a value a rule
/// recognised once (`token = 'V'`) is a secret in every place it occurs (`… | 'V'`, or echoed later
/// without its name), though no rule would see it there.
///
/// Values shorter than `minimumLength` bytes are looked for only where a rule finds them: a short
/// password of a URL (`dev`) would otherwise be taken out of every word that holds it.
struct SecretMentions {
    static let minimumLength = 8

    private struct Value {
        let bytes: [UInt8]
        let kind: String
        let confidence: SecretConfidence
        let fingerprint: SecretFingerprint
    }

    private var values: [Value] = []
    /// The values, by their first eight bytes.
    private var byPrefix: [UInt64: [Int]] = [:]
    /// Whether some value starts with these two bytes (by `b0 << 8 | b1`): most places of a text
    /// are passed over on this alone.
    private var startsOfValues = [Bool](repeating: false, count: 1 << 16)
    private var known = Set<[UInt8]>()

    var isEmpty: Bool { values.isEmpty }

    /// Adds the values of `findings`, found in `bytes` (those of the kind for unsearched text, and
    /// short ones, left out).
    mutating func add(_ findings: [SecretFinding], in bytes: UnsafeRawBufferPointer) {
        for finding in findings where finding.kind != SecretDetector.unscannedKind && finding.utf8Range.count >= Self.minimumLength {
            let value = Array(bytes[finding.utf8Range])
            guard known.insert(value).inserted else { continue }
            byPrefix[Self.prefix(value.withUnsafeBytes { $0 }, at: 0), default: []].append(values.count)
            startsOfValues[Int(value[0]) << 8 | Int(value[1])] = true
            values.append(Value(bytes: value, kind: finding.kind, confidence: finding.confidence, fingerprint: finding.fingerprint))
        }
    }

    /// The mentions of the values in `bytes` that overlap none of `found` (in order, not
    /// overlapping), in order; where two values start at one place, the longer.
    func mentions(in bytes: UnsafeRawBufferPointer, besides found: [SecretFinding]) -> [SecretFinding] {
        guard !values.isEmpty, bytes.count >= Self.minimumLength else { return [] }
        var mentions: [SecretFinding] = []
        var nextFound = 0
        var position = 0
        let last = bytes.count - Self.minimumLength
        while position <= last {
            guard startsOfValues[Int(bytes[position]) << 8 | Int(bytes[position + 1])],
                  let candidates = byPrefix[Self.prefix(bytes, at: position)],
                  let value = candidates.map({ values[$0] }).filter({ Self.holds(bytes, $0.bytes, at: position) })
                      .max(by: { $0.bytes.count < $1.bytes.count })
            else {
                position += 1
                continue
            }
            let range = position..<(position + value.bytes.count)
            while nextFound < found.count && found[nextFound].utf8Range.upperBound <= range.lowerBound { nextFound += 1 }
            if nextFound < found.count && found[nextFound].utf8Range.overlaps(range) {
                position = found[nextFound].utf8Range.upperBound
                continue
            }
            mentions.append(SecretFinding(kind: value.kind, confidence: value.confidence, utf8Range: range, fingerprint: value.fingerprint))
            position = range.upperBound
        }
        return mentions
    }

    /// The eight bytes at `position`, as one number.
    private static func prefix(_ bytes: UnsafeRawBufferPointer, at position: Int) -> UInt64 {
        bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
    }

    private static func holds(_ bytes: UnsafeRawBufferPointer, _ value: [UInt8], at position: Int) -> Bool {
        position + value.count <= bytes.count && bytes[position..<(position + value.count)].elementsEqual(value)
    }
}
