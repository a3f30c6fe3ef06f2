import Foundation
import MirrorStore

/// A helper process for the store's crash tests: it writes to a mirror until it is killed.
///
///     oa-store-probe append DB PAGE_SIZE SESSIONS
///
/// Appends pages of synthetic events, each page and the history cursor in one transaction,
/// continuing from the mirror's cursor, and prints `committed SEQ` after each commit.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("oa-store-probe: \(message)\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 4, arguments[0] == "append",
      let pageSize = Int(arguments[2]), pageSize > 0,
      let sessionCount = Int(arguments[3]), sessionCount > 0
else { fail("usage: oa-store-probe append DB PAGE_SIZE SESSIONS") }

do {
    let store = try MirrorStore(path: arguments[1])
    var seq = try store.historyCursor()
    while true {
        let page = (1...pageSize).map { offset -> NewEvent in
            let eventSeq = seq + Int64(offset)
            let text = "probe event \(eventSeq) in a page of \(pageSize)"
            return NewEvent(
                sessionID: "probe-session-\(eventSeq % Int64(sessionCount))",
                seq: eventSeq,
                timestamp: 1_731_000_000_000 + eventSeq,
                kind: "agent_message_chunk",
                text: text,
                updateJSON: Array(#"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"\#(text)"}}}"#.utf8)
            )
        }
        seq += Int64(pageSize)
        try store.appendEvents(page, advancingHistoryCursorTo: seq)
        FileHandle.standardOutput.write(Data("committed \(seq)\n".utf8))
    }
} catch {
    fail("\(error)")
}
