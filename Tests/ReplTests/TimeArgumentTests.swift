@testable import Commands
import Foundation
import TestSupport
import Testing

/// `--since` and `--until` values: ISO-8601 dates and date-times as spans of time.
@Suite("ISO-8601 arguments", .endsWithin(.seconds(120)))
struct TimeArgumentTests {
    /// Milliseconds since the epoch of a UTC date-time, as Foundation computes it.
    private func ms(_ text: String) throws -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: text))
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    @Test("a date is its whole day, in UTC")
    func dates() throws {
        let day = try #require(TimeArgument("2024-11-07"))
        #expect(day.start == (try ms("2024-11-07T00:00:00.000Z")))
        #expect(day.end == (try ms("2024-11-08T00:00:00.000Z")) - 1)
        #expect(TimeArgument("2024-02-29") != nil, "a leap day")
        #expect(TimeArgument("1969-12-31")?.start == -86_400_000, "before the epoch")
    }

    @Test("a date-time is its minute, second or millisecond; a zone moves it")
    func dateTimes() throws {
        #expect(TimeArgument("2024-11-07T17:20") == TimeArgument("2024-11-07T17:20Z"))
        let minute = try #require(TimeArgument("2024-11-07T17:20"))
        #expect(minute.start == (try ms("2024-11-07T17:20:00.000Z")) && minute.end == minute.start + 59_999)
        let second = try #require(TimeArgument("2024-11-07 17:20:05Z"))
        #expect(second.start == (try ms("2024-11-07T17:20:05.000Z")) && second.end == second.start + 999)
        let milli = try #require(TimeArgument("2024-11-07T17:20:05.25Z"))
        #expect(milli.start == (try ms("2024-11-07T17:20:05.250Z")) && milli.end == milli.start)
        #expect(TimeArgument("2024-11-07T17:20:05.123456Z")?.start == (try ms("2024-11-07T17:20:05.123Z")))
        #expect(TimeArgument("2024-11-07T18:20:00+01:00")?.start == (try ms("2024-11-07T17:20:00.000Z")))
        #expect(TimeArgument("2024-11-07T12:20:00-0500")?.start == (try ms("2024-11-07T17:20:00.000Z")))
    }

    @Test("anything else is refused", arguments: [
        "", "yesterday", "2024-11", "2024-13-01", "2024-02-30", "2023-02-29", "2024-11-07T", "2024-11-07T24:00",
        "2024-11-07T17:60", "2024-11-07T17:20:61", "2024-11-07T17:20:05.", "2024-11-07T17:20+1", "2024-11-07Z", "2024-11-07 ",
        "２０２４-11-07", "2024-11-07T17:20:05Zjunk",
    ])
    func refused(text: String) {
        #expect(TimeArgument(text) == nil, "\(text)")
    }
}
