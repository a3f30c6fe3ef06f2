import Commands

/// The client's message limits, made smaller by tests so that they need not send hundreds of
/// megabytes: `OA_SYNC_MESSAGE_LIMIT` (the largest message read whole) and
/// `OA_SYNC_TIMELINE_LIMIT` (the hard cap on a stock timeline read in parts), in bytes, as
/// docs/cli.md says under "Files and environment". Anything else than a positive number is ignored.
enum MessageLimitOverrides {
    static func apply(_ environment: [String: String], to launcher: inout EngineLauncher) {
        if let bytes = positive(environment["OA_SYNC_MESSAGE_LIMIT"]) { launcher.maximumMessageSize = bytes }
        if let bytes = positive(environment["OA_SYNC_TIMELINE_LIMIT"]) { launcher.maximumTimelineSize = bytes }
    }

    private static func positive(_ text: String?) -> Int? {
        text.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }
}
