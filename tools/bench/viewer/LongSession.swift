import Bridge
import Foundation
import MirrorStore
import ToolSupport

/// A session as long as the longest real ones: `events` events, replies streamed in pieces of 2 to
/// 12 characters, tool outputs with a long tail of sizes (most a few KB, some hundreds of KB, one
/// in ten megabytes), about a gigabyte in all; written into a mirror of its own.
enum LongSession {
    static let sessionID = "LONG-BENCH-0000-4000-8000-000000000000"

    /// Writes the session into a new mirror at `path`; returns its events' bytes of text.
    static func write(path: String, events target: Int) throws -> Int {
        let store = try MirrorStore(path: path)
        try store.upsertSessions([SessionRecord(sessionID: sessionID, title: "A very long session", mode: "claude-code")], history: nil)
        var random = SplitMix64(seed: 42)
        var time: Int64 = 1_731_000_000_000
        var page: [NewEvent] = []
        var pageBytes = 0
        var written = 0
        var bytes = 0
        func add(_ kind: String, _ json: JSONValue, text: String) throws {
            time += 100
            page.append(NewEvent(sessionID: sessionID, timestamp: time, kind: kind, text: text, updateJSON: JSONWriter.bytes(of: json)))
            pageBytes += text.utf8.count
            written += 1
            bytes += text.utf8.count
            if page.count == 5_000 || pageBytes > 32 << 20 {
                _ = try store.appendEvents(page, history: nil)
                page = []
                pageBytes = 0
            }
        }
        let words = ["the", "reader", "buffer", "bounded", "socket", "frame", "commit", "mirror", "session", "parser", "test", "build"]
        var turn = 0
        while written < target {
            turn += 1
            let prompt = "Turn \(turn): please go on with the refactoring."
            try add("user_message_chunk", ["sessionUpdate": "user_message_chunk", "content": ["type": "text", "text": .string(prompt)]], text: prompt)
            var reply = (0..<40).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")[...]
            while !reply.isEmpty, written < target {
                let size = Int(random.next() % 11) + 2
                let piece = String(reply.prefix(size))
                reply = reply.dropFirst(size)
                try add("agent_message_chunk", ["sessionUpdate": "agent_message_chunk", "content": ["type": "text", "text": .string(piece)]], text: piece)
            }
            let call = "call-\(turn)"
            try add("tool_call", ["sessionUpdate": "tool_call", "toolCallId": .string(call), "title": "Bash", "kind": "execute", "status": "in_progress",
                                  "rawInput": ["command": "swift build"]], text: "Bash")
            let output = Self.output(size: Self.outputSize(&random), turn: turn)
            try add("tool_call_update", ["sessionUpdate": "tool_call_update", "toolCallId": .string(call), "status": "completed",
                                         "content": [["type": "content", "content": ["type": "text", "text": .string(output)]]]], text: output)
        }
        if !page.isEmpty { _ = try store.appendEvents(page, history: nil) }
        return bytes
    }

    /// Most a few KB, 3 in 10 tens to hundreds of KB, 1 in 10 two to four MB.
    private static func outputSize(_ random: inout SplitMix64) -> Int {
        switch random.next() % 10 {
        case 0: Int(2_000_000 + random.next() % 2_000_000)
        case 1, 2, 3: Int(50_000 + random.next() % 250_000)
        default: Int(1_000 + random.next() % 7_000)
        }
    }

    private static func output(size: Int, turn: Int) -> String {
        var text = ""
        text.reserveCapacity(size + 80)
        var line = 0
        while text.utf8.count < size {
            line += 1
            text += "[\(turn):\(line)] Compiling module Reader\(line % 97) (\(line * 7 % 1_000) ms) ok\n"
        }
        return text
    }
}
