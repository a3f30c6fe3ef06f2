/// An ISO-8601 date or date-time given as an argument (`--since 2024-11-07`,
/// `--until 2024-11-07T17:20Z`), as the span of time it names: a date is that whole day, a
/// date-time that minute, second or millisecond. Without a zone, UTC.
struct TimeArgument: Equatable {
    /// The first millisecond it names (since the epoch).
    var start: Int64
    /// The last millisecond it names.
    var end: Int64

    /// Reads `text`; nil when it is not an ISO-8601 date (`2024-11-07`) or date-time
    /// (`2024-11-07T17:20`, `…:05`, `…:05.250`, then `Z`, `+01:00` or `-0500`; a space may take
    /// the place of `T`).
    init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
              let day = scanner.digits(2), (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let midnight = Self.daysFromCivil(year: year, month: month, day: day) * 86_400_000
        guard scanner.take("T") || scanner.take("t") || scanner.take(" ") else {
            guard scanner.atEnd else { return nil }
            self.init(start: midnight, end: midnight + 86_400_000 - 1)
            return
        }
        guard let hour = scanner.digits(2), hour < 24, scanner.take(":"), let minute = scanner.digits(2), minute < 60 else { return nil }
        var milliseconds = Int64(hour * 3_600_000 + minute * 60_000)
        var span: Int64 = 60_000
        if scanner.take(":") {
            guard let second = scanner.digits(2), second < 60 else { return nil }
            milliseconds += Int64(second * 1000)
            span = 1000
            if scanner.take(".") || scanner.take(",") {
                guard let fraction = scanner.fraction() else { return nil }
                milliseconds += fraction
                span = 1
            }
        }
        var offset: Int64 = 0
        if !(scanner.take("Z") || scanner.take("z")), let sign = scanner.sign() {
            guard let hours = scanner.digits(2), hours < 24 else { return nil }
            _ = scanner.take(":")
            guard let minutes = scanner.digits(2), minutes < 60 else { return nil }
            offset = sign * Int64(hours * 3_600_000 + minutes * 60_000)
        }
        guard scanner.atEnd else { return nil }
        let start = midnight + milliseconds - offset
        self.init(start: start, end: start + span - 1)
    }

    private init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Int64(era * 146_097 + dayOfEra - 719_468)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Reads ASCII bytes left to right.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Exactly `count` decimal digits, as a number.
        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        /// One or more digits after a decimal point, as milliseconds (further digits dropped).
        mutating func fraction() -> Int64? {
            var milliseconds: Int64 = 0
            var count = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                if count < 3 { milliseconds = milliseconds * 10 + Int64(bytes[index] - 0x30) }
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { milliseconds *= 10 }
            return milliseconds
        }

        /// `+` or `-`, as 1 or -1.
        mutating func sign() -> Int64? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }
    }
}
