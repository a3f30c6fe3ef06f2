import Bridge
import ToolSupport

/// One session's turns as a model streams them, for the streamed shape: a prompt in one chunk,
/// thinking (a paragraph) and a reply (one to three paragraphs) in pieces of 2–12 characters
/// (`StreamedText`), then a tool call and its output of a line; over and over. Every update is
/// small, so a history of this shape is a million events of the size real streams have.
struct StreamedTurns {
    private enum Phase {
        case prompt, thought, reply(paragraphsLeft: Int), call, output(callID: String)
    }

    private var phase = Phase.prompt
    private var text = StreamedText()

    /// The update JSON of the session's next event; `callID` names the tool call if it begins one.
    mutating func next(callID: String, random: inout SplitMix64) -> String {
        let words = SyntheticHistory.words
        func sentence(_ count: Int) -> String {
            (0..<count).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
        }
        switch phase {
        case .prompt:
            phase = .thought
            return SyntheticHistory.quotedChunk(.userMessageChunk, "\"Please make the \(sentence(6)) work\"")
        case .thought:
            let piece = text.nextPiece(words: words, random: &random)
            if text.isAtParagraphEnd { phase = .reply(paragraphsLeft: 1 + Int(random.next() % 3)) }
            return SyntheticHistory.textChunk(.agentThoughtChunk, piece)
        case .reply(let paragraphsLeft):
            let piece = text.nextPiece(words: words, random: &random)
            if text.isAtParagraphEnd { phase = paragraphsLeft > 1 ? .reply(paragraphsLeft: paragraphsLeft - 1) : .call }
            return SyntheticHistory.textChunk(.agentMessageChunk, piece)
        case .call:
            phase = .output(callID: callID)
            let kind = UpdateKind.toolCall.rawValue
            return SyntheticHistory.tagged(.toolCall, #""\#(kind)":{"call_id":"\#(callID)","name":"Bash","arguments":{"command":"swift test --filter \#(sentence(1))"}}"#)
        case .output(let call):
            phase = .prompt
            let kind = UpdateKind.toolCallUpdate.rawValue
            return SyntheticHistory.tagged(.toolCallUpdate, #""\#(kind)":{"call_id":"\#(call)","status":"completed","output":{"stdout":"\#(sentence(8))"}}"#)
        }
    }
}
