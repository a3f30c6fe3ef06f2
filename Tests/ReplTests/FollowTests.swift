import Bridge
import Foundation
import FrontEndSupport
@testable import MirrorStore
import Testing
import TestSupport
import ToolSupport

/// Followers of the mirror, as a user runs them: the real oa-repl (`follow`, `--jsonl`
/// subscriptions) beside the real oa-sync and the simulator, over loopback. One at a time: each
/// runs three programs, and the other suites' handshakes have time limits.
@Suite("Following the mirror live", .serialized, .startsPrograms(endsWithin: .seconds(300)))
struct FollowTests {
    /// A session of the sample history.
    static let session = "798C06FE-0494-B6D2-EC70-38C908FB09A0"

    @Test("a follower started before the mirror exists gets every event once, in order, across an oa-sync restart")
    func acrossRestart() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: try SimulatorProcess.sampleDatabase(in: directory))
        let mirror = directory.path("mirror.sqlite")
        let (follower, answer) = try await ReplSession.subscriber(of: mirror, ["after": "start"])
        #expect(answer["result"]?["subscription"]?.int64Value == 1)
        #expect(!FileManager.default.fileExists(atPath: mirror), "a follower waits for the mirror; it does not make one")

        // Control connections last one call each: the test blocks a thread of the cooperative
        // pool while it reads, and a connection left open meanwhile could miss its keepalive.
        func append(_ range: Range<Int>) async throws {
            try await SimulatorControl.withConnection(to: simulator.url) { control in
                try await control.append(Self.session, range.map { SimulatorControl.chunk("live \($0) ") })
            }
        }
        var feed = FeedLog()
        var sync = try OASyncProcess(bridge: simulator.url, database: mirror)
        try await sync.waitForState("live")
        try await append(0..<40)
        try await feed.read(from: follower) { $0.texts.contains("live 39 ") }
        #expect(await sync.terminate() == 0)
        try await append(40..<80)
        sync = try OASyncProcess(bridge: simulator.url, database: mirror)
        try await sync.waitForState("live")
        try await append(80..<120)
        try await feed.read(from: follower) { $0.texts.contains("live 119 ") }
        #expect(await sync.terminate() == 0)
        let mirrored = try MirrorStore(path: mirror, mode: .readOnly).read { () throws -> [Int64] in
            let store = try MirrorStore(path: mirror, mode: .readOnly)
            return try store.sessions().flatMap { try store.timeline(sessionID: $0.sessionID).map(\.eventID) }
        }
        #expect(feed.eventIDs == feed.eventIDs.sorted() && Set(feed.eventIDs).count == feed.eventIDs.count, "once each, in commit order")
        #expect(Set(feed.eventIDs) == Set(mirrored), "every mirrored event, nothing else")
        #expect(feed.texts.filter { $0.hasPrefix("live ") } == (0..<120).map { "live \($0) " })
        #expect(feed.removed.isEmpty)
        #expect(await follower.stop() == 0, "SIGTERM ends a JSON-lines session with status 0")
    }

    @Test("a subscriber gets all of 10,000 events committed in a burst, none lost or repeated")
    func burst() async throws {
        let live = try await LiveSampleSync(flavor: "cursor")
        let (simulator, mirror, sync) = (live.simulator, live.mirror, live.sync)
        let (follower, _) = try await ReplSession.subscriber(of: mirror, ["after": "now"])
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("burst", ["session_id": "BURST", "count": 10_000, "bytes": 300])
        }
        var feed = FeedLog()
        try await feed.read(from: follower, timeout: .seconds(180)) { $0.events.count >= 10_000 }
        #expect(feed.events.count == 10_000)
        #expect(feed.events.allSatisfy { $0["session_id"]?.stringValue == "BURST" })
        #expect(feed.events.map { $0["ordinal"]?.int64Value } == (0..<10_000).map { Int64($0) }, "in order, once each")
        #expect(feed.texts.enumerated().allSatisfy { $0.element.hasPrefix("burst \($0.offset) ") })
        #expect(await sync.terminate() == 0)
    }

    @Test("a stock bridge's refetch takes back a provisional tail: subscribers and follow show the bridge's copy")
    func refetchReplacement() async throws {
        let live = try await LiveSampleSync(flavor: "stock")
        let (simulator, mirror, sync) = (live.simulator, live.mirror, live.sync)
        let (subscriber, _) = try await ReplSession.subscriber(of: mirror, ["after": "now"])
        // A session of its own (the stock bridge orders events of one millisecond as it likes).
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("create_session", ["session_id": "QUIET"])
        }
        var feed = FeedLog()
        try await feed.read(from: subscriber) { !$0.current(of: "QUIET").isEmpty }
        // Once it shows the session, the follower is sure to see what comes next.
        let follower = try ReplSession(["--db", mirror, "-c", "follow QUIET"])
        _ = try await follower.unreadText { $0.hasPrefix("[0] mode: codex\n") }
        // Updates that reach us twice each: the refetch takes the second ones back.
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.append("QUIET", ["one ", "two ", "three "].map { SimulatorControl.chunk($0) }, delivery: "duplicate")
        }
        // The bridge's copy, once the mirror holds it: the timeline as the refetch left it.
        func settled() -> [TimelineEvent]? {
            guard let events = try? MirrorStore(path: mirror, mode: .readOnly).timeline(sessionID: "QUIET"),
                  events.count == 4, !events.contains(where: \.provisional) else { return nil }
            return events
        }
        try await feed.read(from: subscriber) { feed in
            guard let copy = settled() else { return false }
            return feed.current(of: "QUIET").compactMap { $0["event_id"]?.int64Value } == copy.map(\.eventID)
        }
        let copy = try #require(settled())
        let shownFirst = feed.events.filter {
            $0["session_id"]?.stringValue == "QUIET" && $0["kind"]?.stringValue == "agent_message_chunk" && $0["provisional"]?.boolValue == true
        }
        #expect(shownFirst.compactMap(\.text) == ["one ", "one ", "two ", "two ", "three ", "three "], "live, as they came")
        #expect(!feed.removed.isEmpty && Set(feed.removed).isSubset(of: Set(feed.eventIDs)), "taken back, and only events given")
        #expect(Set(copy.map(\.text).filter { $0 != "codex" }) == ["one ", "two ", "three "])

        let corrected = "  " + copy.filter { $0.kind == "agent_message_chunk" }.map(\.text).joined()
        let screen = try await follower.unreadText { $0.contains("\n~ no longer in the timeline: ") && $0.hasSuffix("\n" + corrected) }
        #expect(screen.contains("\n  one one two two three three \n"), "the live text was shown: \(screen)")
        let taken = try #require(screen.range(of: "\n~ no longer in the timeline: "))
        #expect(taken.upperBound < (screen.range(of: corrected, options: .backwards)?.lowerBound ?? taken.lowerBound),
                "said to be taken back before the bridge's copy")
        #expect(await follower.stop() == 0)
        #expect(try await follower.unreadText { $0.hasSuffix("\n") }.hasSuffix(corrected + "\n"), "SIGTERM ends follow, and its last line")
        #expect(await sync.terminate() == 0)
    }

    @Test("a script queues a prompt, hears it delivered and reads the reply as it streams, through --jsonl only")
    func promptAndReply() async throws {
        let live = try await LiveSampleSync(flavor: "cursor")
        let mirror = live.mirror
        let script = try ReplSession(["--db", mirror, "--jsonl"])
        try script.request(1, "events.subscribe", ["session_id": "798c", "after": "now"])
        #expect(try await script.answer(to: 1).answer["result"]?["session_id"]?.stringValue == Self.session)
        try script.request(2, "prompt.enqueue", ["session_id": "798c", "text": "Run the tests"])
        let (queued, before) = try await script.answer(to: 2)
        let outboxID = try #require(queued["result"]?["id"]?.int64Value)
        var feed = FeedLog()
        feed.take(before)
        try await feed.read(from: script) { $0.texts.contains(" Done.") && $0.outboxStates[outboxID]?.last == "sent" }
        #expect(feed.outboxStates[outboxID] == ["queued", "sending", "sent"])
        let texts = feed.texts
        #expect(texts.first == "Run the tests", "the prompt's echo first")
        #expect(texts.dropFirst() == ["Reading the request: Run the tests", "Looking into ", "Run the tests now.",
                                      "Bash swift test", "completed All tests passed", " Done."], "the reply, its tool call and result")
        try script.request(3, "events.unsubscribe", ["subscription": 1])
        #expect(try await script.answer(to: 3).answer["result"]?["subscription"]?.int64Value == 1)
        try script.request(4, "events.unsubscribe", ["subscription": 1])
        #expect(try await script.answer(to: 4).answer["error"]?["code"]?.int64Value == -32007)
        try script.request(5, "quit")
        _ = try await script.answer(to: 5)
        #expect(await script.waitForExit() == 0)
        #expect(await live.sync.terminate() == 0)
    }

    @Test("docs/examples/ask.py queues a prompt and prints the reply as it streams, with nothing but oa-repl --jsonl")
    func askExample() async throws {
        let live = try await LiveSampleSync(flavor: "cursor")
        let mirror = live.mirror
        let path = BuildProducts.directory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let outcome = try await ProgramRun.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [Repository.root.appending(path: "docs/examples/ask.py").path, "798c", "Run the tests", "5000"],
            environment: ["OA_DB": mirror, "PATH": path], timeout: .seconds(120)
        )
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput == "Looking into Run the tests now. Done.\n")
        #expect(outcome.standardError.hasSuffix("[prompt 1: sent]\n"), "\(outcome.standardError)")
        #expect(await live.sync.terminate() == 0)
    }

    @Test("a follower goes on through checkpoints that empty the log and a mirror made by an older version and migrated")
    func checkpointsAndMigration() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let older = try MirrorStore(path: mirror, mode: .readWrite, clock: .system, migratingTo: Migration.latestVersion - 1)
        // Written as that version wrote it: its tables are not this build's.
        try older.write {
            try older.database.run("INSERT INTO sessions (session_id, local_event_count, first_seen_at, last_seen_at) VALUES ('S', 1, 1, 1)")
            let event = chunkEvent("S", "before the upgrade ")
            try older.database.run(
                """
                INSERT INTO events (event_id, session_no, ordinal, kind, text, update_json, content_hash)
                SELECT 1, session_no, 0, ?, ?, ?, ? FROM sessions WHERE session_id = 'S'
                """,
                [event.kind, event.text, DatabaseValue.textBytes(event.updateJSON), event.contentHash.rawValue]
            )
            try older.database.run("INSERT OR REPLACE INTO counters (name, value) VALUES ('event_id', 1), ('search_indexed', 0)")
        }
        // The session is resolved with a connection that migrates the file: the follower reads on.
        let (follower, _) = try await ReplSession.subscriber(of: mirror, ["session_id": "S"])
        var feed = FeedLog()
        try await feed.read(from: follower) { $0.texts.count == 1 }
        let writer = try MirrorStore(path: mirror)
        for round in 0..<5 {
            try writer.appendEvents([chunkEvent("S", "round \(round) ")])
            try writer.checkpoint()
            try await feed.read(from: follower) { $0.texts.count == round + 2 }
        }
        #expect(feed.texts == ["before the upgrade "] + (0..<5).map { "round \($0) " })
        #expect(await follower.stop() == 0)
    }

    @Test("a mirror removed and made anew under a subscriber ends its subscription with the reason, not silently")
    func mirrorReplaced() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        try MirrorStore(path: mirror).appendEvents([chunkEvent("S", "first mirror ")])
        let (subscriber, _) = try await ReplSession.subscriber(of: mirror, ["session_id": "S"])
        var feed = FeedLog()
        try await feed.read(from: subscriber) { $0.texts == ["first mirror "] }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: mirror + suffix) }
        try MirrorStore(path: mirror).appendEvents([chunkEvent("S", "second mirror ")])
        var ended: JSONValue?
        while ended == nil {
            let line = try await subscriber.nextJSON()
            if line["method"]?.stringValue == "events.ended" { ended = line["params"] }
            #expect(line["method"]?.stringValue != "events.appended", "nothing of another mirror: \(line)")
        }
        #expect(ended?["reason"]?.stringValue == "error")
        #expect(ended?["message"]?.stringValue?.contains("was removed or replaced while being followed") == true)
        #expect(await subscriber.stop() == 0)
    }

    @Test("a subscriber that does not read makes the feed wait, in bounded memory, and loses nothing")
    func backPressure() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let count = 4_000
        do {
            let store = try MirrorStore(path: mirror)
            let padding = String(repeating: "x", count: 16 << 10)
            try store.appendEvents((0..<count).map { chunkEvent("BIG", "big \($0) " + padding) })
        }
        let subscriber = try ReplSession(["--db", mirror, "--jsonl"], pipedOutput: true)
        try subscriber.request(1, "events.subscribe", ["session_id": "BIG"])
        try await waitFor("the pipe to fill up (bytes waiting)", look: { subscriber.bytesWaiting }, until: { $0 >= 60_000 })
        // Its private memory (file pages that SQLite maps are the file's, not the process's).
        var peak = try residentAnonymousMiB(of: subscriber.processIdentifier)
        var feed = FeedLog()
        while feed.events.count < count {
            let target = min(count, (feed.events.count / 500 + 1) * 500)
            try await feed.read(from: subscriber, timeout: .seconds(120)) { $0.events.count >= target }
            peak = max(peak, try residentAnonymousMiB(of: subscriber.processIdentifier))
        }
        #expect(feed.texts.enumerated().allSatisfy { $0.element.hasPrefix("big \($0.offset) ") })
        #expect(feed.events.count == count)
        // 66 MB of events went through; the subscriber holds a page (4 MiB) and its line at a time.
        #expect(peak < 48, "private memory up to \(peak) MiB")
        #expect(await subscriber.stop() == 0)
    }

    @Test("follow prints a session's conversation as show does, then ends when idle")
    func followGolden() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        var transcript = ""
        for command in ["follow 798c --until-idle-ms 200", "follow --until-idle-ms 200", "follow nope", "follow --from later",
                        "unsubscribe 1"] {
            let outcome = try await InProcessShell.run(mirror: mirror, commands: [command])
            transcript += "$ oa-repl -c '\(command)'  → exit \(outcome.status)\n\(outcome.standardOutput)"
            if !outcome.standardError.isEmpty { transcript += "stderr: \(outcome.standardError)" }
            transcript += "\n"
        }
        try expectGolden(transcript, "follow.txt")
    }

    /// The anonymous (private) part of a running process's resident set, in MiB (RssAnon).
    private func residentAnonymousMiB(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
        let kibibytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
        return kibibytes / 1024
    }
}

/// An agent message chunk, as the store takes it.
func chunkEvent(_ session: String, _ text: String) -> NewEvent {
    let json = #"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"\#(text)"}}}"#
    return NewEvent(sessionID: session, kind: "agent_message_chunk", text: text, updateJSON: Array(json.utf8))
}

/// What a JSON-lines subscriber was told, in order.
struct FeedLog {
    /// Every event appended, as notified.
    var events: [JSONValue] = []
    /// Every event id notified as removed.
    var removed: [Int64] = []
    /// Every event id notified as confirmed.
    var confirmed: [Int64] = []
    /// The states each prompt went through.
    var outboxStates: [Int64: [String]] = [:]

    var eventIDs: [Int64] { events.compactMap { $0["event_id"]?.int64Value } }
    var texts: [String] { events.compactMap(\.text) }

    /// A session's events as they stand: appended and not removed since.
    func current(of session: String) -> [JSONValue] {
        let gone = Set(removed)
        return events.filter { $0["session_id"]?.stringValue == session && !gone.contains($0["event_id"]?.int64Value ?? -1) }
    }

    /// Reads the subscriber's notifications until `done` holds (failing after `timeout`). In the
    /// whole suite on two cores, where every suite runs its programs at once, a follower test has
    /// taken up to 87 s end to end, and one read once missed 90 s.
    mutating func read(from session: ReplSession, timeout: Duration = .seconds(150), until done: (FeedLog) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !done(self) {
            take([try await session.nextJSON(timeout: deadline - .now)])
        }
    }

    /// Notes what `lines` notify.
    mutating func take(_ lines: [JSONValue]) {
        for line in lines {
            let params = line["params"]
            switch line["method"]?.stringValue {
            case "events.appended": events += params?["events"]?.arrayValue ?? []
            case "events.removed": removed += (params?["event_ids"]?.arrayValue ?? []).compactMap(\.int64Value)
            case "events.confirmed": confirmed += (params?["event_ids"]?.arrayValue ?? []).compactMap(\.int64Value)
            case "outbox.changed":
                if let id = params?["outbox_id"]?.int64Value, let state = params?["state"]?.stringValue {
                    outboxStates[id, default: []].append(state)
                }
            default: break
            }
        }
    }
}

extension JSONValue {
    /// An event's text, as notified.
    var text: String? { self["text"]?.stringValue }
}
