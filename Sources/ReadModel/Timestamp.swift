/// A time of the mirror (milliseconds since 1970, UTC), shown and encoded as ISO 8601 with
/// milliseconds: `2024-11-07T17:20:00.000Z`.
public struct Timestamp: Sendable, Equatable, Encodable {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// nil for nil: the optional times of the store as views hold them.
    public init?(milliseconds: Int64?) {
        guard let milliseconds else { return nil }
        self.milliseconds = milliseconds
    }

    /// Computed from the proleptic Gregorian calendar directly: Foundation's formatters cost tens
    /// of microseconds each, which a 10,000-event timeline turns into most of its display time.
    public var iso8601: String {
        let (seconds, millisecond) = Self.floorDivision(milliseconds, 1000)
        let (days, secondOfDay) = Self.floorDivision(seconds, 86_400)
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        let yearText = year < 0 ? "-" + padded(-year, 4) : padded(year, 4)
        return "\(yearText)-\(padded(month, 2))-\(padded(day, 2))T\(padded(secondOfDay / 3600, 2)):"
            + "\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2)).\(padded(millisecond, 3))Z"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }

    /// The quotient rounded down and the non-negative remainder.
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// Year, month and day of a count of days since 1970-01-01 (H. Hinnant's `civil_from_days`).
    private static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSinceEpoch + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
