import Foundation
import MirrorStore
import TestSupport

/// A synthetic agent message event.
func messageEvent(_ session: String, seq: Int64? = nil, text: String, provisional: Bool = false) -> NewEvent {
    let json = #"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"\#(text)"}}}"#
    return NewEvent(
        sessionID: session,
        seq: seq,
        timestamp: seq.map { 1_731_000_000_000 + $0 },
        kind: "agent_message_chunk",
        text: text,
        updateJSON: Array(json.utf8),
        provisional: provisional
    )
}

/// An event that is an entry of its own whatever comes before or after it (a tool call), where
/// `messageEvent`s in a row join into one message: for tests of search over separate texts.
func entryEvent(_ session: String, seq: Int64? = nil, text: String, provisional: Bool = false) -> NewEvent {
    var event = messageEvent(session, seq: seq, text: text, provisional: provisional)
    event.kind = "tool_call"
    return event
}
