/// Replaces the secrets of one document by `[REDACTED:<kind>#<n>]`: the same value gets the same
/// tag everywhere in the document, so that a reader sees two mentions are one secret. A value
/// found once is replaced wherever the document's later texts mention it, though no rule would
/// see it there (a token echoed without its name). One redactor per document (an export, a tool
/// result): its tags mean nothing outside it.
public final class Redactor {
    public let detector: SecretDetector
    private var tags: [String: String] = [:]
    /// The values found so far in the document.
    private var mentions = SecretMentions()
    private var counts: [String: Int] = [:]
    /// How many distinct values were replaced.
    public private(set) var redactions = 0

    public init(detector: SecretDetector) {
        self.detector = detector
    }

    /// `text` with each secret replaced by its tag.
    public func redact(_ text: String) -> String {
        let findings = findingsNoting(text)
        guard !findings.isEmpty else { return text }
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var position = 0
        for finding in findings {
            result += bytes[position..<finding.utf8Range.lowerBound]
            result += tag(for: bytes[finding.utf8Range], kind: finding.kind).utf8
            position = finding.utf8Range.upperBound
        }
        result += bytes[position...]
        return String(decoding: result, as: UTF8.self)
    }

    /// Consecutive pieces of one text (the chunks of a streamed message), each redacted as part
    /// of the whole: a secret split across pieces becomes its tag in the piece where it starts,
    /// and is left out of the pieces it runs on into. Then each piece is redacted on its own too,
    /// for what only shows there.
    public func redact(pieces: [String]) -> [String] {
        let whole = pieces.joined()
        let findings = findingsNoting(whole)
        guard !findings.isEmpty else { return pieces.map(redact) }
        let bytes = Array(whole.utf8)
        var redacted: [String] = []
        var start = 0
        for piece in pieces {
            let end = start + piece.utf8.count
            var out: [UInt8] = []
            var position = start
            for finding in findings where finding.utf8Range.overlaps(start..<end) {
                out += bytes[position..<max(position, finding.utf8Range.lowerBound)]
                if finding.utf8Range.lowerBound >= start { out += tag(for: bytes[finding.utf8Range], kind: finding.kind).utf8 }
                position = min(end, finding.utf8Range.upperBound)
            }
            out += bytes[position..<end]
            redacted.append(redact(String(decoding: out, as: UTF8.self)))
            start = end
        }
        return redacted
    }

    /// The secrets of `text`: the detector's, and the mentions of those found earlier in the
    /// document; notes them for the texts after it.
    private func findingsNoting(_ text: String) -> [SecretFinding] {
        var found = detector.findings(in: text)
        guard !found.isEmpty || !mentions.isEmpty else { return found }
        var utf8 = text
        utf8.withUTF8 { buffer in
            let bytes = UnsafeRawBufferPointer(buffer)
            found = SecretDetector.merging(found, mentions.mentions(in: bytes, besides: found))
            mentions.add(found, in: bytes)
        }
        return found
    }

    /// The tag of `value`, a secret of `kind`, in this document.
    public func tag(for value: String, kind: String) -> String {
        tag(for: ArraySlice(value.utf8), kind: kind)
    }

    private func tag(for value: ArraySlice<UInt8>, kind: String) -> String {
        let key = kind + "\u{0}" + String(decoding: value, as: UTF8.self)
        if let tag = tags[key] { return tag }
        let number = counts[kind, default: 0] + 1
        counts[kind] = number
        let tag = "[REDACTED:\(kind)#\(number)]"
        tags[key] = tag
        redactions += 1
        return tag
    }
}
