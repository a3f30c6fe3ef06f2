import Foundation

/// How results spell times and ids.
enum Formatting {
    /// ISO-8601 UTC with milliseconds: `2024-11-07T17:20:00.000Z`.
    static func iso8601(_ milliseconds: Int64?) -> String? {
        guard let milliseconds else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// The first 8 characters of an id, as tables show it (after `local-` for sessions made offline).
    static func short(_ id: String) -> String {
        String(id.prefix(id.hasPrefix("local-") ? 14 : 8))
    }
}
