@testable import Secrets
import Testing
import TestSupport
import ToolSupport

/// `KeywordSet` finds a keyword exactly where the UTF-8 of the text lowercased holds it.
@Suite(.endsWithin(.seconds(60))) struct KeywordSetTests {
    static let keywords = ["token", "Key", "PRIVATE KEY-----", "sk-", "://", "eyj", "x", "", "paßwort", "ключ"]

    @Test func findsWhatLowercasingFinds() {
        var set = KeywordSet()
        let numbers = Self.keywords.map { set.add($0) }
        // Pieces cut anywhere: keywords in any case, their first two bytes alone, characters whose
        // lowercase is ASCII (the Kelvin sign, İ), ß and Cyrillic.
        let pieces = ["to", "TO", "ToKeN", "token", "ke", "kEy", "\u{212A}ey", "\u{130}", "sk", "-", "SK-", ":/", "/", "EyJ",
                      "PRIVATE", " KEY", "-----", "x", "X", "paß", "PASS", "wort", "КЛЮЧ", "ключ", "é", " ", "\n", "a", "0"]
        var random = SplitMix64(seed: 34)
        for _ in 0..<5000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
            let found = set.found(in: text)
            let lowered = Array(text.lowercased().utf8)
            for (keyword, number) in zip(Self.keywords, numbers) {
                let holds = keyword.isEmpty || lowered.firstRange(of: Array(keyword.lowercased().utf8)) != nil
                #expect(found.contains(number) == holds, "\(keyword) in \(text.debugDescription)")
            }
        }
    }

    @Test func oneNumberPerKeywordIgnoringCase() {
        var set = KeywordSet()
        #expect(set.add("Token") == set.add("TOKEN"))
        #expect(set.add("token") != set.add("key"))
    }

    @Test func aKeywordAtTheVeryEndOrCutShortIsNot() {
        var set = KeywordSet()
        let token = set.add("token")
        #expect(set.found(in: "a TOKEN").contains(token))
        #expect(!set.found(in: "a TOKE").contains(token))
        #expect(!set.found(in: "t").contains(token))
    }
}
