import Foundation
import MirrorStore

/// A helper process for the store's crash tests: it writes to a mirror until it is killed.
///
///     oa-store-probe append DB PAGE_SIZE SESSIONS [STALL_AFTER_PAGES]
///
/// Appends pages of synthetic events, each page and the history cursor in one transaction,
/// continuing from the mirror's cursor, and prints `committed SEQ` after each commit.
/// With STALL_AFTER_PAGES = K, the page after the K-th stops dead at the moment it writes the
/// cursor — its events written, the transaction not committed — and prints `stalled`, so that a
/// test can kill it exactly between the statements.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("oa-store-probe: \(message)\n".utf8))
    exit(2)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let usage = "usage: oa-store-probe append DB PAGE_SIZE SESSIONS [STALL_AFTER_PAGES]"
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--help"] || arguments == ["-h"] {
    say("""
        oa-store-probe: a helper of the mirror store's crash tests, which kill it while it writes.

        \(usage)

        Appends pages of PAGE_SIZE synthetic events over SESSIONS sessions to the mirror DB, each
        page with the history cursor in one transaction, and prints "committed SEQ" after each
        commit, until it is killed. With STALL_AFTER_PAGES = K, the page after the K-th stops at the
        moment it writes the cursor, prints "stalled" and waits to be killed.

        Example: oa-store-probe append /tmp/probe.sqlite 300 10 3
        """)
    exit(0)
}
guard (4...5).contains(arguments.count), arguments[0] == "append",
      let pageSize = Int(arguments[2]), pageSize > 0,
      let sessionCount = Int(arguments[3]), sessionCount > 0
else { fail(usage) }
let stallAfterPages = arguments.count == 5 ? Int(arguments[4]) : nil

do {
    let store = try MirrorStore(path: arguments[1])
    let history = try store.histories().first
        ?? store.createHistory(identity: .bridge, historyID: "probe-history", desktop: "probe", bridgeURL: nil)
    var seq = history.cursor
    var pagesCommitted = 0
    while true {
        if let stallAfterPages, pagesCommitted == stallAfterPages {
            store.database.setUpdateHook { table in
                guard table == "histories" else { return }
                say("stalled")
                while true { pause() }
            }
        }
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
        try store.appendEvents(page, history: history.key, advancingHistoryCursorTo: seq)
        pagesCommitted += 1
        say("committed \(seq)")
    }
} catch {
    fail("\(error)")
}
