import Bridge
import Foundation
import FrontEndSupport
import MirrorStore
import Testing
import TestSupport

/// One oa-sync following several bridges at once, into one mirror, with one writer: each with its
/// own history and cursor, prompts going to the desktop their session lives on.
@Suite("Several desktops, one mirror", .startsPrograms(endsWithin: .seconds(300)))
struct SeveralDesktopsTests {
    @Test("two bridges in one oa-sync, connections dropped every few frames and oa-sync killed at random points: nothing lost, nothing twice")
    func killsAndDropsWithTwoBridges() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let (work, home) = try await twoDesktops(in: directory, work: (20, 12_000), home: (10, 6_000))
        for url in [work.url, home.url] {
            try await SimulatorControl.withConnection(to: url) { control in
                _ = try await control.call("close_after_frames", ["frames": 7])
            }
        }
        let bridges = ["--bridge", "work=\(work.url)", "--bridge", "home=\(home.url)"]
        var seen = 0
        for _ in 0..<4 {
            let sync = try OASyncProcess(bridge: "work=\(work.url)", database: mirror,
                                         extraArguments: ["--bridge", "home=\(home.url)", "--changes-page-size", "300"])
            let target = seen + Int.random(in: 1...3000)
            try await waitFor("the mirror to hold \(min(target, 18_000)) events",
                              look: { (try? MirrorStore(path: mirror, mode: .readOnly).counts().events) ?? 0 }, until: { $0 >= min(target, 18_000) })
            await sync.kill()
            seen = try MirrorStore(path: mirror, mode: .readOnly).counts().events
            for (name, url) in [("work", work.url), ("home", home.url)] {
                try await SimulatorControl.withConnection(to: url) { control in
                    try await control.append("\(name)-between-kills", [SimulatorControl.chunk("\(name) after \(seen)")])
                }
            }
        }
        for url in [work.url, home.url] {
            try await SimulatorControl.withConnection(to: url) { control in
                _ = try await control.call("close_after_frames", ["frames": .null])
            }
        }
        let last = try await OASyncProcess.run(bridges + ["--db", mirror, "--once"])
        #expect(last.status == 0, "\(last.standardError)")
        try expectMirrorHolds(try simulatorHistory(directory.path("work.sqlite")), mirror: mirror)
        try expectMirrorHolds(try simulatorHistory(directory.path("home.sqlite")), mirror: mirror)
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let expected = try simulatorHistory(directory.path("work.sqlite")).count + simulatorHistory(directory.path("home.sqlite")).count
        #expect(try store.counts().events == expected, "each event once")
    }

    @Test("a burst on each of two desktops while one oa-sync pages both catch-ups: nothing lost, nothing twice")
    func burstsOnTwoDesktops() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let (work, home) = try await twoDesktops(in: directory, work: (10, 10_000), home: (10, 10_000))
        let sync = try OASyncProcess(bridge: "work=\(work.url)", database: mirror,
                                     extraArguments: ["--bridge", "home=\(home.url)", "--changes-page-size", "100"])
        try await sync.waitForState("syncing")
        for (name, url) in [("work", work.url), ("home", home.url)] {
            try await SimulatorControl.withConnection(to: url) { control in
                try await control.call("create_session", ["session_id": .string("BURST-\(name)")])
                _ = try await control.call("burst", ["session_id": .string("BURST-\(name)"), "count": 8_000, "bytes": 300])
            }
        }
        let expected = try simulatorHistory(directory.path("work.sqlite")).count + simulatorHistory(directory.path("home.sqlite")).count
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        try await waitFor("the mirror to hold \(expected) events", timeout: .seconds(120), look: { try store.counts().events }, until: { $0 >= expected })
        #expect(await sync.terminate() == 0)
        try expectMirrorHolds(try simulatorHistory(directory.path("work.sqlite")), mirror: mirror)
        try expectMirrorHolds(try simulatorHistory(directory.path("home.sqlite")), mirror: mirror)
        #expect(try store.counts().events == expected, "each event once")
    }

    @Test("a stock and a cursor desktop at once; each prompt goes to the desktop its session lives on")
    func promptsGoWhereTheirSessionLives() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let stock = try await SimulatorProcess(flavor: "stock", database: try SimulatorProcess.sampleDatabase(in: directory))
        let cursor = try await SimulatorProcess(flavor: "cursor", database: directory.path("cursor.sqlite"), seed: (3, 300))
        let once = try await OASyncProcess.run(["--bridge", "mac=\(stock.url)", "--bridge", "linux=\(cursor.url)", "--db", mirror, "--once"])
        #expect(once.status == 0, "\(once.standardError)")
        #expect(once.standardOutput.contains("synced with mac at \(stock.url)"), "\(once.standardOutput)")
        #expect(once.standardOutput.contains("synced with linux at \(cursor.url)"), "\(once.standardOutput)")

        let store = try MirrorStore(path: mirror)
        let macSession = try #require(try store.sessions(limit: 1, desktop: "mac").first)
        let linuxSession = try #require(try store.sessions(limit: 1, desktop: "linux").first)
        try queuePrompt(store, session: macSession.sessionID, text: "for the mac")
        try queuePrompt(store, session: linuxSession.sessionID, text: "for linux")
        let refused = try await InProcessShell.run(mirror: mirror, commands: ["prompt new hello"])
        #expect(refused.status != 0 && refused.standardError.contains("several desktops"), "\(refused.standardError)")
        let queued = try await InProcessShell.run(mirror: mirror, commands: ["prompt new --desktop linux a new session on linux"])
        #expect(queued.status == 0, "\(queued.standardError)")

        let second = try await OASyncProcess.run(["--bridge", "mac=\(stock.url)", "--bridge", "linux=\(cursor.url)", "--db", mirror, "--once"])
        #expect(second.status == 0, "\(second.standardError)")
        let macPrompts = try await prompts(at: stock.url)
        let linuxPrompts = try await prompts(at: cursor.url)
        #expect(macPrompts == ["for the mac"])
        #expect(linuxPrompts.sorted() == ["a new session on linux", "for linux"])
        #expect(try store.outboxItems().allSatisfy { $0.state == .sent })
    }

    /// Two cursor simulators, "work" and "home" (`work.sqlite`, `home.sqlite` in `directory`),
    /// seeded with (sessions, events) each, and with other seeds: their sessions' ids differ.
    private func twoDesktops(in directory: TemporaryDirectory, work: (Int, Int), home: (Int, Int)) async throws
        -> (work: SimulatorProcess, home: SimulatorProcess) {
        (try await SimulatorProcess(flavor: "cursor", database: directory.path("work.sqlite"), seed: work),
         try await SimulatorProcess(flavor: "cursor", database: directory.path("home.sqlite"), seed: home, extraArguments: ["--seed", "11"]))
    }

    private func prompts(at url: String) async throws -> [String] {
        try await SimulatorControl.withConnection(to: url) { control in
            (try await control.call("prompts")["prompts"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
        }
    }
}
