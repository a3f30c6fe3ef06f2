import Bridge
import Foundation
import FrontEndSupport
import MirrorStore
import Testing
import TestSupport

/// oa-sync against a history-cursor bridge.
@Suite("Sync with a history-cursor bridge", .startsPrograms(endsWithin: .seconds(120)))
struct CursorSyncTests {
    @Test("the first sync mirrors the history exactly, and a second one adds nothing")
    func initialSync() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: directory.path("history.sqlite"), seed: (40, 6000))
        let mirror = directory.path("mirror.sqlite")
        let first = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once", "--changes-page-size", "700"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("6000 event(s) written"))
        try expectMirrorHolds(try simulatorHistory(simulator.databasePath), mirror: mirror, nothingElse: true)
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try store.historyCursor() == 6000)
        #expect(try store.sessionCount() == 40)
        #expect(try store.sessions().allSatisfy { $0.mode != nil })
        #expect(try store.counts().threads == 10)
        let status = try #require(try store.desktopStatuses().first)
        #expect(status.connectionState == .offline)
        #expect(try store.counts().events == 6000)
        #expect(status.bridgeURL == simulator.url)
        #expect(status.lastSuccessAt != nil)
        #expect(status.lastError == nil)

        let second = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(second.status == 0)
        #expect(second.standardOutput.contains(" 0 event(s) written"))
    }

    @Test("pages left empty by rows the bridge cannot decode do not stop the catch-up")
    func undecodableRowsInTheMiddle() async throws {
        let directory = try TemporaryDirectory()
        let history = directory.path("history.sqlite")
        try await SimulatorProcess(flavor: "cursor", database: history, seed: (2, 100)).kill()
        let database = try Database(path: history)
        try database.execute("""
            WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 30)
            INSERT INTO acp_events (session_id, seq, ts, update_json)
                SELECT session_id, 1000 + value, ts, 'not JSON {' FROM acp_events, n WHERE event_id = 1;
            INSERT INTO acp_events (session_id, seq, ts, update_json)
                SELECT session_id, 2000 + event_id, ts, update_json FROM acp_events WHERE event_id <= 5;
            """)
        let simulator = try await SimulatorProcess(flavor: "cursor", database: history)
        let mirror = directory.path("mirror.sqlite")
        let outcome = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once", "--changes-page-size", "10"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try store.counts().events == 105, "the 100 events before the 30 undecodable rows and the 5 after")
        #expect(try store.historyCursor() == 135)
    }

    @Test("live updates, duplicated and reordered ones included, are applied once, in order")
    func liveUpdates() async throws {
        let live = try await LiveSampleSync(flavor: "cursor")
        let (simulator, mirror, sync) = (live.simulator, live.mirror, live.sync)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.append("LIVE", (0..<50).map { SimulatorControl.chunk("normal \($0)") })
            try await control.append("LIVE", (0..<50).map { SimulatorControl.chunk("twice \($0)") }, delivery: "duplicate")
            try await control.append("LIVE", (0..<50).map { SimulatorControl.chunk("reversed \($0)") }, delivery: "reverse")
            try await waitFor("the mirror to hold 449 events", look: { try mirroredHistory(mirror).count }, until: { $0 == 299 + 150 })
            try expectMirrorHolds(try simulatorHistory(simulator.databasePath), mirror: mirror, nothingElse: true)
            // status tells the mirror's cursor, which live updates moved past the last catch-up.
            let status = try await InProcessJSONLines.run(mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"status"}\#n"#)
            let answer = try JSONParser.parse(Array(status.standardOutput.utf8))
            let cursor: Int64? = answer["result"]?["history_cursor"]?.int64Value
            #expect(cursor == Int64(299 + 150))
            #expect(await sync.terminate() == 0)
        }
    }

    @Test("a live update without a seq is not kept provisionally: the history decides")
    func liveUpdateWithoutSeq() async throws {
        let live = try await LiveSampleSync(flavor: "cursor")
        let (simulator, mirror, sync) = (live.simulator, live.mirror, live.sync)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            let seqless = #"{"jsonrpc":"2.0","method":"session/update","params":{"session_id":"LIVE","update":"#
                + #"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"no seq"}}}}"#
            // Its event is in the history (stored without a notification); the seq-less one says
            // the history moved, and paging from the cursor finds it.
            try await control.append("LIVE", [SimulatorControl.chunk("with a seq")], delivery: "silent")
            try await control.call("send_raw", ["frames": [.string(seqless)], "to": "all"])
            try await waitFor("the mirror to hold 300 events", look: { try mirroredHistory(mirror).count }, until: { $0 == 300 })
            #expect(await sync.terminate() == 0)
            let store = try MirrorStore(path: mirror, mode: .readOnly)
            #expect(try store.timeline(sessionID: "LIVE").map(\.text) == ["with a seq"])
            #expect(try !store.hasProvisionalEvents(sessionID: "LIVE"))
            try expectMirrorHolds(try simulatorHistory(simulator.databasePath), mirror: mirror, nothingElse: true)
        }
    }

    @Test("a burst of live updates while oa-sync pages its catch-up: no deadlock, nothing lost, nothing twice")
    func burstDuringCatchUp() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: directory.path("history.sqlite"), seed: (20, 20_000))
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("create_session", ["session_id": "BURST"])
            let mirror = directory.path("mirror.sqlite")
            // Small pages: the catch-up is still paging while thousands of notifications arrive, more
            // than the client buffers; its answers queue behind them.
            let sync = try OASyncProcess(bridge: simulator.url, database: mirror, extraArguments: ["--changes-page-size", "100"])
            try await sync.waitForState("syncing")
            let burst = try await control.call("burst", ["session_id": "BURST", "count": 10_000, "bytes": 300])
            let lastSeq = try #require(burst["last_seq"]?.int64Value)
            let store = try MirrorStore(path: mirror, mode: .readOnly)
            try await waitFor("the history cursor to reach \(lastSeq)", timeout: .seconds(120), look: { try store.historyCursor() }, until: { $0 >= lastSeq })
            try expectMirrorHolds(try simulatorHistory(simulator.databasePath), mirror: mirror, nothingElse: true)
            #expect(await sync.terminate() == 0)
        }
    }

    @Test("events made while oa-sync was cut off arrive after it reconnects, from its cursor")
    func eventsWhileOffline() async throws {
        let live = try await LiveSampleSync(flavor: "cursor")
        let (simulator, mirror, sync) = (live.simulator, live.mirror, live.sync)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("refuse_connections", ["ms": 600_000])
            try await control.call("drop_connections")
            try await sync.waitForState("offline")
            try await control.append("WHILE-OFFLINE", (0..<120).map { SimulatorControl.chunk("offline \($0)") })
            try await control.call("refuse_connections", ["ms": 0])
            let caughtUp = try await sync.waitForLog("caught up") { $0["message"]?.stringValue == "caught up" }
            #expect(caughtUp["events"]?.stringValue == "120", "resumed from the cursor, not from zero")
            try expectMirrorHolds(try simulatorHistory(simulator.databasePath), mirror: mirror, nothingElse: true)
            #expect(await sync.terminate() == 0)
        }
    }

    @Test("connections dropped after every N frames still converge, without duplicates", arguments: [3, 5, 11])
    func droppedEveryNFrames(frames: Int) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: directory.path("history.sqlite"), seed: (20, 3000))
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("close_after_frames", ["frames": .number(frames)])
            let mirror = directory.path("mirror.sqlite")
            let sync = try OASyncProcess(bridge: simulator.url, database: mirror, extraArguments: ["--changes-page-size", "250"])
            try await waitFor("the mirror to hold 3000 events", timeout: .seconds(120), look: { try? mirroredHistory(mirror).count }, until: { $0 == 3000 })
            await sync.kill()
            try expectMirrorHolds(try simulatorHistory(simulator.databasePath), mirror: mirror, nothingElse: true)
        }
    }

    @Test("a simulator killed and restarted mid-sync, and oa-sync killed at random points, still converge")
    func killsDuringInitialSync() async throws {
        let directory = try TemporaryDirectory()
        let history = directory.path("history.sqlite")
        var simulator = try await SimulatorProcess(flavor: "cursor", database: history, seed: (50, 30_000))
        let port = simulator.port
        let mirror = directory.path("mirror.sqlite")
        var seen: Int64 = 0
        for round in 0..<4 {
            let sync = try OASyncProcess(bridge: simulator.url, database: mirror, extraArguments: ["--changes-page-size", "500"])
            let target = seen + Int64.random(in: 1...4000)
            try await waitFor("the mirror to hold \(min(target, 30_000)) events", look: { Int64((try? mirroredHistory(mirror).count) ?? 0) },
                              until: { $0 >= min(target, 30_000) })
            if round % 2 == 0 {
                await sync.kill()
            } else {
                await simulator.kill()
                simulator = try await SimulatorProcess(flavor: "cursor", database: history, port: port)
                await sync.kill()
            }
            let mirrored = try mirroredHistory(mirror)
            #expect(mirrored.enumerated().allSatisfy { Int64($0.offset + 1) == $0.element.seq }, "no gap and no duplicate after a kill")
            seen = Int64(mirrored.count)
        }
        let last = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(last.status == 0, "\(last.standardError)")
        try expectMirrorHolds(try simulatorHistory(history), mirror: mirror, nothingElse: true)
    }
}
