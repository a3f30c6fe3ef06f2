import Bridge
import Foundation
import MirrorStore
import TestSupport
import Testing

/// Prompts queued offline, delivered by oa-sync.
@Suite("Outbox delivery", .startsPrograms(endsWithin: .seconds(180)))
struct OutboxSyncTests {
    /// Mirrors the sample history once, so that prompts have sessions to go to.
    func mirroredSample(_ flavor: String, in directory: TemporaryDirectory) async throws -> (SimulatorProcess, String) {
        let simulator = try await SimulatorProcess(flavor: flavor, database: try SimulatorProcess.sampleDatabase(in: directory))
        let mirror = directory.path("mirror.sqlite")
        let outcome = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        return (simulator, mirror)
    }

    func receivedPrompts(_ simulator: SimulatorProcess) async throws -> [(session: String, text: String, clientMessageID: String?)] {
        let prompts = try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("prompts")["prompts"]?.arrayValue ?? []
        }
        return prompts.map { ($0["session_id"]?.stringValue ?? "", $0["text"]?.stringValue ?? "", $0["client_message_id"]?.stringValue) }
    }

    @Test("1,000 prompts queued offline are delivered once each, in order per session, even over dropped connections")
    func thousandPrompts() async throws {
        let directory = try TemporaryDirectory()
        let (simulator, mirror) = try await mirroredSample("cursor", in: directory)
        let sessions = try MirrorStore(path: mirror, mode: .readOnly).sessions(limit: 3).map(\.sessionID)
        do {
            let store = try MirrorStore(path: mirror)
            for index in 0..<1000 {
                try queuePrompt(store, session: sessions[index % 3], text: "prompt \(index)")
            }
        }
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("close_after_frames", ["frames": 400])
            let sync = try OASyncProcess(bridge: simulator.url, database: mirror)
            try await waitFor("1000 prompts sent", timeout: .seconds(150),
                              look: { try MirrorStore(path: mirror, mode: .readOnly).outboxItems(in: [.sent]).count }, until: { $0 == 1000 })
            await sync.kill()
            let received = try await receivedPrompts(simulator)
            #expect(received.count == 1000, "each prompt run once, resends de-duplicated by client_message_id")
            for session in sessions {
                let texts = received.filter { $0.session == session }.map(\.text)
                let numbers = texts.compactMap { Int($0.dropFirst("prompt ".count)) }
                #expect(numbers == numbers.sorted(), "in the order they were queued")
            }
            let store = try MirrorStore(path: mirror, mode: .readOnly)
            #expect(Set(received.compactMap(\.clientMessageID)) == Set(try store.outboxItems().map(\.clientMessageID)))
        }
    }

    @Test("on a stock bridge, prompts whose answer was lost are shown unconfirmed, none lost silently")
    func stockDroppedAnswers() async throws {
        let directory = try TemporaryDirectory()
        let (simulator, mirror) = try await mirroredSample("stock", in: directory)
        let session = try #require(try MirrorStore(path: mirror, mode: .readOnly).sessions(limit: 1).first?.sessionID)
        do {
            let store = try MirrorStore(path: mirror)
            for index in 0..<30 { try queuePrompt(store, session: session, text: "stock prompt \(index)") }
        }
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            // Each connection: initialize, recentSessions, threads, then a few prompts; the answer to
            // the last one written is often lost with the connection.
            try await control.call("close_after_frames", ["frames": 7])
            let sync = try OASyncProcess(bridge: simulator.url, database: mirror)
            try await waitFor("a prompt unconfirmed, or every one sent", look: { try MirrorStore(path: mirror, mode: .readOnly).outboxItems().map(\.state) },
                              until: { states in states.contains(.unconfirmed) || states.allSatisfy { $0 == .sent } })
            await sync.kill()
            let store = try MirrorStore(path: mirror, mode: .readOnly)
            let items = try store.outboxItems()
            let received = Set(try await receivedPrompts(simulator).map(\.text))
            for item in items {
                switch item.state {
                case .sent: #expect(received.contains(item.text), "a sent prompt reached the bridge")
                case .unconfirmed: #expect(item.lastError != nil, "an unconfirmed prompt says why")
                case .queued: #expect(!received.contains(item.text), "a queued prompt waits behind an unconfirmed one, unsent")
                case .sending, .failed: Issue.record("unexpected state \(item.state) for \(item.text)")
                }
            }
            #expect(received.isSubset(of: Set(items.filter { $0.state == .sent || $0.state == .unconfirmed }.map(\.text))),
                    "every prompt the bridge ran is accounted for")
        }
    }

    @Test("a prompt for a session made offline creates the session, then goes to it")
    func sessionMadeOffline() async throws {
        let directory = try TemporaryDirectory()
        let (simulator, mirror) = try await mirroredSample("cursor", in: directory)
        do {
            let store = try MirrorStore(path: mirror)
            try store.createLocalSession(id: "local-new-1")
            try queuePrompt(store, session: "local-new-1", text: "start something new")
        }
        let outcome = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let received = try await receivedPrompts(simulator)
        let newSession = try #require(received.first?.session)
        #expect(UUID(uuidString: newSession) != nil)
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try store.session(id: "local-new-1") == nil)
        #expect(try store.outboxItems().map(\.sessionID) == [newSession])
        #expect(try store.timeline(sessionID: newSession).contains { $0.origin == .local && $0.text == "start something new" })
    }
}
