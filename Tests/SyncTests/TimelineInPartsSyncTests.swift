import Bridge
import Foundation
import FrontEndSupport
import MirrorStore
import SyncEngine
import Testing
import TestSupport

/// Stock timelines over the message limit, mirrored whole in parts: the engine runs in this
/// process with a small message limit (`MessageSizeTests.limit`), against the simulator over
/// 127.0.0.1 sending its large messages in frames (`_sim/set_frame_size`).
@Suite("Stock timelines in parts", .startsPrograms(endsWithin: .seconds(180)))
struct TimelineInPartsSyncTests {
    /// A stock simulator with the sample sessions and HUGE, 40 tool outputs of 20 KB (over 800 KB
    /// in one answer, three times the limit), fragmenting its large messages as `frames` says.
    static func simulator(in directory: TemporaryDirectory, frames: JSONValue) async throws -> SimulatorProcess {
        let simulator = try await SimulatorProcess(flavor: "stock", database: try SimulatorProcess.sampleDatabase(in: directory))
        try await MessageSizeTests.addLargeSession(simulator.url, "HUGE", count: 40, bytes: 20_000)
        try await SimulatorControl.withConnection(to: simulator.url) { try await $0.call("set_frame_size", frames) }
        return simulator
    }

    /// Every session the bridge lists is mirrored with exactly the bridge's events.
    static func expectEverySessionWhole(_ mirror: String, _ url: String) async throws {
        try await BridgeClient.withConnection(to: url, options: .forTests) { client in
            for session in try await client.recentSessions() {
                let served = try await bridgeTimeline(client, session: session.sessionID)
                let mirrored = try mirroredTimeline(mirror, session: session.sessionID)
                #expect(mirrored.count == served.count && sameEvents(mirrored, served), "\(session.sessionID)")
            }
        }
    }

    @Test("a stock timeline over the message limit is mirrored whole, in parts, beside the others")
    func mirroredInParts() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await Self.simulator(in: directory, frames: ["bytes": .number(MessageSizeTests.frameSize)])
        let mirror = directory.path("mirror.sqlite")
        let engine = try MessageSizeTests.engine(mirror, simulator.url, bytesPerTransaction: 64 << 10)
        let report = try await engine.syncOnce()
        await engine.finish()
        #expect(report.failedSessions.isEmpty)
        #expect(report.timelinesFetched == 10)
        try await Self.expectEverySessionWhole(mirror, simulator.url)
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let huge = try #require(try store.session(id: "HUGE"))
        #expect(huge.localEventCount == 41 && huge.serverEventCount == 41 && huge.syncError == nil)
        #expect(try store.desktopStatuses().allSatisfy { $0.lastError == nil })
    }

    @Test("a connection lost in the middle of a timeline's answer keeps what came, the session not synced; the next sync completes it, nothing duplicated")
    func droppedMidAnswer() async throws {
        let directory = try TemporaryDirectory()
        // 20 frames of 16 KiB: some 320 KB of the answer's 800, then the connection is dropped.
        let simulator = try await Self.simulator(in: directory, frames: ["bytes": .number(MessageSizeTests.frameSize), "drop_after_frames": 20])
        let mirror = directory.path("mirror.sqlite")
        let first = try MessageSizeTests.engine(mirror, simulator.url, bytesPerTransaction: 64 << 10)
        await #expect(throws: BridgeError.self) { try await first.syncOnce() }
        await first.finish()
        do {
            let store = try MirrorStore(path: mirror, mode: .readOnly)
            let huge = try #require(try store.session(id: "HUGE"))
            #expect(huge.localEventCount > 0, "items were committed while the answer was arriving")
            #expect(huge.localEventCount < 41, "the answer was cut short")
            #expect(try store.watermark(for: "HUGE") == nil, "the session is not taken as fetched")
            let listed = try await InProcessJSONLines.run(mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"sessions.list","params":{"limit":50}}\#n"#)
            let sessions = try #require(try JSONParser.parse(Array(listed.standardOutput.utf8))["result"]?.arrayValue)
            let state = sessions.first { $0["session_id"]?.stringValue == "HUGE" }?["sync_state"]?.stringValue
            #expect(state == "incomplete")
        }

        try await SimulatorControl.withConnection(to: simulator.url) {
            try await $0.call("set_frame_size", ["bytes": .number(MessageSizeTests.frameSize)])
        }
        let second = try MessageSizeTests.engine(mirror, simulator.url, bytesPerTransaction: 64 << 10)
        let report = try await second.syncOnce()
        await second.finish()
        #expect(report.failedSessions.isEmpty)
        try await Self.expectEverySessionWhole(mirror, simulator.url)
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try store.session(id: "HUGE")?.localEventCount == 41)
    }
}
