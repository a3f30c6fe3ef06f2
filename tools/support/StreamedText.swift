/// Text as a model streams it, for the simulator's realistic and streamed shapes and the soak
/// benchmark's live turns: paragraphs of words, now and then a code
/// fence, handed out in pieces of 2–12 characters cut anywhere (inside words, fences and line
/// breaks included), as model APIs send text deltas of a few tokens.
public struct StreamedText {
    private var pending: [Unicode.Scalar] = []

    /// True once the paragraph begun is handed out whole (and before the first piece).
    public var isAtParagraphEnd: Bool { pending.isEmpty }

    public init() {}

    /// The next piece of text.
    public mutating func nextPiece(words: [String], random: inout SplitMix64) -> String {
        if pending.isEmpty { pending = Array(Self.paragraph(words: words, random: &random).unicodeScalars) }
        let count = min(pending.count, 2 + Int(random.next() % 11))
        var piece = ""
        piece.unicodeScalars.append(contentsOf: pending.prefix(count))
        pending.removeFirst(count)
        return piece
    }

    /// A paragraph of sentences; one in four ends with a fenced snippet.
    private static func paragraph(words: [String], random: inout SplitMix64) -> String {
        func word() -> String { words[Int(random.next() % UInt64(words.count))] }
        let sentences = (0..<(1 + Int(random.next() % 4))).map { _ in
            let sentence = (0..<(4 + Int(random.next() % 10))).map { _ in word() }.joined(separator: " ")
            return sentence.prefix(1).uppercased() + sentence.dropFirst() + "."
        }
        var text = sentences.joined(separator: " ")
        if random.next() % 4 == 0 {
            text += "\n\n```swift\nlet \(word()) = try \(word())(\"\(word())\")\n```"
        }
        return text + "\n\n"
    }
}
