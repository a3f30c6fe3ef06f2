import Bridge
import MirrorStore
import ReadModel
import Secrets
import TestSupport
import ToolSupport
import Testing

/// A session read a part at a time (`MirrorViews.readConversation`, what `show` prints as it
/// reads) against the same session read whole (`sessionDocument`, what JSON and exports hold).
@Suite("A conversation read a part at a time", .endsWithin(.seconds(60)))
struct ConversationReadingTests {
    let mirror: MirrorFixture
    var store: MirrorStore { mirror.store }
    static let sessionID = "7A1E5C00-0034-4000-8000-000000000034"

    init() throws {
        mirror = try MirrorFixture()
        try store.upsertSessions([SessionRecord(sessionID: Self.sessionID, lastTS: 1_731_000_000_000)])
    }

    @Test("the parts' entries are the whole's, redacted alike, whatever the cuts; the first part comes before the end")
    func partsAreTheWhole() throws {
        var random = SplitMix64(seed: 34)
        let secrets = PlantedSecrets.all.prefix(4).map(\.value)
        var events: [NewEvent] = []
        for turn in 0..<60 {
            // Both encodings of updates, a turn each: the desktop's, and standard ACP's.
            let desktop = turn.isMultiple(of: 2)
            events.append(Self.chunk("user_message_chunk", "Prompt \(turn): check the build.", desktop: desktop))
            // A reply streamed in pieces of 1 to 6 bytes cut anywhere, a secret in it cut too.
            let reply = "Turn \(turn): the token is \(secrets[turn % secrets.count]) and the build is green.\n"
            var rest = Substring(reply)
            while !rest.isEmpty {
                let piece = rest.prefix(Int.random(in: 1...6, using: &random))
                rest = rest.dropFirst(piece.count)
                events.append(Self.chunk("agent_message_chunk", String(piece), desktop: desktop))
            }
            // Two calls at once, their updates interleaved, each ending with its output.
            events.append(Self.toolCall("call-\(turn)-a", desktop: desktop))
            events.append(Self.toolCall("call-\(turn)-b", desktop: desktop))
            events.append(Self.update("call-\(turn)-a", status: "in_progress", output: nil, desktop: desktop))
            events.append(Self.update("call-\(turn)-b", status: "completed", output: "b \(turn) saw \(secrets[(turn + 1) % secrets.count])",
                                      desktop: desktop))
            events.append(Self.update("call-\(turn)-a", status: "completed", output: String(repeating: "line \(turn)\n", count: turn % 7),
                                      desktop: desktop))
            events.append(Self.chunk("agent_thought_chunk", "thinking \(turn)", desktop: desktop))
        }
        try store.appendEvents(events)
        let views = MirrorViews(store: store, redaction: .redacted(try SecretDetector()))
        let session = try #require(try store.session(id: Self.sessionID))

        var parts: [[Conversation.Entry]] = []
        try views.readConversation(of: session) { parts.append($0) }
        let whole = try views.sessionDocument(session).entries
        #expect(parts.count > 1, "read in \(parts.count) part(s)")
        #expect(parts.flatMap { $0 } == whole)
        #expect(!whole.contains { if case .other = $0 { true } else { false } }, "both encodings read as what they are")
        #expect(!parts.flatMap { $0 }.contains { entry in secrets.contains { "\(entry)".contains($0) } })
    }

    @Test("an update of a call that comes after a later prompt stands alone where it comes")
    func lateUpdateStandsAlone() throws {
        var events = [Self.toolCall("call-1"), Self.update("call-1", status: "completed", output: "first")]
        events += (0..<100).map { Self.chunk($0.isMultiple(of: 2) ? "agent_message_chunk" : "user_message_chunk", "m\($0)") }
        events.append(Self.update("call-1", status: "completed", output: "late"))
        try store.appendEvents(events)
        let views = MirrorViews(store: store, redaction: .none)
        let session = try #require(try store.session(id: Self.sessionID))

        var read: [Conversation.Entry] = []
        try views.readConversation(of: session) { read += $0 }
        let whole = try views.sessionDocument(session).entries
        #expect(read.count == whole.count + 1)
        guard case .toolCall(let first)? = read.first, case .toolCall(let late)? = read.last else {
            Issue.record("the call, then its late update, expected: \(read.first.map { "\($0)" } ?? "none")")
            return
        }
        #expect(first.output == "first")
        #expect(late.callID == "call-1" && late.output == "late")
        #expect(Array(read.dropFirst().dropLast()) == Array(whole.dropFirst()))
    }

    @Test("updates of a call within its turn are merged into it, the first part's end between them")
    func updatesWithinATurn() throws {
        // The first part is 64 events: the call completes at its last, and is updated again at the
        // first of the next.
        var events = [Self.chunk("user_message_chunk", "Prompt"), Self.toolCall("call-1")]
        events += (0..<61).map { Self.chunk("agent_message_chunk", "w\($0) ") }
        events += [Self.update("call-1", status: "completed", output: "first"), Self.update("call-1", status: "completed", output: "more")]
        events += (0..<200).map { Self.chunk($0.isMultiple(of: 20) ? "user_message_chunk" : "agent_message_chunk", "m\($0) ") }
        try store.appendEvents(events)
        let views = MirrorViews(store: store, redaction: .none)
        let session = try #require(try store.session(id: Self.sessionID))

        var parts: [[Conversation.Entry]] = []
        try views.readConversation(of: session) { parts.append($0) }
        #expect(parts.count > 1, "read in \(parts.count) part(s)")
        #expect(parts.flatMap { $0 } == (try views.sessionDocument(session).entries))
    }

    @Test("a session without events hands nothing on")
    func noEvents() throws {
        let views = MirrorViews(store: store, redaction: .none)
        let session = try #require(try store.session(id: Self.sessionID))
        var calls = 0
        try views.readConversation(of: session) { _ in calls += 1 }
        #expect(calls == 0)
    }

    /// A chunk in standard ACP's encoding, or (`desktop`) in the desktop's, its block nested once more.
    static func chunk(_ kind: String, _ text: String, desktop: Bool = true) -> NewEvent {
        let block: JSONValue = ["type": "text", "text": .string(text)]
        return NewEvent(sessionID: sessionID, kind: kind, text: text,
                        updateJSON: JSONWriter.bytes(of: ["sessionUpdate": .string(kind), "content": desktop ? ["content": block] : block]))
    }

    static func toolCall(_ id: String, desktop: Bool = true) -> NewEvent {
        let json: JSONValue = desktop
            ? ["sessionUpdate": "tool_call", "tool_call": ["call_id": .string(id), "name": "Bash"]]
            : ["sessionUpdate": "tool_call", "toolCallId": .string(id), "title": "Bash", "kind": "execute", "status": "pending"]
        return NewEvent(sessionID: sessionID, kind: "tool_call", text: "", updateJSON: JSONWriter.bytes(of: json))
    }

    static func update(_ id: String, status: String, output: String?, desktop: Bool = true) -> NewEvent {
        var json: JSONValue
        if desktop {
            var update: JSONValue = ["call_id": .string(id), "status": .string(status)]
            if let output { update = ["call_id": .string(id), "status": .string(status), "output": ["stdout": .string(output)]] }
            json = ["sessionUpdate": "tool_call_update", "tool_call_update": update]
        } else {
            json = ["sessionUpdate": "tool_call_update", "toolCallId": .string(id), "status": .string(status)]
            if let output {
                json = ["sessionUpdate": "tool_call_update", "toolCallId": .string(id), "status": .string(status),
                        "content": [["type": "content", "content": ["type": "text", "text": .string(output)]]]]
            }
        }
        return NewEvent(sessionID: sessionID, kind: "tool_call_update", text: output ?? "", updateJSON: JSONWriter.bytes(of: json))
    }
}
