import Foundation
@testable import Secrets
import TestSupport
import ToolSupport
import Testing

/// The `password` rule's pattern starts at runs of name characters rather than at every word
/// boundary, for speed: it finds the values the word-boundary pattern found, in linear time.
@Suite(.endsWithin(.seconds(120))) struct PasswordPatternTests {
    /// The rule's pattern as it was, starting at a word boundary.
    static let atWordBoundaries = #"\b[A-Za-z0-9_.\-]*(?:"# + SecretRule.secretNames
        + #")[A-Za-z0-9_.\-]*["']?\s*(?:=[ \t]*|:[ \t]*(?:\r?\n[ \t]+)?)["']?([^\s"'`,;\[\]{}()<>\\]+)"#

    /// Pieces that texts are made of: names in several cases (and with characters that fold to
    /// ASCII letters: the long s, the Kelvin sign), word characters (and letters outside ASCII),
    /// every separator the pattern treats apart, and values. Not ß and ẞ, where the two differ
    /// (`aWordHoldingSharpSIsReadAsAWhole`).
    static let pieces = [
        "password", "PassWord", "passwd", "pwd", "SECRET", "ſecret", "token", "api_key", "Api-Key", "apikey",
        "access_key", "auth-key", "private_key", "credentials", "\u{212A}ey", "my", "db.", "_", "-", "9",
        " ", "  ", "\t", "\n", "=", ":", "\"", "'", "`", ",", ";", "(", ")", "[", "{", "<", "\\", "+", "/", "é", "→",
        "hunter2!xyz", "s3cr3t/Value+9", "aZ0-_.~", "${X}", "getToken(u)",
    ]

    /// The values (group 1) found in `text`.
    static func values(_ expression: NSRegularExpression, _ text: String) -> [NSRange] {
        expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { $0.range(at: 1) }
    }

    @Test func theValuesFoundAtWordBoundariesAreFound() throws {
        let now = try NSRegularExpression(pattern: SecretRule.passwordPattern, options: [.caseInsensitive])
        let before = try NSRegularExpression(pattern: Self.atWordBoundaries, options: [.caseInsensitive])
        var random = SplitMix64(seed: 24)
        var matched = 0
        for _ in 0..<20_000 {
            let text = (0..<Int(random.next() % 12 + 1)).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
            let found = Self.values(now, text)
            let expected = Self.values(before, text)
            #expect(found == expected, "\(text.debugDescription)")
            if !expected.isEmpty { matched += 1 }
        }
        // The texts must exercise the rule, not only miss it.
        #expect(matched > 1_000, "\(matched) of 20,000 texts matched")
    }

    @Test func aWordHoldingSharpSIsReadAsAWhole() throws {
        let now = try NSRegularExpression(pattern: SecretRule.passwordPattern, options: [.caseInsensitive])
        #expect(Self.values(now, "paßword=Abc123!xyz9").count == 1)
        #expect(Self.values(now, " ßpassword: Abc123!xyz9").count == 1)
    }

    /// Runs of 400 KB of base64url (and base64): after "token", with no `=` after them, with `=`
    /// after them. The word-boundary pattern took 33 s for 80 KB of base64url (release build).
    @Test func aLongRunIsReadInLinearTime() throws {
        let now = try NSRegularExpression(pattern: SecretRule.passwordPattern, options: [.caseInsensitive])
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/")
        var random = SplitMix64(seed: 7)
        for characters in [alphabet.dropLast(2), alphabet.dropLast(0)] {
            let run = String((0..<400_000).map { _ in characters[Int(random.next() % UInt64(characters.count))] })
            let head = "token " + run + " and token="
            let text = head + run + " é" + run + "=="
            var values: [NSRange] = []
            let elapsed = ContinuousClock().measure { values = Self.values(now, text) }
            #expect(values.first == NSRange(location: head.utf16.count, length: run.utf16.count))
            #expect(elapsed < .seconds(5), "\(elapsed) for \(text.utf8.count) bytes")
        }
    }
}
