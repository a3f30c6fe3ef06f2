import Foundation
import TestSupport
import Testing
@testable import Bridge

/// The client against the simulator, over loopback WebSocket, in both flavours.
@Suite("Bridge client against the simulator", .startsPrograms(endsWithin: .seconds(120)))
struct BridgeClientTests {
    static let flavors = ["stock", "cursor"]

    /// A simulator serving a copy of the sample desktop history.
    func sampleSimulator(_ flavor: String, in directory: TemporaryDirectory) async throws -> SimulatorProcess {
        try await SimulatorProcess(flavor: flavor, database: try SimulatorProcess.sampleDatabase(in: directory))
    }

    @Test("the handshake reads the bridge's capabilities", arguments: flavors)
    func handshake(flavor: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator(flavor, in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let capabilities = await client.capabilities
            #expect(capabilities.protocolVersion == "0.2.2")
            #expect(capabilities.hasHistoryCursor == (flavor == "cursor"))
            #expect(capabilities.pipelining == (flavor == "cursor"))
        }
    }

    @Test("history methods serve the sample database", arguments: flavors)
    func historyMethods(flavor: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator(flavor, in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let recent = try await client.recentSessions()
            #expect(recent.count == 10, "a stock bridge lists the 10 most recent sessions only")
            #expect(recent.map(\.lastTS) == recent.map(\.lastTS).sorted(by: >))

            // 798C06FE holds two rows in older shapes that the stock server can no longer decode.
            let oldShapes = "798C06FE-0494-B6D2-EC70-38C908FB09A0"
            let timeline = try await client.sessionTimeline(sessionID: oldShapes)
            let count = try #require(recent.first { $0.sessionID == oldShapes }?.messageCount)
            #expect(timeline.count == Int(count) - 2)
            #expect(timeline.first?.update.summary == UpdateSummary(kind: .currentModeUpdate, text: "claude-code"))
            #expect(try await client.sessionTimeline(sessionID: oldShapes, limit: 3).count == 3)
            #expect(try await client.sessionTimeline(sessionID: "no-such-session").isEmpty)
            await #expect(throws: BridgeError.server(method: BridgeMethod.sessionTimeline,
                                                     error: JSONRPCError(code: -32602, message: "Missing required parameter: session_id"))) {
                try await client.call(BridgeMethod.sessionTimeline, params: [:])
            }

            let threads = try await client.threads(topK: 3)
            #expect(threads.count == 3)
            #expect(try await client.threads(topK: 50).count == 10, "topK is clamped to 10")
        }
    }

    @Test("the history-cursor extension pages every event and lists every session")
    func cursorExtension() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("cursor", in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            var seqs: [Int64] = []
            var since: Int64 = 0
            var pages = 0
            while true {
                let page = try await client.historyChanges(since: since, limit: 100)
                seqs += page.items.map(\.seq)
                since = page.next
                pages += 1
                if !page.hasMore { break }
            }
            #expect(seqs == Array(1...299))
            #expect(pages == 3)
            let sessions = try await client.historySessions()
            #expect(sessions.items.count == 12, "every session, not just 10")
            #expect(sessions.next == nil)
            #expect(sessions.items.reduce(0) { $0 + ($1.messageCount ?? 0) } == 299)
            let firstPage = try await client.historySessions(limit: 5)
            #expect(firstPage.items.count == 5)
            let secondPage = try await client.historySessions(after: firstPage.next, limit: 100)
            #expect(secondPage.items.count == 7)
        }
    }

    @Test("a page read whole takes its chunks apart without their tree, and reads as the tree reads it")
    func pageWithoutTree() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("cursor", in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            guard case .whole(let page) = try await client.historyChangesInParts(since: 0, limit: 300, maxBytes: nil, timeout: nil) else {
                Issue.record("a page of 299 small events read in parts")
                return
            }
            let (result, frame) = try await client.call(BridgeMethod.historyChanges, params: ["since": 0, "limit": 300])
            let fromTree = try WireDecoding.changes(result, frame: frame, since: 0)
            #expect(page.items.count == 299 && page.items == fromTree.items && page.next == fromTree.next && page.hasMore == fromTree.hasMore)
            #expect(page.items.map(\.update.summary) == fromTree.items.map(\.update.summary))
            let withoutTree = page.items.filter(\.update.isReadWithoutTree)
            #expect(withoutTree.count > 100 && withoutTree.count < 299, "chunks without their tree, the other kinds with")
            #expect(withoutTree.allSatisfy { [.userMessageChunk, .agentMessageChunk, .agentThoughtChunk].contains($0.update.summary.kind) })
        }
    }

    @Test("max_bytes: a page ends with the event that reaches the budget, never empty; a bridge without the flag ignores it")
    func pageByteBudget() async throws {
        let directory = try TemporaryDirectory()
        let database = try SimulatorProcess.sampleDatabase(in: directory)
        let offering = try await SimulatorProcess(flavor: "cursor", database: database)
        let whole = try await BridgeClient.withConnection(to: offering.url, options: .forTests) { client in
            #expect(await client.capabilities.historyMaxBytes)
            let whole = try await client.historyChanges(since: 0, limit: 100)
            #expect(whole.items.count == 100)
            let sizes = whole.items.map(\.update.rawBytes.count)

            let one = try await client.historyChanges(since: 0, limit: 100, maxBytes: 1)
            #expect(one.items.map(\.seq) == [1], "a budget below the first event's size still gives that event")
            #expect(one.next == 1 && one.hasMore)
            // Past the second event's end by one byte: the third event crosses the budget and ends the page.
            let three = try await client.historyChanges(since: 0, limit: 100, maxBytes: sizes[0] + sizes[1] + 1)
            #expect(three.items == Array(whole.items.prefix(3)))
            #expect(three.next == 3 && three.hasMore)
            let exact = try await client.historyChanges(since: 3, limit: 100, maxBytes: sizes[3] + sizes[4])
            #expect(exact.items.map(\.seq) == [4, 5], "the event that brings the page to the budget exactly ends it")
            await #expect(throws: BridgeError.self) { try await client.call(BridgeMethod.historyChanges, params: ["since": 0, "max_bytes": 0]) }
            return whole
        }
        await offering.kill()

        let plain = try await SimulatorProcess(flavor: "cursor", database: database, extraArguments: ["--no-max-bytes"])
        try await BridgeClient.withConnection(to: plain.url, options: .forTests) { client in
            #expect(await !client.capabilities.historyMaxBytes)
            let page = try await client.historyChanges(since: 0, limit: 100, maxBytes: 1)
            #expect(page.items == whole.items, "max_bytes ignored")
        }
    }

    @Test("session methods behave like the desktop's, and their updates arrive", arguments: flavors)
    func sessionMethods(flavor: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator(flavor, in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let updates = client.notifications
            let sessionID = try await client.newSession()
            #expect(UUID(uuidString: sessionID) != nil)
            guard case .sessionUpdate(let mode) = try await updates.next(awaiting: "the mode update after session/new") else {
                Issue.record("no mode update after session/new")
                return
            }
            #expect(mode.sessionID == sessionID)
            #expect(mode.update.summary.kind == .currentModeUpdate)
            #expect((mode.seq != nil) == (flavor == "cursor"))

            let accepted = try await client.prompt(sessionID: sessionID, text: "Run the tests")
            #expect(accepted == PromptAccepted(status: "started", duplicate: false))
            var kinds: [UpdateKind] = []
            while kinds.count < 6, case .sessionUpdate(let update)? = try await updates.next(awaiting: "the prompt's updates") {
                kinds.append(update.update.summary.kind)
            }
            #expect(kinds == [.agentThoughtChunk, .agentMessageChunk, .agentMessageChunk, .toolCall, .toolCallUpdate, .agentMessageChunk])

            await #expect(throws: BridgeError.server(method: BridgeMethod.sessionPrompt, error: JSONRPCError(code: -32602, message: "Empty prompt"))) {
                try await client.prompt(sessionID: sessionID, text: "")
            }
            #expect(try await client.cancel(sessionID: sessionID) == "no_active_session")
            try await client.setMode(sessionID: sessionID, modeID: "claude-code")
            guard case .sessionUpdate(let newMode) = try await updates.next(awaiting: "the mode update after set_mode") else {
                Issue.record("no mode update after set_mode")
                return
            }
            #expect(newMode.update.summary == UpdateSummary(kind: .currentModeUpdate, text: "claude-code"))
        }
    }

    @Test("a repeated client_message_id is run once (cursor flavour)")
    func idempotentPrompt() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("cursor", in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let session = try await client.newSession()
            let first = try await client.prompt(sessionID: session, text: "once", clientMessageID: "cm-1")
            let again = try await client.prompt(sessionID: session, text: "once", clientMessageID: "cm-1")
            #expect(first.duplicate == false)
            #expect(again == PromptAccepted(status: "started", duplicate: true))
            try await SimulatorControl.withConnection(to: simulator.url) { control async throws in
                #expect(try await control.call("prompts")["prompts"]?.arrayValue?.count == 1)
            }
        }
    }

    @Test("a method the bridge ignores times out, and the client goes on", arguments: flavors)
    func ignoredMethodTimesOut(flavor: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator(flavor, in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client async throws in
            await #expect(throws: BridgeError.timedOut(method: "tinyvex/history.deleteSession", after: .milliseconds(300))) {
                try await client.call("tinyvex/history.deleteSession", params: ["session_id": "x"], timeout: .milliseconds(300))
            }
            if flavor == "stock" {
                await #expect(throws: BridgeError.timedOut(method: BridgeMethod.historyChanges, after: .milliseconds(300))) {
                    try await client.historyChanges(since: 0, timeout: .milliseconds(300))
                }
            }
            #expect(try await client.recentSessions().count == 10)
        }
    }

    @Test("a dropped connection fails every waiting request at once", arguments: flavors)
    func droppedConnection(flavor: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator(flavor, in: directory)
        // Requests that would wait 100 s: failing well before that is failing with the socket, even
        // on a loaded machine.
        let options = BridgeClientOptions(firstHandshakeTimeout: .seconds(30), requestTimeout: .seconds(100))
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await BridgeClient.withConnection(to: simulator.url, options: options) { client in
                try await control.call("set_reply_delay", ["ms": 180_000])
                let started = ContinuousClock.now
                let waiting = Task { try await client.recentSessions() }
                let alsoWaiting = Task { try await client.threads() }
                try await waitFor("a request to reach the bridge before the drop", look: { try await control.call("stats")["in_flight"]?.int64Value ?? 0 },
                                  until: { $0 >= 1 })
                try await control.call("drop_connections")
                await #expect(throws: BridgeError.self) { _ = try await waiting.value(awaiting: "the first request's failure") }
                await #expect(throws: BridgeError.self) { _ = try await alsoWaiting.value(awaiting: "the second request's failure") }
                #expect(ContinuousClock.now - started < .seconds(50), "they fail when the socket dies, not at their timeout")
                #expect(await client.isClosed)
                await #expect(throws: BridgeError.self) { try await client.recentSessions() }
                try await control.call("set_reply_delay", ["ms": 0])
            }
        }
    }

    @Test("notifications arrive in order", arguments: flavors)
    func notificationsInOrder(flavor: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator(flavor, in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            try await SimulatorControl.withConnection(to: simulator.url) { control in
                let texts = (0..<300).map { "chunk \($0)" }
                let seqs = try await control.append("ORDER", texts.map { SimulatorControl.chunk($0) })
                var received: [SessionUpdateNotification] = []
                while let notification = try await client.notifications.next(awaiting: "update \(received.count + 1) of \(texts.count)") {
                    if case .sessionUpdate(let update) = notification { received.append(update) }
                    if received.count == texts.count { break }
                }
                #expect(received.map(\.update.summary.text) == texts)
                if flavor == "cursor" {
                    #expect(received.map(\.seq) == seqs.map { Optional($0) })
                }
            }
        }
    }

    @Test("a 20 MiB timeline comes in one frame and decodes")
    func largeTimeline() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        let piece = String(repeating: "0123456789abcdef", count: 65_536)
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            for index in 0..<21 {
                try await control.append("BIG", [SimulatorControl.chunk("\(index) " + piece)])
            }
        }
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let (result, frame) = try await client.call(BridgeMethod.sessionTimeline, params: ["session_id": "BIG"], timeout: .seconds(60))
            #expect(frame.bytes.count > 20 << 20)
            let items = try #require(result.arrayValue)
            #expect(items.count == 21)
            let timeline = try await client.sessionTimeline(sessionID: "BIG", timeout: .seconds(60))
            #expect(timeline.map { $0.update.summary.text.count } == Array(repeating: piece.count + 2, count: 10)
                    + Array(repeating: piece.count + 3, count: 11))
        }
    }

    @Test("garbage frames neither crash nor wedge the client", arguments: flavors)
    func garbageFrames(flavor: String) async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator(flavor, in: directory)
        try await BridgeClient.withConnection(to: simulator.url, options: .forTests) { client in
            let garbage = [
                "not json at all", "[1,2,3]", "[]", "null", "\"just a string\"", #"{"jsonrpc":"2.0"}"#,
                #"{"jsonrpc":"2.0","id":{"x":1},"result":1}"#, #"{"jsonrpc":"2.0","method":12}"#,
                #"{"jsonrpc":"2.0","id":"nobody-asked","result":{}}"#, #"{"jsonrpc":"2.0","method":"session/update","params":"wrong"}"#,
                #"{"jsonrpc":"2.0","method":"session/update","params":{"session_id":5,"update":[]}}"#,
                "{\"jsonrpc\":\"2.0\",\"result\":\"" + String(repeating: "x", count: 5 << 20) + "\"}",
                String(repeating: "[", count: 200_000),
            ]
            let (result, _) = try await client.call("_sim/send_raw", params: ["frames": .array(garbage.map { .string($0) })])
            #expect(result["sent"]?.int64Value == Int64(garbage.count))
            // Frames are handled in order: once this answer is in, every garbage frame was read.
            #expect(try await client.recentSessions().count == 10)
            #expect(await client.malformedFrameCount == 10)
            var others = 0
            try await SimulatorControl.withConnection(to: simulator.url) { control in
                try await control.append("AFTER", [SimulatorControl.chunk("still alive")])
                while let notification = try await client.notifications.next(awaiting: "the update after the garbage") {
                    if case .sessionUpdate(let update) = notification {
                        #expect(update.update.summary.text == "still alive")
                        break
                    }
                    others += 1
                }
            }
            #expect(others == 2, "notifications the client cannot read as updates are passed on as they are")
        }
    }

    @Test("the stock bridge is silent until initialize, and echoes integer-like ids as numbers")
    func silenceBeforeInitialize() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        let answers = try await WebSocketConnection.withConnection(
            url: simulator.url, maximumMessageSize: 1 << 20, maximumStreamedSize: 1 << 20, keepaliveInterval: nil, closeTimeout: .seconds(15),
            openDeadline: .now + .seconds(20), logger: .init(label: "test")
        ) { connection in
            try await connection.send(Array(#"{"jsonrpc":"2.0","id":"early","method":"tinyvex/history.recentSessions","params":{}}"#.utf8))
            try await connection.send(Array(#"{"jsonrpc":"2.0","id":"42","method":"initialize","params":{}}"#.utf8))
            try await connection.send(Array(#"{"jsonrpc":"2.0","method":"session/cancel","params":{"session_id":"x"}}"#.utf8))
            try await connection.send(Array(#"{"jsonrpc":"2.0","id":"007","method":"threads/list","params":{"topK":1}}"#.utf8))
            var answers: [String] = []
            while let event = try await connection.inbound.next(awaiting: "answer \(answers.count + 1) of 2") {
                guard case .message(let bytes) = event else { break }
                answers.append(String(decoding: JSONWriter.bytes(of: try Frame(bytes: bytes).json["id"] ?? .null), as: UTF8.self))
                if answers.count == 2 { break }
            }
            return answers
        }
        #expect(answers == ["42", "7"], "no answer to the early request or the notification; numeric-looking ids echo as numbers")
    }

    @Test("an unreachable bridge and a bad URL fail with clear errors")
    func connectionErrors() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await sampleSimulator("stock", in: directory)
        let url = simulator.url
        await simulator.kill()
        // The handshake timeout runs from the call: the test machine's long one, so that a loaded
        // machine reads the refusal before it passes.
        let error = await #expect(throws: BridgeError.self) { try await BridgeClient.withConnection(to: url, options: .forTests) { _ in } }
        if case .connectionFailed(let failedURL, _)? = error { #expect(failedURL == url) } else { Issue.record("got \(String(describing: error))") }
        await #expect(throws: BridgeError.invalidURL("http://127.0.0.1:1")) {
            try await BridgeClient.withConnection(to: "http://127.0.0.1:1") { _ in }
        }
    }
}
