import Bridge
import Foundation
import FrontEndSupport
import MirrorStore
import SyncEngine
import Synchronization
import Testing
import TestSupport

/// Messages over the client's limit: history pages are read in parts, an event alone too large
/// is named, and a stock session too large fails alone while the others are mirrored. The engine
/// runs in this process (for a small message limit), against the simulator over 127.0.0.1.
@Suite("Messages over the limit", .startsPrograms(endsWithin: .seconds(180)))
struct MessageSizeTests {
    /// The client's message limit in these tests.
    static let limit = 256 << 10

    static func engine(_ mirror: String, _ url: String, limit: Int = Self.limit, timelineLimit: Int = 2 << 30,
                       failedSessionRetry: Duration = .seconds(60), bytesPerTransaction: Int = 8 << 20,
                       observer: @escaping @Sendable (String, SyncEvent) -> Void = { _, _ in }) throws -> SyncEngine<ContinuousClock> {
        var options = BridgeClientOptions.forTests
        options.maximumMessageSize = limit
        options.maximumTimelineSize = timelineLimit
        var configuration = SyncConfiguration(bridgeURL: url, clientOptions: options, changesPageSize: 2000)
        configuration.failedSessionRetry = failedSessionRetry
        configuration.bytesPerTransaction = bytesPerTransaction
        return try SyncEngine(mirrorPath: mirror, configuration: configuration, observer: observer)
    }

    /// A tool call's result of `bytes` bytes of output.
    static func toolOutput(_ bytes: Int, call: Int) -> JSONValue {
        ["sessionUpdate": "tool_call_update",
         "tool_call_update": ["call_id": .string("call-\(call)"), "status": "completed",
                              "output": ["stdout": .string(String(repeating: "log line \(call) ", count: bytes / 12))]]]
    }

    /// Creates `session` in the simulator with `count` tool outputs of `bytes` bytes; returns their seqs.
    @discardableResult
    static func addLargeSession(_ url: String, _ session: String, count: Int, bytes: Int) async throws -> [Int64] {
        try await SimulatorControl.withConnection(to: url) { control in
            try await control.call("create_session", ["session_id": .string(session)])
            var seqs: [Int64] = []
            for call in 0..<count { seqs += try await control.append(session, [toolOutput(bytes, call: call)]) }
            return seqs
        }
    }

    @Test("a history page over the message limit is read in parts, on one connection, every event mirrored")
    func pageReadInParts() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: directory.path("history.sqlite"), seed: (4, 300),
                                                   extraArguments: ["--no-max-bytes"])
        try await Self.addLargeSession(simulator.url, "LARGE", count: 40, bytes: 20_000)
        let mirror = directory.path("mirror.sqlite")
        let handshakes = Mutex(0)
        let engine = try Self.engine(mirror, simulator.url) { _, event in
            if case .stateChanged(.handshaking) = event { handshakes.withLock { $0 += 1 } }
        }
        try await Self.syncWhole(engine, mirror: mirror, simulator: simulator)
        #expect(handshakes.withLock { $0 } == 1, "no page refused")
        let largest = try await SimulatorControl.withConnection(to: simulator.url) { try await $0.call("stats")["largest_message"]?.int64Value }
        #expect(try #require(largest) > Int64(Self.limit), "a page over the limit was served: the test tests the reading in parts")
    }

    /// Syncs once and checks that the mirror holds the simulator's history and that no error is
    /// left in its status.
    static func syncWhole(_ engine: SyncEngine<ContinuousClock>, mirror: String, simulator: SimulatorProcess,
                          sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let report = try await engine.syncOnce()
        await engine.finish()
        #expect(report.eventsWritten == (try simulatorHistory(simulator.databasePath)).count, sourceLocation: sourceLocation)
        try expectMirrorHolds(try simulatorHistory(simulator.databasePath), mirror: mirror, nothingElse: true, sourceLocation: sourceLocation)
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try store.desktopStatuses().allSatisfy { $0.lastError == nil }, sourceLocation: sourceLocation)
    }

    @Test("a run of events each over a quarter of the message limit is mirrored whole, with the page budget and without",
          arguments: ["--max-bytes", "--no-max-bytes"])
    func runOfLargeEvents(budget: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: directory.path("history.sqlite"), seed: (4, 600),
                                                   extraArguments: [budget])
        // After 600 small events the pages have grown: the next one meets twelve of 100 KB, each
        // over a quarter of the 256 KiB limit, so that no two pages of them fit in one message.
        try await Self.addLargeSession(simulator.url, "LARGE", count: 12, bytes: 100_000)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            _ = try await control.append("LARGE", (0..<50).map { ["sessionUpdate": "agent_message_chunk", "content": ["type": "text", "text": .string("after \($0) ")]] })
            // Frames within the client's cap, so that a page over the limit is told as such.
            try await control.call("set_frame_size", ["bytes": .number(Self.frameSize)])
        }
        let mirror = directory.path("mirror.sqlite")
        let handshakes = Mutex(0)
        let engine = try Self.engine(mirror, simulator.url) { _, event in
            if case .stateChanged(.handshaking) = event { handshakes.withLock { $0 += 1 } }
        }
        try await Self.syncWhole(engine, mirror: mirror, simulator: simulator)
        // With the budget, the pages that met the run stopped short; without it, they were read in
        // parts. Either way one connection served every page.
        #expect(handshakes.withLock { $0 } == 1)
        let largest = try #require(try await SimulatorControl.withConnection(to: simulator.url) {
            try await $0.call("stats")["largest_message"]?.int64Value
        })
        if budget == "--max-bytes" {
            #expect(largest < Int64(Self.limit), "every page within the budget")
        } else {
            #expect(largest > Int64(Self.limit), "the run did not meet a page the sizer had grown: the test tests nothing")
        }
    }

    @Test("an event alone over the message limit is named, with its size and the limit; what precedes it is mirrored")
    func eventTooLarge() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "cursor", database: directory.path("history.sqlite"), seed: (3, 200))
        let seq = try #require(try await Self.addLargeSession(simulator.url, "HUGE", count: 1, bytes: 400_000).first)
        let mirror = directory.path("mirror.sqlite")
        let engine = try Self.engine(mirror, simulator.url)
        let error = await #expect(throws: BridgeError.self) { try await engine.syncOnce() }
        await engine.finish()
        guard case .eventTooLarge(seq, let size?, Self.limit)? = error else {
            Issue.record("expected eventTooLarge for \(seq) with its size, got \(String(describing: error))")
            return
        }
        #expect(size > Self.limit, "its size so far, at least")
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try store.historyCursor() == seq - 1)
        let lastError = try #require(try store.desktopStatuses().first?.lastError)
        #expect(lastError.contains("history event \(seq) alone is over this client's message limit of \(Self.limit) bytes"), "\(lastError)")
    }

    /// Frames of the simulator's messages over this size (a bridge that fragments its messages,
    /// whose frames stay within the client's frame cap, four times its message limit).
    static let frameSize = 16 << 10

    @Test("a stock session over the timeline cap fails alone, the others are mirrored; it is retried later and recovers")
    func stockSessionFailsAlone() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await SimulatorProcess(flavor: "stock", database: try SimulatorProcess.sampleDatabase(in: directory))
        try await Self.addLargeSession(simulator.url, "HUGE", count: 20, bytes: 20_000)
        try await SimulatorControl.withConnection(to: simulator.url) { try await $0.call("set_frame_size", ["bytes": .number(Self.frameSize)]) }
        let mirror = directory.path("mirror.sqlite")
        let cap = 300_000

        let first = try Self.engine(mirror, simulator.url, timelineLimit: cap, failedSessionRetry: .zero)
        let report = try await first.syncOnce()
        await first.finish()
        #expect(report.failedSessions.map(\.sessionID) == ["HUGE"])
        #expect(report.failedSessions.first?.reason.contains("over this client's message limit of \(cap) bytes") == true)
        #expect(report.timelinesFetched == 9)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            for session in try await client.recentSessions() where session.sessionID != "HUGE" {
                let mirrored = try mirroredTimeline(mirror, session: session.sessionID)
                #expect(sameEvents(mirrored, try await bridgeTimeline(client, session: session.sessionID)), "\(session.sessionID)")
            }
        }
        do {
            let store = try MirrorStore(path: mirror, mode: .readOnly)
            let huge = try #require(try store.session(id: "HUGE"))
            #expect(huge.syncError?.contains("message limit") == true)
            #expect(huge.localEventCount < huge.serverEventCount ?? 0, "what came before the cap is kept, and the session is not complete")
        }
        let listed = try await InProcessJSONLines.run(mirror: mirror, input: #"{"jsonrpc":"2.0","id":1,"method":"sessions.list","params":{"limit":50}}\#n"#)
        let sessions = try #require(try JSONParser.parse(Array(listed.standardOutput.utf8))["result"]?.arrayValue)
        let huge = try #require(sessions.first { $0["session_id"]?.stringValue == "HUGE" })
        #expect(huge["sync_state"]?.stringValue == "failed")
        #expect(huge["sync_error"]?.stringValue?.contains("message limit") == true)
        // No session is said to be synced while the mirror holds fewer of its events than the bridge reported.
        for session in sessions where session["sync_state"]?.stringValue == "synced" {
            let held = session["event_count"]?.int64Value ?? 0
            #expect(held >= session["server_event_count"]?.int64Value ?? 0, "\(session)")
        }

        // A later sync, with room for it, retries the session (its retry time has come) and mirrors it.
        let second = try Self.engine(mirror, simulator.url, failedSessionRetry: .zero)
        let retried = try await second.syncOnce()
        await second.finish()
        #expect(retried.failedSessions.isEmpty)
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let recovered = try #require(try store.session(id: "HUGE"))
        #expect(recovered.syncError == nil && recovered.retryAfter == nil)
        #expect(try store.failedSessions().isEmpty)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let mirrored = try mirroredTimeline(mirror, session: "HUGE")
            let served = try await bridgeTimeline(client, session: "HUGE")
            #expect(served.count == 21 && sameEvents(mirrored, served), "the session's creation and its 20 outputs")
        }
    }
}
