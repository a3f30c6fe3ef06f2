import ToolSupport

/// Queries made of the pieces that trouble query languages (operators, quotes, parentheses,
/// prefixes, fields, FTS5's own syntax, NUL, combining marks), joined at random: the same ones
/// every run, for the fuzz tests of the parser and of every front end.
public enum GeneratedQueries {
    /// Texts some of the queries find something in.
    public static let texts = ["the reconnect test is flaky", "backoff with jitter", "status:500 from {api}", "NEAR(a b) and \"quotes\"",
                               "vis-timeline élan"]

    static let pieces = ["flaky", "test", "OR", "NOT", "AND", "-", "(", ")", "\"", "*", "pars*", "in:user", "in:output", "in:", "status:500",
                         "{", "}", "NEAR(", "NEAR", ":", "^", "+", "\u{0}", "\u{301}", "é", "日本", "\"backoff with", "jitter\"", "-(", "x-y",
                         "''", "\\", "col:", "{text}", "*a", "a**", "--", "OR)", "(NOT"]

    /// `count` queries of 0 to 8 pieces, joined by spaces or not.
    public static func make(count: Int = 10_000, seed: UInt64 = 31) -> [String] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let length = Int.random(in: 0...8, using: &random)
            return (0..<length).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined(separator: Bool.random(using: &random) ? " " : "")
        }
    }
}
