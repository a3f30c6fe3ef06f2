import Foundation
@testable import Secrets
import Testing

/// The `password` rule's lookahead is there for speed only: it must change no match.
@Suite struct PasswordPatternTests {
    /// The rule's pattern as it was before the lookahead.
    static let withoutLookahead = #"\b[A-Za-z0-9_.\-]*(?:"# + SecretRule.secretNames
        + #")[A-Za-z0-9_.\-]*["']?\s*(?:=|:)\s*["']?([^\s"'`,;\[\]{}()<>\\]+)"#

    /// Pieces that texts are made of: names in several cases (and with characters that fold to
    /// ASCII letters: the long s, the Kelvin sign, ß), word characters, every separator the
    /// pattern treats apart, and values.
    static let pieces = [
        "password", "PassWord", "passwd", "pwd", "SECRET", "ſecret", "token", "api_key", "Api-Key", "apikey",
        "access_key", "auth-key", "private_key", "credentials", "\u{212A}ey", "paßword", "my", "db.", "_", "-", "9",
        " ", "  ", "\t", "\n", "=", ":", "\"", "'", "`", ",", ";", "(", ")", "[", "{", "<", "\\", "é", "→",
        "hunter2!xyz", "s3cr3t/Value+9", "aZ0-_.~", "${X}", "getToken(u)",
    ]

    @Test func theLookaheadChangesNoMatch() throws {
        let now = try NSRegularExpression(pattern: SecretRule.passwordPattern, options: [.caseInsensitive])
        let before = try NSRegularExpression(pattern: Self.withoutLookahead, options: [.caseInsensitive])
        var random = SplitMix64(seed: 24)
        var matched = 0
        for _ in 0..<20_000 {
            let text = (0..<Int(random.next() % 12 + 1)).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
            let whole = NSRange(text.startIndex..., in: text)
            let found = now.matches(in: text, range: whole).map { [$0.range, $0.range(at: 1)] }
            let expected = before.matches(in: text, range: whole).map { [$0.range, $0.range(at: 1)] }
            #expect(found == expected, "\(text.debugDescription)")
            if !expected.isEmpty { matched += 1 }
        }
        // The texts must exercise the rule, not only miss it.
        #expect(matched > 1_000, "\(matched) of 20,000 texts matched")
    }
}

/// A small seeded generator, so that a failure can be run again.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
