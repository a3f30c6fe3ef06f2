import Foundation

/// Finds secrets in text with a set of `SecretRule`s, skipping the values of an allow list.
///
/// A rule is tried only when one of its keywords occurs in the text (and, for a built-in rule
/// whose every match holds one of a few characters, one of those too), so that ordinary text costs
/// one pass over its bytes for all the keywords (`KeywordSet`). Where matches overlap, the earlier rule's wins.
public struct SecretDetector: Sendable {
    /// A rule with its compiled pattern.
    private struct Compiled: @unchecked Sendable {
        // NSRegularExpression is immutable once made, and safe to use from several threads.
        let rule: SecretRule
        let expression: NSRegularExpression
        /// The numbers of its keywords in the detector's `KeywordSet`.
        let keywords: [Int]

        /// Whether the rule is to be tried on a text: one of its keywords occurs in it (or it has
        /// none), and so does one of the characters every match holds (or it promises none).
        func mayMatch(_ text: String, _ found: KeywordSet.Found) -> Bool {
            guard keywords.isEmpty || keywords.contains(where: found.contains) else { return false }
            let characters = rule.charactersInEveryMatch
            guard !characters.isEmpty else { return true }
            return text.utf8.withContiguousStorageIfAvailable { text in
                guard let base = text.baseAddress else { return false }
                return characters.contains { character in memchr(base, Int32(character), text.count) != nil }
            } ?? characters.contains { text.utf8.contains($0) }
        }
    }

    private let compiled: [Compiled]
    private let keywords: KeywordSet
    private let allowList: SecretAllowList
    /// A digest of the rules in force and the allow list: what a cache of findings is valid for.
    public let rulesDigest: String

    /// A detector with the built-in rules, then `extraRules`, minus the kinds in `disabledKinds`.
    ///
    /// - Throws: `SecretsConfigurationError.badRule` when a pattern does not compile or its group
    ///   does not exist (the error names the rule by kind and position, never quoting text).
    public init(extraRules: [SecretRule] = [], disabledKinds: Set<String> = [], allowList: SecretAllowList = SecretAllowList()) throws(SecretsConfigurationError) {
        var compiled: [Compiled] = []
        var keywords = KeywordSet()
        let rules = (SecretRule.builtIn + extraRules).filter { !disabledKinds.contains($0.kind) }
        for (index, rule) in rules.enumerated() {
            let expression: NSRegularExpression
            do {
                expression = try NSRegularExpression(pattern: rule.pattern, options: rule.ignoresCase ? [.caseInsensitive] : [])
            } catch {
                throw .badRule(kind: rule.kind, index: index, reason: "its pattern is not a valid regular expression")
            }
            guard rule.group >= 0, rule.group <= expression.numberOfCaptureGroups else {
                throw .badRule(kind: rule.kind, index: index, reason: "its pattern has no group \(rule.group)")
            }
            compiled.append(Compiled(rule: rule, expression: expression, keywords: rule.keywords.map { keywords.add($0) }))
        }
        self.compiled = compiled
        self.keywords = keywords
        self.allowList = allowList
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let rulesJSON = (try? encoder.encode(rules)).map { String(decoding: $0, as: UTF8.self) } ?? rules.map(\.pattern).joined(separator: "\n")
        rulesDigest = String(SecretFingerprint.sha256Hex(rulesJSON + "\u{0}" + allowList.digest).prefix(16))
    }

    /// The kinds of the rules in force, in order, without repeats.
    public var kinds: [String] {
        var seen = Set<String>()
        return compiled.map(\.rule.kind).filter { seen.insert($0).inserted }
    }

    /// Whether some rule would be tried on `text`: one of its keywords occurs (or a rule has
    /// none), and one of the characters its every match holds. False means `findings(in:)` finds
    /// nothing, at the cost of a few substring searches.
    public func mayHoldSecrets(_ text: String) -> Bool {
        let found = keywords.found(in: text)
        return compiled.contains { $0.mayMatch(text, found) }
    }

    /// The kind of the finding that stands for a whole text some rule could not be run to its end
    /// on (ICU gives up on a match that would need more than its backtracking stack): what was
    /// not searched may hold anything, so all of it is taken for a secret.
    public static let unscannedKind = "unscanned"

    /// The secrets in `text`, in the order they occur, none overlapping another; or, when a rule
    /// could not be run to its end, one finding of `unscannedKind` covering the whole text.
    public func findings(in text: String) -> [SecretFinding] {
        guard !text.isEmpty else { return [] }
        let keywordsFound = keywords.found(in: text)
        let whole = NSRange(text.startIndex..., in: text)
        // The earlier rules' findings, in order; a rule's own matches do not overlap one another.
        var found: [SecretFinding] = []
        var unfinished = false
        for entry in compiled where entry.mayMatch(text, keywordsFound) {
            var added: [SecretFinding] = []
            entry.expression.enumerateMatches(in: text, options: [.reportCompletion], range: whole) { match, flags, _ in
                if flags.contains(.internalError) { unfinished = true }
                guard let match, let finding = finding(match, of: entry.rule, in: text), !Self.overlapsAny(found, finding.utf8Range)
                else { return }
                added.append(finding)
            }
            if unfinished {
                return [SecretFinding(kind: Self.unscannedKind, confidence: .high, utf8Range: 0..<text.utf8.count,
                                      fingerprint: SecretFingerprint(of: text))]
            }
            if !added.isEmpty { found = (found + added).sorted { $0.utf8Range.lowerBound < $1.utf8Range.lowerBound } }
        }
        guard !found.isEmpty else { return found }
        // Every other mention of a value found is a secret too.
        var utf8 = text
        return utf8.withUTF8 { buffer in
            let bytes = UnsafeRawBufferPointer(buffer)
            var mentions = SecretMentions()
            mentions.add(found, in: bytes)
            return Self.merging(found, mentions.mentions(in: bytes, besides: found))
        }
    }

    /// Findings and others that overlap none of them, in order.
    static func merging(_ findings: [SecretFinding], _ others: [SecretFinding]) -> [SecretFinding] {
        others.isEmpty ? findings : (findings + others).sorted { $0.utf8Range.lowerBound < $1.utf8Range.lowerBound }
    }

    /// Whether `range` overlaps one of `findings`, which are in order and do not overlap.
    private static func overlapsAny(_ findings: [SecretFinding], _ range: Range<Int>) -> Bool {
        // The first finding that ends after `range` starts: the only one that can overlap it.
        var low = 0
        var high = findings.count
        while low < high {
            let middle = (low + high) / 2
            if findings[middle].utf8Range.upperBound <= range.lowerBound { low = middle + 1 } else { high = middle }
        }
        return low < findings.count && findings[low].utf8Range.overlaps(range)
    }

    /// The secret `match` of `rule` holds in `text`, if its value is one.
    private func finding(_ match: NSTextCheckingResult, of rule: SecretRule, in text: String) -> SecretFinding? {
        let range = match.range(at: rule.group)
        guard range.location != NSNotFound, let bounds = Range(range, in: text) else { return nil }
        let value = text[bounds]
        guard accepts(value, rule) else { return nil }
        let start = text.utf8.distance(from: text.startIndex, to: bounds.lowerBound)
        return SecretFinding(kind: rule.kind, confidence: rule.confidence, utf8Range: start..<(start + value.utf8.count),
                             fingerprint: SecretFingerprint(of: value))
    }

    /// Whether a match of `rule` is a secret: long enough, random enough, its check passed, not a
    /// placeholder, not allowed.
    private func accepts(_ value: Substring, _ rule: SecretRule) -> Bool {
        guard value.count >= rule.minimumLength, !SecretChecks.isPlaceholder(value) else { return false }
        if rule.needsNonWordCharacter, !SecretChecks.hasNonWordCharacter(value) { return false }
        if let minimum = rule.minimumEntropy, SecretChecks.entropy(value) < minimum { return false }
        if let check = rule.check, !SecretChecks.passes(value, check) { return false }
        return !allowList.allows(value)
    }
}
