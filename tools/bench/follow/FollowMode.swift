import ArgumentParser

/// The three ways of following the mirror that the benchmark measures, each with an oa-repl of
/// its own.
enum FollowMode: String, CaseIterable, Codable, ExpressibleByArgument {
    /// `follow SESSION --from now`: one session's conversation as text; every event goes to it.
    case session
    /// `follow --from now`: every session's, each line tagged with the session's short id; the
    /// events go to the sessions in turn, so each starts a block of its own.
    case all
    /// `--jsonl` and `events.subscribe` after `now` for every session; the events go to the
    /// sessions in turn.
    case jsonl

    /// The command line after the executable.
    func arguments(mirror: String, session: String) -> [String] {
        switch self {
        case .session: ["--db", mirror, "-c", "follow \(session) --from now"]
        case .all: ["--db", mirror, "-c", "follow --from now"]
        case .jsonl: ["--db", mirror, "--jsonl"]
        }
    }

    /// The request written to its standard input, if any.
    var request: String? {
        self == .jsonl ? #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"after":"now"}}"# : nil
    }

    /// How the report names it.
    var label: String {
        switch self {
        case .session: "`follow SESSION --from now`, text"
        case .all: "`follow --from now`, every session, tagged"
        case .jsonl: "`--jsonl` `events.subscribe` after now"
        }
    }

    /// How often each marker appears in its output: the JSON-lines notification carries the
    /// text twice, as `text` and inside `update`.
    var occurrencesPerEvent: Int { self == .jsonl ? 2 : 1 }

    /// Whether the target of ≤ 50 ms p99 from commit to printed line applies (the JSON-lines
    /// subscription's latency is reported beside it).
    var hasLatencyTarget: Bool { self != .jsonl }

    /// The session the `index`th event goes to.
    func session(for index: Int, of sessions: [String]) -> String {
        self == .session ? sessions[0] : sessions[index % sessions.count]
    }
}
