import ReadModel

/// How results spell times and ids.
package enum Formatting {
    /// ISO-8601 UTC with milliseconds: `2024-11-07T17:20:00.000Z` (`Timestamp`).
    package static func iso8601(_ milliseconds: Int64?) -> String? {
        Timestamp(milliseconds: milliseconds)?.iso8601
    }

    /// The first 8 characters of an id, as tables show it (after `local-` for sessions made offline).
    package static func short(_ id: String) -> String {
        String(id.prefix(id.hasPrefix("local-") ? 14 : 8))
    }
}
