import Bridge
import Foundation
import MirrorStore
import Primitives
import TestSupport
import Testing
import ToolSupport

/// `oa-repl --jsonl` held to one CPU (`taskset -c 0`), where Swift's cooperative pool has a single
/// thread: a command that runs SQLite for a long time must not hold the subscriptions up.
///
/// `OA_REPL=PATH` runs another build of oa-repl instead (docs/benchmarks.md: the same test on the
/// code before the command layer had a thread of its own).
@Suite("JSON lines on one core", .serialized, .timeLimit(.minutes(10)))
struct OneCoreSubscriptionTests {
    /// The most a notification may come after its commit while the search runs.
    static let notificationBound = Duration.milliseconds(300)
    /// How often the test commits an event while the search runs.
    static let commitInterval = Duration.milliseconds(100)

    @Test("a search of a second or more does not delay a subscription's notifications (taskset -c 0)")
    func longSearchDoesNotDelayNotifications() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let store = try MirrorStore(path: mirror)
        try SlowSearchHistory.write(into: store)

        let executable = ProcessInfo.processInfo.environment["OA_REPL"].map { URL(fileURLWithPath: $0) } ?? BuildProducts.executable("oa-repl")
        let repl = try ReplSession(["--db", mirror, "--jsonl"], core: 0, executable: executable)
        try repl.request(1, "events.subscribe", ["after": "now"])
        #expect(try await repl.answer(to: 1).answer["result"]?["subscription"]?.int64Value == 1)

        try repl.request(2, "search", ["query": .string(SlowSearchHistory.slowQuery), "limit": 20])
        let sent = ContinuousClock.now
        var committed: [String: ContinuousClock.Instant] = [:]
        var delays: [String: Duration] = [:]
        var answered: ContinuousClock.Instant?
        var nextCommit = sent
        // Commits an event every 100 ms while the search runs, and notes when each is notified.
        while answered == nil {
            guard ContinuousClock.now - sent < .seconds(120) else {
                Issue.record("the search was not answered within 120 s")
                return
            }
            if ContinuousClock.now >= nextCommit {
                let probe = "probe\(committed.count)"
                try store.appendEvents([chunkEvent("probes", probe)])
                committed[probe] = .now
                nextCommit += Self.commitInterval
            }
            guard let line = try await repl.nextLine(ifWrittenWithin: max(.zero, nextCommit - .now)) else { continue }
            let json = try JSONParser.parse(line)
            if json["id"]?.int64Value == 2 {
                #expect(json["result"]?.arrayValue?.isEmpty == false, "the search found its words: \(line.prefix(300))")
                answered = .now
            }
            Self.note(json, committed: committed, into: &delays)
        }
        let searchTook = (answered ?? sent) - sent
        let duringSearch = Set(committed.keys)
        // The notifications of the last commits may come after the answer.
        let deadline = ContinuousClock.now + .seconds(30)
        while !duringSearch.isSubset(of: delays.keys), ContinuousClock.now < deadline {
            guard let line = try await repl.nextLine(ifWrittenWithin: deadline - .now) else { break }
            Self.note(try JSONParser.parse(line), committed: committed, into: &delays)
        }
        #expect(duringSearch.isSubset(of: delays.keys), "every event committed during the search was notified")
        let worst = delays.values.max() ?? .zero
        print("one core: the search took \(searchTook); \(duringSearch.count) commits meanwhile, "
              + "notified after \(delays.values.min() ?? .zero) to \(worst)")
        #expect(searchTook >= .seconds(1), "the search must take a second or more for the test to say anything: \(searchTook)")
        #expect(worst < Self.notificationBound, "a notification came \(worst) after its commit, during a search of \(searchTook)")
        #expect(await repl.stop() == 0)
    }

    /// Notes the delay of every probe that `json` (an `events.appended` notification) carries.
    private static func note(_ json: JSONValue, committed: [String: ContinuousClock.Instant], into delays: inout [String: Duration]) {
        guard json["method"]?.stringValue == "events.appended" else { return }
        for event in json["params"]?["events"]?.arrayValue ?? [] {
            guard let text = event["text"]?.stringValue, let commit = committed[text], delays[text] == nil else { continue }
            delays[text] = .now - commit
        }
    }
}

/// A mirror on which one search takes a second or more: every event holds words no other holds,
/// all starting with `q`, so that the prefix query `q*` has FTS5 merge the list of every one.
enum SlowSearchHistory {
    static let events = 400_000
    static let wordsPerEvent = 8
    static let slowQuery = "q*"

    static func write(into store: MirrorStore) throws {
        var random = SplitMix64(seed: 25)
        var written = 0
        while written < events {
            let page = (0..<min(5000, events - written)).map { index -> NewEvent in
                let words = (0..<wordsPerEvent).map { _ in "q" + String(UInt64.random(in: 0..<(1 << 40), using: &random), radix: 36) }
                return chunkEvent("session-\((written + index) % 50)", words.joined(separator: " "))
            }
            try store.appendEvents(page)
            written += page.count
        }
    }
}
