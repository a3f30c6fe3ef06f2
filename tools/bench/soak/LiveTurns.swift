import Foundation
import Bridge
import ToolSupport

/// One session's live updates as an agent streams them, for the soak: either turns that end as
/// real ones do (a prompt; thinking and a reply of one to three paragraphs in pieces of 2–12
/// characters; a tool call and its output, whose size has a long tail), in the desktop's encoding
/// and standard ACP's by turns, or one reply that never ends.
struct LiveTurns {
    enum Kind {
        case endingTurns
        case endlessReply
    }

    private enum Phase {
        case prompt, thought, reply(paragraphsLeft: Int), call, output
    }

    private let kind: Kind
    private var phase = Phase.prompt
    private var text = StreamedText()
    private var random: SplitMix64
    private var turn = 0

    init(_ kind: Kind, seed: UInt64) {
        self.kind = kind
        random = SplitMix64(seed: seed)
    }

    /// The standard ACP encoding on odd turns, the desktop's on even ones.
    private var acp: Bool { turn % 2 == 1 }

    private var callID: String { "soak-call-\(turn)" }

    /// The session's next update.
    mutating func next() -> JSONValue {
        guard case .endingTurns = kind else { return chunk(.agentMessageChunk, nextPiece()) }
        switch phase {
        case .prompt:
            phase = .thought
            return chunk(.userMessageChunk, "Please make the \(words(6)) work")
        case .thought:
            let piece = nextPiece()
            if text.isAtParagraphEnd { phase = .reply(paragraphsLeft: 1 + Int(random.next() % 3)) }
            return chunk(.agentThoughtChunk, piece)
        case .reply(let paragraphsLeft):
            let piece = nextPiece()
            if text.isAtParagraphEnd { phase = paragraphsLeft > 1 ? .reply(paragraphsLeft: paragraphsLeft - 1) : .call }
            return chunk(.agentMessageChunk, piece)
        case .call:
            phase = .output
            return toolCall(command: "swift test --filter \(words(1))")
        case .output:
            phase = .prompt
            defer { turn += 1 }
            return toolOutput(outputText())
        }
    }

    private mutating func nextPiece() -> String { text.nextPiece(words: Self.words, random: &random) }

    private mutating func words(_ count: Int) -> String {
        (0..<count).map { _ in Self.words[Int(random.next() % UInt64(Self.words.count))] }.joined(separator: " ")
    }

    /// A tool's output: lines of words, 100 bytes to 256 KiB on a Pareto tail (α 1.1), most of a
    /// few hundred bytes, now and then tens of kilobytes.
    private mutating func outputText() -> String {
        let uniform = Double(random.next() >> 11) / Double(1 << 53)
        let size = min(256 * 1024, Int(100 / pow(max(uniform, 1e-9), 1 / 1.1)))
        var output = ""
        output.reserveCapacity(size + 80)
        while output.utf8.count < size { output += words(8) + "\n" }
        return output
    }

    private func chunk(_ kind: UpdateKind, _ text: String) -> JSONValue {
        let block: JSONValue = ["type": "text", "text": .string(text)]
        return ["sessionUpdate": .string(kind.rawValue), "content": acp ? block : ["content": block]]
    }

    private func toolCall(command: String) -> JSONValue {
        let kind = JSONValue.string(UpdateKind.toolCall.rawValue)
        if acp {
            return ["sessionUpdate": kind, "toolCallId": .string(callID), "title": "Run tests", "kind": "execute",
                    "status": "pending", "rawInput": ["command": .string(command)]]
        }
        return ["sessionUpdate": kind, "tool_call": ["call_id": .string(callID), "name": "Bash", "arguments": ["command": .string(command)]]]
    }

    private func toolOutput(_ output: String) -> JSONValue {
        let kind = JSONValue.string(UpdateKind.toolCallUpdate.rawValue)
        if acp {
            return ["sessionUpdate": kind, "toolCallId": .string(callID), "status": "completed",
                    "content": [["type": "content", "content": ["type": "text", "text": .string(output)]]]]
        }
        return ["sessionUpdate": kind, "tool_call_update": ["call_id": .string(callID), "status": "completed", "output": ["stdout": .string(output)]]]
    }

    private static let words = """
        the parser token build test swift bridge session timeline mirror cursor backoff socket frame reply \
        prompt agent plan tool call update error output render export markdown search index query commit \
        page sync offline outbox retry queue fixture desktop client server schema reader and of to in is
        """.split(separator: " ").map(String.init)
}
