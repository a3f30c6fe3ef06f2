@testable import Commands
import Foundation
import TestSupport
import Testing
import ToolSupport

/// The hand-written ISO-8601 formatting against Foundation's.
@Suite("times as ISO-8601", .endsWithin(.seconds(120)))
struct FormattingTests {
    @Test("agrees with ISO8601DateFormatter from 1900 to 2200, leap days and negative times included")
    func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var random = SplitMix64(seed: 8601)
        let span: Int64 = 9_467_280_000_000  // 300 years of milliseconds
        let fixed: [Int64] = [0, -1, 999, 1000, 951_782_400_000, 4_107_542_399_999, -2_208_988_800_000, 1_730_917_200_000]
        let samples = fixed + (0..<20_000).map { _ in Int64(random.next() % UInt64(span)) - 2_208_988_800_000 }
        for milliseconds in samples {
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            #expect(Formatting.iso8601(milliseconds) == expected, "\(milliseconds)")
        }
        #expect(Formatting.iso8601(nil) == nil)
    }

    @Test("years before 1 keep their sign")
    func negativeYears() {
        #expect(Formatting.iso8601(-62_135_596_800_000) == "0001-01-01T00:00:00.000Z")
        #expect(Formatting.iso8601(-62_135_596_800_001) == "0000-12-31T23:59:59.999Z")
        #expect(Formatting.iso8601(-62_198_755_200_000) == "-0001-01-01T00:00:00.000Z")
    }

    @Test("message text splits as CommonMark reads it (LF, CRLF, CR), multi-byte text included; a tool output at line feeds only")
    func lineSplitting() {
        #expect(MessageMarkdown.contained("été\r\n# titre\r> quoted\n  ```", headingShift: 2) == ["été", "### titre", "> quoted", "  ```", "```"])
        #expect(MessageMarkdown.contained("", headingShift: 2) == [""])
        #expect(MarkdownExport.fenced("a\r\nb ``` c", language: "text") == ["````text", "a\r", "b ``` c", "````"])
    }
}
