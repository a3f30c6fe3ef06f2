import Bridge
import Commands
import TestSupport
import Testing
@testable import MirrorStore

/// `follow`'s text, for changes a live session makes: chunks that continue a message, another
/// session cutting in, a tool call and its result, a refetch taking chunks back, a prompt's
/// states, a session made offline merged into the bridge's.
@Suite("follow's conversation view as events arrive", .endsWithin(.seconds(120)))
struct FollowRendererTests {
    private var nextID: Int64 = 0
    private var ordinals: [String: Int64] = [:]

    private mutating func event(_ session: String, _ update: JSONValue, provisional: Bool = false, local: Bool = false) -> FeedItem {
        nextID += 1
        let ordinal = ordinals[session, default: 0]
        ordinals[session] = ordinal + 1
        let bytes = JSONWriter.bytes(of: update)
        return .appended(TimelineEvent(
            eventID: nextID, sessionID: session, ordinal: ordinal, seq: nil, timestamp: nil,
            kind: update["sessionUpdate"]?.stringValue ?? "unknown", text: "", updateJSON: bytes,
            contentHash: ContentHash(of: bytes), provisional: provisional, origin: local ? .local : .server
        ))
    }

    private mutating func chunk(_ session: String, _ text: String, kind: UpdateKind = .agentMessageChunk,
                                provisional: Bool = false, local: Bool = false) -> FeedItem {
        event(session, ["sessionUpdate": .string(kind.rawValue), "content": ["content": ["type": "text", "text": .string(text)]]],
              provisional: provisional, local: local)
    }

    @Test("one session, then every session: golden")
    mutating func golden() throws {
        var transcript = ""
        for tags in [false, true] {
            nextID = 0
            ordinals = [:]
            var renderer = FollowRenderer(tagsSessions: tags)
            let batches: [[FeedItem]] = [
                [chunk("5f0c1a2b-aaaa", "Run the tests", kind: .userMessageChunk, local: true),
                 .outboxChanged(outboxID: 7, sessionID: "5f0c1a2b-aaaa", state: "sent")],
                [chunk("5f0c1a2b-aaaa", "Reading", kind: .agentThoughtChunk), chunk("5f0c1a2b-aaaa", "Looking "),
                 chunk("5f0c1a2b-aaaa", "at it\nnow. ")],
                tags ? [chunk("9e9e0000-bbbb", "Another session speaks")] : [],
                [chunk("5f0c1a2b-aaaa", "Still here. "),
                 event("5f0c1a2b-aaaa", ["sessionUpdate": "tool_call", "tool_call": ["call_id": "c1", "name": "Bash", "arguments": ["command": "swift test"]]]),
                 event("5f0c1a2b-aaaa", ["sessionUpdate": "tool_call_update", "tool_call_update": ["call_id": "c1", "status": "completed",
                                                                                                  "output": ["stdout": "All tests passed\n2 skipped"]]])],
                [chunk("5f0c1a2b-aaaa", "Live ", provisional: true), chunk("5f0c1a2b-aaaa", "and ", provisional: true),
                 chunk("5f0c1a2b-aaaa", "wrong", provisional: true)],
                [.removed(eventID: nextID - 1, sessionID: "5f0c1a2b-aaaa"), .removed(eventID: nextID, sessionID: "5f0c1a2b-aaaa"),
                 .confirmed(eventID: nextID - 2, sessionID: "5f0c1a2b-aaaa")],
                [chunk("5f0c1a2b-aaaa", "and right.")],
                [.sessionMerged(sessionID: "5f0c1a2b-aaaa", into: "0bd1e5e5-cccc")],
            ]
            transcript += "--- tagged: \(tags)\n"
            for items in batches where !items.isEmpty {
                transcript += renderer.render(items)
            }
            transcript += renderer.finish() + "\n"
        }
        try expectGolden(transcript, "follow-live.txt")
    }

    @Test("with colour, headings in their role's style and a failed tool call in red; the text as it came")
    mutating func colour() {
        var renderer = FollowRenderer(tagsSessions: false, palette: .colour)
        let text = renderer.render([
            chunk("5f0c", "Run it", kind: .userMessageChunk), chunk("5f0c", "Running"),
            event("5f0c", ["sessionUpdate": "tool_call_update", "tool_call_update": ["call_id": "c1", "status": "failed", "error": "exit 1"]]),
        ]) + renderer.finish()
        #expect(text == "\u{1B}[1;36m[0] user:\u{1B}[0m\n  Run it\n\u{1B}[1;32m[1] assistant:\u{1B}[0m\n  Running\n"
            + "\u{1B}[1;31m[2] tool tool (c1): failed\u{1B}[0m\n\u{1B}[31m  error: exit 1\u{1B}[0m\n")
    }
}
