import Foundation
import TestSupport
import Testing
@testable import Bridge

/// How the client behaves when the network or the bridge misbehaves.
@Suite("Connection behaviour", .startsPrograms(endsWithin: .seconds(120)))
struct ConnectionBehaviourTests {
    func sampleSimulator(_ flavor: String, in directory: TemporaryDirectory) async throws -> SimulatorProcess {
        try await SimulatorProcess(flavor: flavor, database: try SimulatorProcess.sampleDatabase(in: directory))
    }

    @Test("one request at a time on a stock bridge; several with pipelining", arguments: ["stock", "cursor"])
    func requestsInFlight(flavor: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator(flavor, in: directory)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
                try await control.call("set_reply_delay", ["ms": 200])
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<4 { group.addTask { try await client.recentSessions().count } }
                    for try await count in group { #expect(count == 10) }
                }
                let inFlight = try await control.call("stats")["max_in_flight"]?.int64Value
                if flavor == "stock" {
                    #expect(inFlight == 1)
                } else {
                    #expect((inFlight ?? 0) > 1)
                }
            }
        }
    }

    @Test("a message in two frames arrives whole; a fragment out of sequence ends the connection")
    func fragmentSequences() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("cursor", in: directory)
        let update = #"{"jsonrpc":"2.0","method":"session/update","params":{"session_id":"S","update":"#
            + #"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"in two frames"}}}}}"#
        let whole = try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            _ = try await client.call("_sim/send_raw", params: ["frames": [.string(update)], "fragments": "split"])
            return try await client.notifications.next(awaiting: "the update sent in two frames")
        }
        guard case .sessionUpdate(let received)? = whole else {
            Issue.record("no session/update came")
            return
        }
        #expect(received.update.summary.text == "in two frames")

        for shape in ["orphan_continuation", "new_message_inside"] {
            try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
                // The frames go out before the answer, which the client never reads.
                await #expect(throws: BridgeError.self, "\(shape)") {
                    try await client.call("_sim/send_raw", params: ["frames": [.string(update)], "fragments": .string(shape)])
                }
                #expect(await client.closeReason?.contains("broke the WebSocket protocol") == true, "\(shape)")
                let delivered = try await client.notifications.next(awaiting: "the end of the notifications")
                #expect(delivered == nil, "\(shape): nothing was delivered")
            }
        }
    }

    @Test("a connection given up at any moment of its opening ends: cancelled before it began, while it connects, or once open")
    func givenUpWhileOpening() async throws {
        let directory = try TemporaryDirectory()
        let url = try await sampleSimulator("stock", in: directory).url
        // Given up before its task began connecting, a connection whose work went to an event
        // loop already shut down never ended, cancelled or not.
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await BridgeClient.withConnection(to: url, options: .forTests) { _ in }
        }
        await #expect(throws: CancellationError.self) {
            try await cancelledFirst.value(within: .seconds(30), awaiting: "a connection opened by a cancelled task")
        }
        for attempt in 0..<200 {
            let opening = Task { try await BridgeClient.withConnection(to: url, options: .forTests) { _ in } }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...(attempt % 4 == 0 ? 20_000 : 2_000))))
            opening.cancel()
            do {
                try await opening.value(within: .seconds(30), awaiting: "attempt \(attempt), cancelled while it opened, to end")
            } catch let timedOut as WaitTimedOut {
                throw timedOut
            } catch {
                // Cancelled, or opened and closed before the cancellation came: it ended.
            }
        }
    }

    @Test("a bridge that stops answering, pings included, is found dead by keepalive")
    func keepaliveFindsADeadBridge() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        let options = BridgeClientOptions(firstHandshakeTimeout: .seconds(20), requestTimeout: .seconds(120), keepaliveInterval: .milliseconds(300))
        try await BridgeClient.withConnection(to: simulator.url, options: options) { client in
            try await simulator.freeze()
            defer { simulator.thaw() }
            let started = ContinuousClock.now
            let error = await #expect(throws: BridgeError.self) { try await client.recentSessions() }
            guard case .connectionClosed? = error else {
                Issue.record("expected connectionClosed, got \(String(describing: error))")
                return
            }
            #expect(ContinuousClock.now - started < .seconds(30), "found dead by keepalive, long before the request timeout")
        }
    }

    @Test("a bridge that never completes the WebSocket upgrade fails the handshake in time")
    func handshakeTimeout() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        try await simulator.freeze()
        defer { simulator.thaw() }
        let options = BridgeClientOptions(firstHandshakeTimeout: .milliseconds(400), retryHandshakeTimeout: .milliseconds(700))
        await #expect(throws: BridgeError.handshakeTimedOut(url: simulator.url, after: .milliseconds(400))) {
            try await BridgeClient.withConnection(to: simulator.url, options: options) { _ in }
        }
        await #expect(throws: BridgeError.handshakeTimedOut(url: simulator.url, after: .milliseconds(700))) {
            try await BridgeClient.withConnection(to: simulator.url, options: options, isRetry: true) { _ in }
        }
    }

    @Test("a bridge that accepts the socket but never answers initialize fails the handshake in time")
    func initializeUnanswered() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("set_reply_delay", ["ms": 60_000])
            let options = BridgeClientOptions(firstHandshakeTimeout: .milliseconds(400))
            await #expect(throws: BridgeError.handshakeTimedOut(url: simulator.url, after: .milliseconds(400))) {
                try await BridgeClient.withConnection(to: simulator.url, options: options) { _ in }
            }
        }
    }

    @Test("a known method timing out on a stock bridge closes the connection; an unknown one does not")
    func timeoutOfAKnownMethod() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
                await #expect(throws: BridgeError.self) { try await client.call("no/such_method", timeout: .milliseconds(200)) }
                #expect(await !client.isClosed)
                try await control.call("set_reply_delay", ["ms": 60_000])
                await #expect(throws: BridgeError.timedOut(method: BridgeMethod.recentSessions, after: .milliseconds(300))) {
                    try await client.call(BridgeMethod.recentSessions, params: [:], timeout: .milliseconds(300))
                }
                #expect(await client.isClosed, "a late answer could have gone to the next request")
            }
        }
    }

    @Test("a cancelled request ends at once and the client goes on")
    func cancellation() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("cursor", in: directory)
        // A request that would wait 100 s: ending well before that is ending at the cancellation,
        // even on a loaded machine.
        let options = BridgeClientOptions(firstHandshakeTimeout: .seconds(30), requestTimeout: .seconds(100))
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await BridgeClient.withConnection(to: simulator.url, options: options) { client in
                try await control.call("set_reply_delay", ["ms": 180_000])
                let waiting = Task { try await client.recentSessions() }
                try await waitFor("the request to reach the bridge before it is cancelled",
                                  look: { try await control.call("stats")["in_flight"]?.int64Value ?? 0 }, until: { $0 >= 1 })
                let started = ContinuousClock.now
                waiting.cancel()
                await #expect(throws: CancellationError.self) { try await waiting.value(awaiting: "the cancelled request's end") }
                #expect(ContinuousClock.now - started < .seconds(50), "ended by the cancellation, not the timeout")
                try await control.call("set_reply_delay", ["ms": 0])
                #expect(try await client.recentSessions().count == 10)
            }
        }
    }

    @Test("refused connections fail to connect, and connect again once allowed")
    func refusedConnections() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("refuse_connections", ["ms": 60_000])
            await #expect(throws: BridgeError.self) { try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { _ in } }
            try await control.call("refuse_connections", ["ms": 0])
            try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client async throws in
                #expect(try await client.recentSessions().count == 10)
            }
        }
    }

    @Test("a connection closed after N frames fails what is still waiting")
    func closeAfterFrames() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.call("close_after_frames", ["frames": 3])
            try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
                _ = try await client.recentSessions()
                _ = try await client.threads()
                let error = await #expect(throws: BridgeError.self) { try await client.recentSessions() }
                guard case .connectionClosed? = error else {
                    Issue.record("expected connectionClosed, got \(String(describing: error))")
                    return
                }
            }
        }
    }

    @Test("JSON in binary frames is read like text frames")
    func binaryFrames() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let update = #"{"jsonrpc":"2.0","method":"session/update","params":{"session_id":"B","update":{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"in binary"}}}}}"#
            _ = try await client.call("_sim/send_raw", params: ["frames": [.string(update)], "binary": true])
            while let notification = try await client.notifications.next(awaiting: "the update sent in a binary frame") {
                guard case .sessionUpdate(let received) = notification else { continue }
                #expect(received.sessionID == "B")
                #expect(received.update.summary.text == "in binary")
                break
            }
        }
    }
}
