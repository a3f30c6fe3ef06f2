import Foundation
@testable import Secrets
import Testing
import TestSupport

/// The detector against other scanners' own test examples and ordinary developer text
/// (`../shared/corpora/secrets/`, SOURCES.md there): recall on the kinds `docs/cli.md` claims, tags
/// in text that holds no secret, every mention of a value found tagged. Skipped where the corpus
/// is absent (a clone elsewhere).
@Suite("Secrets against other scanners' examples", .enabled(if: SecretCorpus.isPresent, "needs ../shared/corpora/secrets"),
       .endsWithin(.seconds(300)))
struct SecretCorpusTests {
    let detector = try! SecretDetector()

    @Test("recall of at least 98 % on the kinds the docs claim; every mention of a value found is tagged")
    func recall() throws {
        var claimed: [String: Int] = [:]
        var found: [String: Int] = [:]
        var missed: [String] = []
        var mentionsLeft: [String] = []
        for example in try SecretCorpus.labelled() where example.label == "tp" {
            let findings = detector.findings(in: example.text)
            let covered = SecretCorpus.covered(by: findings)
            for piece in SecretCorpus.pieces(of: example) {
                guard let kind = SecretCorpus.claimedKind(of: piece, in: example.text) else { continue }
                claimed[kind, default: 0] += 1
                let places = SecretCorpus.places(of: piece, in: example.text)
                if places.contains(where: { covered($0) }) {
                    found[kind, default: 0] += 1
                    if piece.utf8.count >= SecretMentions.minimumLength, !places.allSatisfy(covered) {
                        mentionsLeft.append("\(example.id) \(kind)")
                    }
                } else {
                    missed.append("\(example.id) \(example.rule) → \(kind): \(findings.map(\.description))")
                }
            }
        }
        let labelledNot = try SecretCorpus.labelled().filter { $0.label == "fp" }
        let taggedNot = labelledNot.filter { !detector.findings(in: $0.text).isEmpty }
        print("secret corpus: \(taggedNot.count) of \(labelledNot.count) examples the scanners label as no secret are tagged")
        let total = claimed.values.reduce(0, +)
        let recall = Double(found.values.reduce(0, +)) / Double(max(1, total))
        print("secret corpus recall: \(String(format: "%.1f", recall * 100)) % of \(total) claimed secrets")
        print("| kind | claimed | found |\n|---|---:|---:|")
        for kind in claimed.keys.sorted() { print("| `\(kind)` | \(claimed[kind] ?? 0) | \(found[kind] ?? 0) |") }
        print("missed: \(missed.joined(separator: "; "))")
        #expect(recall >= 0.98, "\(missed)")
        #expect(mentionsLeft.isEmpty, "a mention of a value found is left in clear: \(mentionsLeft)")
    }

    @Test("at most 0.5 tags per 10,000 lines of ordinary developer text")
    func ordinaryText() throws {
        var lines = 0
        var tags: [String] = []
        for chunk in try SecretCorpus.benign() {
            lines += chunk.text.split(separator: "\n", omittingEmptySubsequences: false).count
            for finding in detector.findings(in: chunk.text) { tags.append("\(chunk.id) \(finding.description)") }
        }
        let perTenThousand = Double(tags.count) * 10_000 / Double(lines)
        print("secret corpus ordinary text: \(tags.count) tags in \(lines) lines (\(String(format: "%.2f", perTenThousand)) per 10,000): \(tags)")
        #expect(perTenThousand <= 0.5, "\(tags)")
    }
}

/// Reading `../shared/corpora/secrets/` and judging its examples.
enum SecretCorpus {
    static let directory = Repository.sharedCorpora.appending(path: "secrets")
    static var isPresent: Bool { FileManager.default.fileExists(atPath: directory.appending(path: "SOURCES.md").path) }

    struct Example: Decodable {
        var id: String
        var source: String
        var rule: String
        var label: String
        var text: String
        var secret: String?
    }

    struct Chunk: Decodable {
        var id: String
        var text: String
    }

    static func labelled() throws -> [Example] {
        try ["gitleaks", "detect-secrets", "trufflehog"].flatMap { try lines(of: "\($0).jsonl", as: Example.self) }
    }

    static func benign() throws -> [Chunk] {
        try lines(of: "benign.jsonl", as: Chunk.self)
    }

    private static func lines<T: Decodable>(of file: String, as type: T.Type) throws -> [T] {
        let text = try String(contentsOf: directory.appending(path: file), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }

    /// What must not leave of an example's secret (SOURCES.md): the password of a URL, the value
    /// of `NAME=value` or `password=` in a connection string, each part of a key id and secret
    /// joined by `:`; never a host, a bare URL, a public IP or a marker.
    static func pieces(of example: Example) -> [String] {
        guard let secret = example.secret, !secret.isEmpty, example.rule != "ip_public" else { return [] }
        if let password = firstMatch(#"://[^:/@\s]*:([^@\s]+)@"#, in: secret) { return [password] }
        if let password = firstMatch(#"(?i)password=([^;&\s]+)"#, in: secret) { return [password] }
        if secret.contains("://") || secret.contains("\"type\"") { return [] }
        if let value = firstMatch(#"^[A-Za-z_][A-Za-z0-9_.\-]*\s*[=:]\s*["']?([^"'\s]+)"#, in: secret), example.source == "detect-secrets" {
            return [value]
        }
        if example.source == "trufflehog", secret.contains(":") { return secret.split(separator: ":").map(String.init) }
        return [secret.trimmingCharacters(in: CharacterSet(charactersIn: "\"'").union(.whitespacesAndNewlines))]
    }

    /// The kind `docs/cli.md` says a secret of this form is found as, if it says so.
    static func claimedKind(of piece: String, in text: String) -> String? {
        let value = Substring(piece)
        guard piece.count >= 3, !SecretChecks.isPlaceholder(value) else { return nil }
        if text.contains("PRIVATE KEY-----"), piece.contains("PRIVATE KEY") || piece.count > 40 { return "private_key" }
        let formats: [(String, String)] = [
            ("aws_access_key", #"^(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}$"#),
            ("github_token", #"^github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}$"#),
            ("gitlab_token", #"^glpat-[A-Za-z0-9_\-]{20,}$"#),
            ("slack_token", #"^xox[baprs]-[A-Za-z0-9\-]{10,}$"#),
            ("stripe_key", #"^[rs]k_live_[A-Za-z0-9]{20,}$"#),
            ("anthropic_key", #"^sk-ant-[A-Za-z0-9_\-]{32,}$"#),
        ]
        for (kind, format) in formats where firstMatch(format, in: piece) != nil { return kind }
        if firstMatch(#"^gh[pousr]_[A-Za-z0-9]{36}$"#, in: piece) != nil, SecretChecks.checksumFits(value) { return "github_token" }
        if firstMatch(#"^npm_[A-Za-z0-9]{36}$"#, in: piece) != nil, SecretChecks.checksumFits(value) { return "npm_token" }
        if firstMatch(#"^eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}$"#, in: piece) != nil,
           SecretChecks.jwtHeaderNamesAlgorithm(value) {
            return "jwt"
        }
        if firstMatch(#"^sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}$"#, in: piece) != nil, piece.count >= 24,
           SecretChecks.entropy(value) >= 3.5, SecretChecks.hasNonWordCharacter(value) {
            return "openai_key"
        }
        let escaped = NSRegularExpression.escapedPattern(for: piece)
        if firstMatch(#"[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@"'<>]+:("# + escaped + #")@"#, in: text) != nil { return "url_password" }
        // `NAME=value`, as the `password` rule's documentation says.
        if let name = firstMatch(#"([A-Za-z0-9_.\-]+)["']?\s*[=:][ \t]*["']?"# + escaped, in: text),
           firstMatch("(?i)" + SecretRule.secretNames, in: name) != nil, piece.count >= 10, SecretChecks.hasNonWordCharacter(value),
           SecretChecks.entropy(value) >= 3, firstMatch(#"[\s"'`,;\[\]{}()<>\\]"#, in: piece) == nil {
            return "password"
        }
        return nil
    }

    /// The UTF-8 ranges where `piece` occurs in `text`.
    static func places(of piece: String, in text: String) -> [Range<Int>] {
        let bytes = Array(text.utf8)
        let needle = Array(piece.utf8)
        guard !needle.isEmpty, needle.count <= bytes.count else { return [] }
        return (0...(bytes.count - needle.count)).filter { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
            .map { $0..<($0 + needle.count) }
    }

    /// Whether a range lies inside one of `findings`.
    static func covered(by findings: [SecretFinding]) -> (Range<Int>) -> Bool {
        { range in findings.contains { $0.utf8Range.lowerBound <= range.lowerBound && range.upperBound <= $0.utf8Range.upperBound } }
    }

    /// The first group of the first match of `pattern` (or the match, without a group).
    static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let expression = try? NSRegularExpression(pattern: pattern),
              let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        let range = match.range(at: match.numberOfRanges > 1 ? 1 : 0)
        return Range(range, in: text).map { String(text[$0]) }
    }
}
