import Bridge
import Foundation
import MirrorStore
import TestSupport
import Testing

/// oa-sync against a stock bridge: no seq, timelines fetched whole, watermarks.
@Suite("Sync with a stock bridge", .startsPrograms(endsWithin: .seconds(180)))
struct StockSyncTests {
    static let recentCount = 10

    @Test("the first sync mirrors the 10 listed sessions' timelines; the next fetches nothing unchanged")
    func initialSync() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "stock", database: try SimulatorProcess.sampleDatabase(in: directory))
        let mirror = directory.path("mirror.sqlite")
        let first = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("10 timeline(s) fetched"))
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            for session in try await client.recentSessions() {
                let mirrored = try mirroredTimeline(mirror, session: session.sessionID)
                #expect(sameEvents(mirrored, try await bridgeTimeline(client, session: session.sessionID)), "\(session.sessionID)")
            }
            // One session holds rows the bridge cannot decode: its count never matches, and that must
            // not make every sync fetch it again.
            let second = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
            #expect(second.status == 0)
            #expect(second.standardOutput.contains("0 timeline(s) fetched"))
        }
    }

    @Test("live updates show at once, provisional, and a refetch confirms them; our prompts stay")
    func liveAndConfirmed() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "stock", database: try SimulatorProcess.sampleDatabase(in: directory))
        let mirror = directory.path("mirror.sqlite")
        #expect(try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"]).status == 0)
        let sessionID = try #require(try MirrorStore(path: mirror, mode: .readOnly).sessions(limit: 1).first?.sessionID)
        do {
            let store = try MirrorStore(path: mirror)
            try queuePrompt(store, session: sessionID, text: "local prompt, kept by the mirror")
        }
        let sync = try OASyncProcess(bridge: simulator.url, database: mirror)
        try await sync.waitForState("live")
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.append(sessionID, (0..<20).map { SimulatorControl.chunk("live \($0)") }, delivery: "duplicate")
            try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
                let expected = try await bridgeTimeline(client, session: sessionID)
                try await waitFor("the session's duplicates gone and every live update confirmed", look: {
                    let store = try MirrorStore(path: mirror, mode: .readOnly)
                    let events = try store.timeline(sessionID: sessionID)
                    let timeline = try mirroredTimeline(mirror, session: sessionID)
                    return (events: events.count, provisional: events.filter(\.provisional).count,
                            theBridges: sameEvents(timeline, expected))
                }, until: { $0.provisional == 0 && $0.theBridges })
                let store = try MirrorStore(path: mirror, mode: .readOnly)
                let local = try store.timeline(sessionID: sessionID).filter { $0.origin == .local }
                #expect(local.map(\.text) == ["local prompt, kept by the mirror"])
                #expect(try store.outboxItems().map(\.state) == [.sent])
                #expect(await sync.terminate() == 0)
            }
        }
    }

    @Test("a live update applied after a catch-up that already fetched it is not kept twice")
    func liveUpdateAlreadyFetched() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "stock", database: try SimulatorProcess.sampleDatabase(in: directory))
        let mirror = directory.path("mirror.sqlite")
        // A session of its own: the stock bridge shuffles events of the same millisecond, and a
        // refetch that differs early replaces everything after, which would hide the question.
        let sessionID = "QUIET"
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("create_session", ["session_id": "QUIET"])
            // Answers wait 1 s, so the update lands while the catch-up runs: in the timeline it
            // fetches, and among the notifications applied after it.
            try await control.call("set_reply_delay", ["ms": 1000])
            let sync = try OASyncProcess(bridge: simulator.url, database: mirror)
            try await sync.waitForState("syncing")
            try await control.append(sessionID, [SimulatorControl.chunk("said once")])
            try await control.call("set_reply_delay", ["ms": 0])
            try await sync.waitForState("live")
            // A refetch asked for after the update came (during the catch-up or, once quiet, after it)
            // decides what stays: the update once, confirmed.
            let store = try MirrorStore(path: mirror, mode: .readOnly)
            try await waitFor("the update once, confirmed", look: {
                let events = try store.timeline(sessionID: sessionID)
                return (copies: events.filter { $0.text == "said once" }.count, provisional: events.filter(\.provisional).count)
            }, until: { $0.copies == 1 && $0.provisional == 0 })
            #expect(await sync.terminate() == 0)
            let events = try store.timeline(sessionID: sessionID)
            #expect(events.filter { $0.text == "said once" }.count == 1)
            #expect(!events.contains { $0.provisional })
        }
    }

    @Test("connections dropped after every N frames still converge", arguments: [3, 4, 7])
    func droppedEveryNFrames(frames: Int) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "stock", database: try SimulatorProcess.sampleDatabase(in: directory))
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("close_after_frames", ["frames": .number(frames)])
            let mirror = directory.path("mirror.sqlite")
            let sync = try OASyncProcess(bridge: simulator.url, database: mirror)
            try await sync.waitForState("live")
            await sync.kill()
            try await control.call("close_after_frames", ["frames": nil])
            try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
                for session in try await client.recentSessions() {
                    let mirrored = try mirroredTimeline(mirror, session: session.sessionID)
                    #expect(sameEvents(mirrored, try await bridgeTimeline(client, session: session.sessionID)))
                }
            }
        }
    }
}
