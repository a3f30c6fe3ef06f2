import Foundation
import Primitives
import Secrets
import Testing
import TestSupport

@Suite(.endsWithin(.seconds(120))) struct DetectorTests {
    let detector = try! SecretDetector()

    @Test(arguments: PlantedSecrets.all.map { ($0.kind, $0.value, $0.line) })
    func findsEveryPlantedKind(kind: String, value: String, line: String) {
        let text = "Output of the last step:\n" + line + "\nDone."
        let findings = detector.findings(in: text)
        #expect(findings.count == 1, "\(kind): \(findings)")
        guard let finding = findings.first else { return }
        #expect(finding.kind == kind)
        let found = String(decoding: Array(text.utf8)[finding.utf8Range], as: UTF8.self)
        #expect(found == value, "\(kind) found as \(finding.fingerprint)")
        #expect(!finding.description.contains(value))
        #expect(finding.fingerprint == SecretFingerprint(of: value))
    }

    @Test func githubAndNPMTokensNeedTheirChecksum() throws {
        for prefix in ["ghp_", "npm_"] {
            let token = try #require(PlantedSecrets.all.first { $0.value.hasPrefix(prefix) }).value
            #expect(detector.findings(in: token).count == 1)
            let last = token.last == "a" ? "b" : "a"
            #expect(detector.findings(in: String(token.dropLast()) + last).isEmpty, "\(prefix) with a wrong checksum")
        }
    }

    @Test func aJWTNeedsAHeaderNamingItsAlgorithm() {
        let header = Data(#"{"typ":"JWT"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        #expect(detector.findings(in: "\(header).eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlc2lnbmF0dXJl").isEmpty)
    }

    @Test func findingsDoNotOverlapAndComeInOrder() throws {
        let jwt = try #require(PlantedSecrets.all.first { $0.kind == "jwt" }).value
        let aws = try #require(PlantedSecrets.all.first { $0.kind == "aws_access_key" }).value
        let findings = detector.findings(in: "token: \(jwt)\nAWS \(aws)")
        #expect(findings.map(\.kind) == ["jwt", "aws_access_key"])
    }

    /// Thousands of secrets in one text (a dump of settings): each is checked against the others
    /// once, not against every other. Eight times the secrets take about eight times as long, not
    /// sixty-four; timed against the smaller text in the same run, as the machine may be busy.
    @Test func manySecretsInOneTextAreFoundInLinearTime() throws {
        let aws = try #require(PlantedSecrets.all.first { $0.kind == "aws_access_key" }).value
        func text(_ lines: Int) -> String { (0..<lines).map { "token_\($0)=Q9x!\($0)-zK7#mP2v \(aws)" }.joined(separator: "\n") }
        let small = text(1_250), large = text(10_000)
        var findings: [SecretFinding] = []
        let smallest = (0..<3).map { _ in ContinuousClock().measure { findings = detector.findings(in: small) } }.min() ?? .zero
        #expect(findings.count == 2_500)
        let elapsed = ContinuousClock().measure { findings = detector.findings(in: large) }
        #expect(findings.count == 20_000)
        #expect(findings.map(\.utf8Range.lowerBound) == findings.map(\.utf8Range.lowerBound).sorted())
        let ratio = elapsed / smallest
        #expect(ratio < 24, "8 times the secrets took \(ratio) times as long (\(elapsed) against \(smallest))")
    }

    @Test func placeholdersAndIdentifiersAreNotSecrets() {
        for text in ["password=********", "api_key: ${API_KEY}", "token = getToken(user)", "secret: <your secret here>",
                     "postgres://app:$DB_PASSWORD@db:5432/app", "password: [REDACTED:password#1]"] {
            #expect(detector.findings(in: text).isEmpty, "\(text)")
        }
    }

    @Test func theAllowListTakesValuesOrTheirHashes() throws {
        let aws = try #require(PlantedSecrets.all.first { $0.kind == "aws_access_key" }).value
        let jwt = try #require(PlantedSecrets.all.first { $0.kind == "jwt" }).value
        let allowing = try SecretDetector(allowList: SecretAllowList([aws, "sha256:" + SecretFingerprint.sha256Hex(jwt).uppercased()]))
        #expect(allowing.findings(in: "\(aws) \(jwt)").isEmpty)
        #expect(detector.findings(in: "\(aws) \(jwt)").count == 2)
    }

    @Test func aKeywordIsFoundWhereverItIsIgnoringCase() throws {
        let only = try SecretDetector(extraRules: [SecretRule(kind: "x", pattern: "abcd", keywords: ["ABCD"], confidence: .low)],
                                      disabledKinds: Set(SecretRule.builtIn.map(\.kind)))
        for text in ["abcd", "ABCD", "xabcd", "aabcd", "abcabcd", "abcdx", "é abcd", "a b c d abcD"] {
            #expect(only.mayHoldSecrets(text), "\(text)")
        }
        for text in ["", "abc", "bcd", "abc d", "abcabc", "xbcd", "ab\u{301}cd", "dcba"] {
            #expect(!only.mayHoldSecrets(text), "\(text)")
        }
    }

    @Test func aTextARuleCouldNotBeRunToItsEndIsWithheldWhole() throws {
        // ICU keeps a state for each repetition of a group with alternatives: 2,000,000 of them
        // overflow its backtracking stack.
        let heavy = try SecretDetector(extraRules: [SecretRule(kind: "ab", pattern: "(?:a|b)+c", confidence: .low)])
        let text = "password=" + String(repeating: "ab", count: 1_000_000) + "c"
        let findings = heavy.findings(in: text)
        #expect(findings.map(\.kind) == [SecretDetector.unscannedKind])
        #expect(findings.first?.utf8Range == 0..<text.utf8.count)
        #expect(Redactor(detector: heavy).redact(text) == "[REDACTED:unscanned#1]")
        #expect(heavy.findings(in: "password=" + String(repeating: "ab", count: 1_000) + "c").map(\.kind) == ["ab"])
    }

    /// The `password` rule's every match holds `=` or `:`: a text with its keywords but neither
    /// is not searched, and one with them is.
    @Test func thePasswordRuleIsTriedOnlyWhereAValueCanBeAssigned() {
        #expect(!detector.mayHoldSecrets("the token was refreshed, the password rotated"))
        #expect(detector.mayHoldSecrets("the token: was refreshed"))
        #expect(detector.findings(in: "password = \"Xk29vQ7#mP2r\"").map(\.kind) == ["password"])
        #expect(detector.findings(in: "password\n:\n  Xk29vQ7#mP2r").map(\.kind) == ["password"])
    }

    /// Issue 32's defects, from other scanners' test examples and ordinary `.env.example` files.
    @Test func anEmptyAssignmentIsNotASecretNorIsTheNextLinesName() {
        #expect(detector.findings(in: "SENDGRID_API_KEY=\nSENDGRID_EMAIL=\nNEXT_PUBLIC_API_KEY=\n").isEmpty)
        #expect(detector.findings(in: "token:\nother_setting: 12345678901").isEmpty)
        #expect(detector.findings(in: "password:\n  Xk29vQ7#mP2r").map(\.kind) == ["password"])
    }

    @Test func everyMentionOfAFoundValueIsTagged() throws {
        let value = "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"
        let text = "token = '\(value)' | '\(value)'"
        let findings = detector.findings(in: text)
        #expect(findings.count == 2 && Set(findings.map(\.fingerprint)).count == 1, "\(findings)")
        #expect(!Redactor(detector: detector).redact(text).contains(value))
        let redactor = Redactor(detector: detector)
        _ = redactor.redact("export API_TOKEN=\(value)")
        #expect(redactor.redact("echo says \(value)") == "echo says [REDACTED:password#1]", "a later text of the document")
        #expect(detector.findings(in: "postgres://app:devdb@db/app and devdb again").count == 1, "short values only where found")
    }

    @Test func examplesBehindARealPrefixAreNotSecrets() {
        for text in ["AKIAIOSFODNN7EXAMPLE", "glpat-XXXXXXXXXXXXXXXXXXXX", "SLACK_TOKEN=xoxb-PUT_YOUR_TOKEN_HERE_12345",
                     "api_key = \"your_api_key_here_123\"", "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"] {
            #expect(detector.findings(in: text).isEmpty, "\(text)")
        }
    }

    /// The false-positive rate on ordinary agent text: texts with a finding, over all texts.
    @Test func ordinaryAgentTextHasFewFalsePositives() {
        let corpus = OrdinaryAgentText.corpus()
        let flagged = corpus.filter { !detector.findings(in: $0).isEmpty }
        let rate = Double(flagged.count) / Double(corpus.count)
        print("false positives: \(flagged.count) of \(corpus.count) ordinary texts (\(String(format: "%.2f", rate * 100))%)")
        #expect(flagged.isEmpty, "\(flagged.map { detector.findings(in: $0).map(\.description) })")
    }

    /// How fast ordinary text is scanned (printed; the bound is loose, for a shared debug build).
    @Test func scanSpeed() {
        let corpus = OrdinaryAgentText.corpus(count: 4000)
        let bytes = corpus.reduce(0) { $0 + $1.utf8.count }
        let clock = ContinuousClock()
        let elapsed = clock.measure { for text in corpus { _ = detector.findings(in: text) } }
        let seconds = elapsed.seconds
        print("scanned \(corpus.count) texts (\(bytes / 1024) KiB) in \(String(format: "%.3f", seconds)) s: "
            + "\(String(format: "%.0f", Double(corpus.count) / seconds)) texts/s")
        #expect(seconds < 60)
    }
}
