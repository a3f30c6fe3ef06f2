import Bridge
@testable import Commands
@testable import ReadModel
@testable import MirrorStore
import Secrets
import TestSupport
import Testing

/// A tool call as the conversation holds it, from updates of either encoding: what each update
/// adds or replaces, and how its diffs read.
@Suite("Tool calls in the conversation", .endsWithin(.seconds(60)))
struct ToolCallEntryTests {
    private func conversation(_ updates: [String]) -> [Conversation.Entry] {
        Conversation(events: updates.enumerated().map { index, json in
            let bytes = Array(json.utf8)
            return TimelineEvent(eventID: Int64(index + 1), sessionID: "s", ordinal: Int64(index + 1), seq: nil, timestamp: nil,
                                 kind: SessionUpdate(rawBytes: bytes).summary.tag, text: "", updateJSON: bytes,
                                 contentHash: ContentHash(of: bytes), provisional: false, origin: .server)
        }).entries
    }

    @Test("ACP: an update's content replaces the call's, its rawOutput stands in when there is none; a title renames it")
    func acpUpdates() throws {
        let entries = conversation([
            #"{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit a.swift","kind":"edit","status":"pending","rawInput":{"path":"a.swift"},"content":[{"type":"diff","path":"a.swift","oldText":"a","newText":"b"}]}"#,
            #"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Editing"}}"#,
            #"{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress","content":[{"type":"content","content":{"type":"text","text":"half"}}]}"#,
            #"{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","title":"Edited a.swift","content":[{"type":"content","content":{"type":"text","text":"done"}}]}"#,
            #"{"sessionUpdate":"tool_call_update","toolCallId":"t2","status":"failed","rawOutput":{"stderr":"denied"}}"#,
            #"{"sessionUpdate":"tool_call_update","toolCallId":"t1","rawInput":{"path":"a.swift","line":3}}"#,
        ])
        guard case .toolCall(let edit) = entries.first, case .toolCall(let denied) = entries.last else { Issue.record("\(entries)"); return }
        #expect(edit.name == "Edited a.swift" && edit.kind == "edit" && edit.status == "completed" && edit.arguments == #"{"path":"a.swift","line":3}"#, "rawInput sent again replaces it")
        #expect(edit.output == "done", "the last content replaces what came before")
        #expect(edit.diffs.isEmpty, "replaced by content without a diff")
        #expect(denied.output == "denied" && denied.failed)
        #expect(entries.count == 3)
    }

    @Test("the desktop's encoding: outputs add up; an update before its call is an entry of its own")
    func desktopUpdates() {
        let entries = conversation([
            #"{"sessionUpdate":"tool_call","tool_call":{"call_id":"c1","name":"Bash","arguments":{"command":"ls"}}}"#,
            #"{"sessionUpdate":"tool_call_update","tool_call_update":{"call_id":"c1","status":"started","output":{"stdout":"a"}}}"#,
            #"{"sessionUpdate":"tool_call_update","tool_call_update":{"call_id":"c1","status":"completed","output":{"stdout":"b"}}}"#,
        ])
        guard case .toolCall(let call) = entries.first else { Issue.record("\(entries)"); return }
        #expect(call.output == "a\nb" && call.status == "completed" && call.kind == nil && !call.failed)
    }

    @Test("a diff shows in Markdown as a fenced unified diff, and a session title as a line")
    func markdown() {
        let entries = conversation([
            #"{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Write n.txt","kind":"edit","content":[{"type":"diff","path":"n.txt","newText":"hello"}]}"#,
            #"{"sessionUpdate":"session_info_update","title":"A new file"}"#,
            #"{"sessionUpdate":"session_info_update","updatedAt":"2026-11-27T10:00:00Z"}"#,
        ])
        #expect(entries.count == 2, "session information without a title says nothing to a reader")
        #expect(MarkdownExport.render(entries[0]) == [
            "**Tool call** `Write n.txt` (`t1`, `edit`)", "", "Diff of `n.txt`:", "```diff", "--- /dev/null", "+++ b/n.txt", "@@ -0,0 +1,1 @@", "+hello", "\\ No newline at end of file", "```",
        ])
        #expect(MarkdownExport.render(entries[1]) == ["_Session title: A new file_"])
        #expect(MarkdownExport.inlineCode("Run `ls`\nnow") == "``Run `ls` now``", "a title's backticks and line breaks keep its code span whole")
        #expect(MarkdownExport.inlineCode("`x`") == "`` `x` ``")
    }

    @Test("a secret in a diff, its path or a session title is redacted")
    func redacted() throws {
        let secret = try #require(PlantedSecrets.all.first { $0.kind == "github_token" })
        let entries = conversation([
            #"{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run \#(secret.line)","kind":"\#(secret.value)","content":[{"type":"diff","path":"/tmp/\#(secret.value)","oldText":"\#(secret.line)","newText":"x \#(secret.value)"}]}"#,
            #"{"sessionUpdate":"session_info_update","title":"\#(secret.line)"}"#,
        ])
        let redacted = Conversation(entries: entries).redacted(by: Redactor(detector: try SecretDetector()))
        let text = redacted.entries.flatMap(MarkdownExport.render).joined(separator: "\n")
        #expect(!text.contains(secret.value), "\(text)")
        #expect(text.contains("[REDACTED:github_token#1]"), "\(text)")
    }

    @Test("a diff as a unified diff: context around the lines that differ; a new file from /dev/null")
    func unifiedDiff() {
        let old = (1...10).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let new = old.replacing("line 6\n", with: "line six\nline 6b\n")
        #expect(FileDiff(path: "a.txt", oldText: old, newText: new).unifiedLines == [
            "--- a/a.txt", "+++ b/a.txt", "@@ -3,7 +3,8 @@",
            " line 3", " line 4", " line 5", "-line 6", "+line six", "+line 6b", " line 7", " line 8", " line 9",
        ])
        #expect(FileDiff(path: "n.txt", oldText: nil, newText: "a\nb").unifiedLines
            == ["--- /dev/null", "+++ b/n.txt", "@@ -0,0 +1,2 @@", "+a", "+b", "\\ No newline at end of file"])
        #expect(FileDiff(path: "d.txt", oldText: "a\nb\n", newText: "").unifiedLines == ["--- a/d.txt", "+++ b/d.txt", "@@ -1,2 +0,0 @@", "-a", "-b"])
        #expect(FileDiff(path: "s.txt", oldText: "same", newText: "same").unifiedLines == ["--- a/s.txt", "+++ b/s.txt"])
        #expect(FileDiff(path: "e.txt", oldText: "a\nb", newText: "a\nb\n").unifiedLines
            == ["--- a/e.txt", "+++ b/e.txt", "@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file", "+b"], "a final line feed added")
        #expect(FileDiff(path: "w.txt", oldText: "one\r\ntwo\r\n", newText: "one\r\n2\r\n").unifiedLines
            == ["--- a/w.txt", "+++ b/w.txt", "@@ -1,2 +1,2 @@", " one\r", "-two\r", "+2\r"], "CRLF lines are lines")
        #expect(FileDiff(path: "u.txt", oldText: "caf\u{E9}\n", newText: "cafe\u{301}\n").unifiedLines.count == 5,
                "texts that differ only in normalization differ")
    }
}
