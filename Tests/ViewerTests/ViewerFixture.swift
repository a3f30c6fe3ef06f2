import Bridge
import Foundation
import MirrorStore
import TestSupport
import ToolSupport

/// The mirror the viewer's tests read: ordinary sessions, one long streamed one (replies cut into
/// chunks of a few characters), and a hostile one whose id, title, messages, tool name and tool
/// output carry payloads that would run a script, navigate the page away, or fetch from
/// `canary` (a port that must stay untouched), and an AWS key the secrets page must not show.
struct ViewerFixture {
    let fixture: MirrorFixture
    var path: String { fixture.path }
    var store: MirrorStore { fixture.store }

    static let plainSessions = 30
    static let longSessionID = "LONG-5E55-0000-4000-8000-000000000001"
    /// The long session's turns: a prompt, a streamed reply and a tool call each (300 for the
    /// browser's scrolling: enough that a page that kept every part would pass 5,000 elements).
    let longTurns: Int
    /// A word only the long session's last reply holds.
    static let searchWord = "zanzibarquux"
    static let awsKey = "AKIAQ3EGRTYB7CUVWXYZ"

    /// The hostile session's id: a script and a quote.
    static func hostileID(_ canary: Int) -> String {
        #"EVIL"><script>top.location='http://127.0.0.1:\#(canary)/id'</script>"#
    }

    /// The payloads: each would set the title to `pwned…`, navigate, or fetch from the canary.
    static func payload(_ place: String, canary: Int) -> String {
        #"<script>document.title='pwned by \#(place)';top.location='http://127.0.0.1:\#(canary)/\#(place)'</script>"#
            + #"<img src="http://127.0.0.1:\#(canary)/\#(place).png" onerror="document.title='pwned by \#(place) onerror'">"#
    }

    init(canary: Int, longTurns: Int = 60) throws {
        self.longTurns = longTurns
        fixture = try MirrorFixture()
        var time: Int64 = 1_730_000_000_000
        var events: [NewEvent] = []
        func add(_ sessionID: String, _ json: JSONValue, kind: String, text: String = "") {
            time += 1_000
            events.append(NewEvent(sessionID: sessionID, timestamp: time, kind: kind, text: text, updateJSON: JSONWriter.bytes(of: json)))
        }
        /// A chunk in standard ACP's encoding, or (`desktop`) in the desktop's, its block nested once more.
        func chunk(_ sessionID: String, _ kind: String, _ text: String, desktop: Bool = false) {
            let block: JSONValue = ["type": "text", "text": .string(text)]
            add(sessionID, ["sessionUpdate": .string(kind), "content": desktop ? ["content": block] : block], kind: kind, text: text)
        }
        /// `text` streamed as a desktop streams it: cut anywhere into pieces of 1 to 6 characters.
        func streamed(_ sessionID: String, _ kind: String, _ text: String, seed: Int) {
            var generator = SplitMix64(seed: UInt64(seed))
            var rest = Substring(text)
            while !rest.isEmpty {
                let size = Int(generator.next() % 6) + 1
                chunk(sessionID, kind, String(rest.prefix(size)))
                rest = rest.dropFirst(size)
            }
        }
        var records: [SessionRecord] = []
        for index in 0..<Self.plainSessions {
            let id = String(format: "PLAIN-%04d-4000-8000-000000000000", index)
            records.append(SessionRecord(sessionID: id, title: "Plain session \(index)", mode: "claude-code", lastTS: time + Int64(index)))
            chunk(id, "user_message_chunk", "Question \(index): why does the build fail?", desktop: index % 2 == 0)
            streamed(id, "agent_message_chunk", "Because the linker cannot find the library number \(index).", seed: index)
        }
        records.append(SessionRecord(sessionID: Self.longSessionID, title: "A long session", mode: "claude-code", lastTS: time + 1_000))
        for turn in 0..<longTurns {
            chunk(Self.longSessionID, "user_message_chunk", "Turn \(turn): go on with the refactoring of the reader.")
            streamed(Self.longSessionID, "agent_message_chunk",
                     "Turn \(turn) done: " + String(repeating: "the reader now keeps its buffer bounded. ", count: 8)
                        + (turn == longTurns - 1 ? Self.searchWord : ""), seed: 1_000 + turn)
            add(Self.longSessionID, ["sessionUpdate": "tool_call", "toolCallId": .string("call-\(turn)"), "title": "Bash", "kind": "execute",
                                     "status": "completed", "rawInput": ["command": "swift test"]], kind: "tool_call", text: "Bash")
        }
        let hostile = Self.hostileID(canary)
        records.append(SessionRecord(sessionID: hostile, title: "Title " + Self.payload("title", canary: canary), mode: "claude-code",
                                     lastTS: time + 2_000))
        chunk(hostile, "user_message_chunk", "Deploy with AWS_ACCESS_KEY_ID=\(Self.awsKey) please. hostileword " + Self.payload("message", canary: canary)
              + " [a link](javascript:document.title='pwned-by-link') ![an image](http://127.0.0.1:\(canary)/markdown.png)"
              + " <a href=\"http://127.0.0.1:\(canary)/anchor\">raw anchor</a>")
        add(hostile, ["sessionUpdate": "tool_call", "toolCallId": "call-evil", "title": .string("Tool " + Self.payload("tool", canary: canary)),
                      "kind": "execute", "status": "completed", "rawInput": ["command": .string(Self.payload("input", canary: canary))]],
            kind: "tool_call", text: "Tool")
        add(hostile, ["sessionUpdate": "tool_call_update", "toolCallId": "call-evil", "status": "completed",
                      "content": [["type": "content", "content": ["type": "text", "text": .string("Output " + Self.payload("output", canary: canary))]]]],
            kind: "tool_call_update", text: "Output " + Self.payload("output", canary: canary))
        try store.upsertSessions(records)
        try store.appendEvents(events)
    }

    /// Appends a reply to `sessionID`, streamed in chunks, as oa-sync would commit it: `text` in
    /// pieces of at most 6 characters, one commit per `perCommit` pieces.
    func appendReply(_ text: String, to sessionID: String, perCommit: Int = 4) throws {
        var pieces: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            pieces.append(String(rest.prefix(5)))
            rest = rest.dropFirst(5)
        }
        let writer = try MirrorStore(path: path)
        for start in stride(from: 0, to: pieces.count, by: perCommit) {
            try writer.appendEvents(pieces[start..<min(start + perCommit, pieces.count)].map { piece in
                NewEvent(sessionID: sessionID, timestamp: nil, kind: "agent_message_chunk", text: piece,
                         updateJSON: JSONWriter.bytes(of: ["sessionUpdate": "agent_message_chunk", "content": ["type": "text", "text": .string(piece)]]))
            })
        }
    }
}
