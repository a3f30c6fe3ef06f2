import Foundation
import MirrorStore
import TestSupport
import Testing
import ToolSupport

/// 100,000 random and malformed lines into `oa-repl --jsonl`.
@Suite("oa-repl --jsonl under garbage", .startsPrograms(endsWithin: .seconds(300)))
struct JSONLinesFuzzTests {
    /// A line and whether the JSON-lines mode must answer it.
    struct Line {
        var text: String
        var answered: Bool
    }

    /// Lines of every kind: garbage, truncated JSON, JSON that is not a request, requests with odd
    /// ids, params and methods, notifications, blank lines. None could succeed in writing.
    static func lines(count: Int, seed: UInt64) -> [Line] {
        var random = SplitMix64(seed: seed)
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        let methods = ["sessions.list", "threads.list", "sessions.show", "search", "status", "outbox.list", "methods",
                       "prompt.enqueue", "outbox.retry", "outbox.drop", "export.markdown", "nope", "", "sessions"]
        let params = [
            "", #","params":{}"#, #","params":{"limit":"x"}"#, #","params":{"limit":-4}"#, #","params":[1,2]"#,
            #","params":{"session_id":"zzzz"}"#, #","params":{"session_id":9}"#, #","params":{"query":""}"#,
            #","params":{"text":"no session"}"#, #","params":{"session_id":"9","text":"ambiguous"}"#,
            #","params":{"id":99999}"#, #","params":{"id":"x"}"#, #","params":{"session_id":"798c","path":"/proc/forbidden/x.md"}"#,
            #","params":{"unknown":true}"#, #","params":null"#,
        ]
        let ids = ["1", "\"a\"", "null", "-7", "1.5", "\"\"", "{}", "[]", "true"]
        var lines: [Line] = []
        for index in 0..<count {
            switch random.next() % 10 {
            case 0:
                let length = Int(random.next() % 60)
                let garbage = String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(33 + random.next() % 90))) })
                lines.append(Line(text: "x" + garbage.replacing("\n", with: " "), answered: true))
            case 1:
                let full = #"{"jsonrpc":"2.0","id":\#(index),"method":"sessions.list","params":{"limit":2}}"#
                lines.append(Line(text: String(full.prefix(1 + Int(random.next() % UInt64(full.count - 2)))), answered: true))
            case 2:
                lines.append(Line(text: pick(["[]", "[1,2,3]", "42", "\"a string\"", "true", "null", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"}]"]),
                                  answered: true))
            case 3:
                lines.append(Line(text: #"{"jsonrpc":"2.0","method":"\#(pick(methods))"\#(pick(params))}"#, answered: false))
            case 4:
                lines.append(Line(text: pick(["", "   ", "\t"]), answered: false))
            case 5:
                lines.append(Line(text: #"{"jsonrpc":"\#(pick(["1.0", "2.0", "3"]))","id":\#(pick(ids)),"method":"\#(pick(methods))"\#(pick(params))}"#,
                                  answered: true))
            case 6:
                lines.append(Line(text: #"{"id":\#(index),"method":"status"}"#, answered: true))
            case 7:
                lines.append(Line(text: String(repeating: "[", count: Int(random.next() % 2000)) + "1", answered: true))
            case 8:
                lines.append(Line(text: #"{"jsonrpc":"2.0","id":\#(index),"method":"\#(pick(methods))","params":{"session_id":"\#(pick(["6410", "798c", "nope", "9"]))","raw":\#(pick(["true", "1", "\"yes\""]))}}"#,
                                  answered: true))
            default:
                lines.append(Line(text: #"{"jsonrpc":"2.0","id":"s\#(index)","method":"\#(pick(methods))"\#(pick(params))}"#, answered: true))
            }
        }
        return lines
    }

    @Test("one answer for each line with an id or that is not JSON, no crash, nothing written")
    func garbage() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let before = try fingerprint(mirror)
        let lines = Self.lines(count: 100_000, seed: 2026)
        let input = Data((lines.map(\.text).joined(separator: "\n") + "\n").utf8)
        let outcome = try await ReplProcess.run(["--db", mirror, "--jsonl", "--bridge", "ws://127.0.0.1:9"], input: input)
        #expect(outcome.status == 0, "EOF ends the stream with exit 0")
        let answers = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(answers.count == lines.filter(\.answered).count)
        let unparsable = answers.filter { answer in
            guard let data = answer.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return true }
            return object["jsonrpc"] as? String != "2.0" || (object["result"] == nil) == (object["error"] == nil)
        }
        #expect(unparsable.isEmpty, "every answer is one JSON-RPC response: \(unparsable.prefix(3))")
        #expect(try fingerprint(mirror) == before, "nothing written by the failing commands")
    }

    /// What the mirror holds, in a form that changes with any write.
    private func fingerprint(_ path: String) throws -> [Int64] {
        let store = try MirrorStore(path: path, mode: .readOnly)
        return try ["SELECT count(*) FROM events", "SELECT count(*) FROM sessions", "SELECT count(*) FROM outbox",
                    "SELECT coalesce(max(event_id), 0) FROM events", "SELECT value FROM counters WHERE name = 'event_id'",
                    "SELECT count(*) FROM desktop_status"].map { try store.database.scalarInt64($0) ?? -1 }
    }
}
