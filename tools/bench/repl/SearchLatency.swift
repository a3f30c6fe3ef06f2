import Foundation
import MirrorStore
import ToolSupport

/// Times `MirrorStore.search` in this process, as oa-repl runs it (read-only, memory-mapped):
/// the same queries without a filter and with each kind of filter.
struct SearchLatency {
    let mirror: String
    /// Queries per case.
    let queries: Int

    /// One row of the report: what was searched, p50 and p99 in ms, the hits found on average.
    struct Row {
        var label: String
        var p50: Double
        var p99: Double
        var meanHits: Double
    }

    func measure() throws -> [Row] {
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        try store.mapForReading()
        let words = try Self.sampleWords(store)
        guard !words.isEmpty else { throw BenchmarkFailure("the mirror's events hold no words to search for") }
        var random = SplitMix64(seed: 7)
        let texts = (0..<queries).map { index -> String in
            let first = words[Int.random(in: 0..<words.count, using: &random)]
            let second = words[Int.random(in: 0..<words.count, using: &random)]
            return index % 3 == 0 ? "\(first) \(second)" : index % 3 == 1 ? first : String(first.prefix(3)) + "*"
        }
        let sessions = try store.sessions()
        func nearest(_ count: Int64) -> SessionSummary? {
            sessions.min { abs($0.localEventCount - count) < abs($1.localEventCount - count) }
        }
        let (first, last) = try store.read {
            (try store.database.scalarInt64("SELECT min(ts) FROM events") ?? 0, try store.database.scalarInt64("SELECT max(ts) FROM events") ?? 0)
        }
        let tenth = (last - first) / 10
        var cases: [(String, SearchFilter)] = [("no filter", .none)]
        for target: Int64 in [10_000, 1_000] {
            if let session = nearest(target) {
                cases.append(("`--session`, one of \(session.localEventCount) events", SearchFilter(sessionID: session.sessionID)))
            }
        }
        cases += [
            ("`--kind agent_thought_chunk`", SearchFilter(kind: "agent_thought_chunk")),
            ("`--kind user_message_chunk`", SearchFilter(kind: "user_message_chunk")),
            ("`--since`, the last tenth of the time span", SearchFilter(since: last - tenth)),
            ("`--until`, the first tenth of the time span", SearchFilter(until: first + tenth)),
            ("`--since` and `--until`, a tenth in the middle", SearchFilter(since: first + 4 * tenth, until: first + 5 * tenth)),
        ]
        if let session = nearest(10_000) {
            cases.append(("`--session` (\(session.localEventCount) events), `--kind`, `--since` the last half",
                          SearchFilter(sessionID: session.sessionID, kind: "agent_message_chunk", since: first + 5 * tenth)))
        }
        return try cases.map { label, filter in try Self.time(label, texts, filter: filter, store: store) }
    }

    /// The forms of the query language (`SearchExpression`), each with its own words drawn from
    /// the mirror, without a filter but the last (a field with a date: the last half of the time).
    func measureForms() throws -> [Row] {
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        try store.mapForReading()
        let words = try Self.sampleWords(store)
        let phrases = try Self.samplePhrases(store)
        guard !words.isEmpty, !phrases.isEmpty else { throw BenchmarkFailure("the mirror's events hold no words to search for") }
        var random = SplitMix64(seed: 13)
        func word() -> String { words[Int.random(in: 0..<words.count, using: &random)] }
        let count = queries
        func generated(_ make: () -> String) -> [String] { (0..<count).map { _ in make() } }
        let (first, last) = try store.read {
            (try store.database.scalarInt64("SELECT min(ts) FROM events") ?? 0, try store.database.scalarInt64("SELECT max(ts) FROM events") ?? 0)
        }
        let forms: [(String, [String], SearchFilter)] = [
            ("two words", generated { "\(word()) \(word())" }, .none),
            ("a phrase of three", generated { "\"\(phrases[Int.random(in: 0..<phrases.count, using: &random)])\"" }, .none),
            ("`OR`", generated { "\(word()) OR \(word())" }, .none),
            ("`NOT` (`-word`)", generated { "\(word()) -\(word())" }, .none),
            ("`in:output`", generated { "\(word()) in:output" }, .none),
            ("`in:assistant` with `since:` the last half", generated { "\(word()) in:assistant" }, SearchFilter(since: first + (last - first) / 2)),
        ]
        return try forms.map { label, texts, filter in try Self.time(label, texts, filter: filter, store: store) }
    }

    /// Times each of `texts` (after one untimed), first 20 hits.
    private static func time(_ label: String, _ texts: [String], filter: SearchFilter, store: MirrorStore) throws -> Row {
        _ = try store.search(texts[0], filter: filter)
        var times: [Double] = []
        var hits = 0
        for text in texts {
            let start = ContinuousClock.now
            hits += try store.search(text, filter: filter, limit: 20).count
            times.append((ContinuousClock.now - start).seconds * 1000)
        }
        times.sort()
        func at(_ p: Double) -> Double { times[min(times.count - 1, Int((p / 100 * Double(times.count)).rounded(.up)) - 1)] }
        return Row(label: label, p50: at(50), p99: at(99), meanHits: Double(hits) / Double(texts.count))
    }

    /// Three words side by side in the text of events spread over the mirror.
    static func samplePhrases(_ store: MirrorStore) throws -> [String] {
        let highest = try store.database.scalarInt64("SELECT max(event_id) FROM events") ?? 0
        guard highest > 0 else { return [] }
        var random = SplitMix64(seed: 17)
        var phrases: [String] = []
        for _ in 0..<400 where phrases.count < 200 {
            guard let event = try store.event(id: Int64.random(in: 1...highest, using: &random)) else { continue }
            let words = event.text.split { !$0.isLetter && !$0.isNumber }
            guard words.count >= 3 else { continue }
            let start = Int.random(in: 0...(words.count - 3), using: &random)
            phrases.append(words[start..<(start + 3)].joined(separator: " "))
        }
        return phrases
    }

    /// Words of the text of events spread over the mirror (letters only, three or more).
    static func sampleWords(_ store: MirrorStore) throws -> [String] {
        let highest = try store.database.scalarInt64("SELECT max(event_id) FROM events") ?? 0
        guard highest > 0 else { return [] }
        var random = SplitMix64(seed: 11)
        var words: [String] = []
        for _ in 0..<200 {
            guard let event = try store.event(id: Int64.random(in: 1...highest, using: &random)) else { continue }
            words += event.text.split { !$0.isLetter }.map { $0.lowercased() }.filter { $0.count >= 3 }.prefix(3)
        }
        return words
    }
}
