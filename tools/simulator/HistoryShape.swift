import Foundation
import ToolSupport

/// How a synthetic history's events are sized.
enum HistoryShape: String, CaseIterable {
    /// Events of about 150 bytes, sessions of about equal length.
    case uniform
    /// Shaped like real agent histories: mostly tiny streamed chunks (replies and thinking cut
    /// anywhere into pieces of 2–12 characters: `StreamedText`), with tool outputs (a file
    /// read, a test log) whose sizes follow a long tail from 10 KB to 8 MB (`toolOutputBytes`),
    /// about two thirds of the text; and a few huge sessions (`sessionIndex`).
    case realistic
    /// The realistic shape with runs of large outputs in a row in its first session, as a
    /// file-reading agent makes them (`largeOutputRuns`), beyond the events asked for.
    case runs
    /// Small events only, as models stream them: each session's turns (`StreamedTurns`: a prompt,
    /// thinking and a reply in pieces of 2–12 characters, a tool call and its output of a line),
    /// the sessions interleaved at random as in the uniform shape.
    case streamed

    /// True for the shapes with streamed chunks and long-tailed tool outputs.
    var isRealistic: Bool { self == .realistic || self == .runs }

    /// The runs of the `runs` shape: where each comes (after this fraction of the events), and how
    /// many outputs of how many bytes it holds.
    static let largeOutputRuns: [(at: Double, count: Int, bytes: Int)] = [(1.0 / 3, 8, 6 << 20), (2.0 / 3, 30, 1 << 20)]

    /// One event in this many is a tool output, in the realistic shape.
    static let toolOutputEvery: UInt64 = 12
    /// The smallest and largest tool output, in bytes.
    static let toolOutputRange = 10_000...(8 << 20)

    /// The session of the `index`th event after every session was opened: in the realistic
    /// shape, the first two sessions (of three or more) take a third of the events between them.
    func sessionIndex(sessions: Int, random: inout SplitMix64) -> Int {
        if isRealistic, sessions >= 3, random.next() % 3 == 0 { return Int(random.next() % 2) }
        return Int(random.next() % UInt64(sessions))
    }

    /// A tool output's size: Pareto-distributed (α = 1.1) from 10 KB, capped at 8 MB, so that
    /// most are tens of KB and a few are MB.
    static func toolOutputBytes(random: inout SplitMix64) -> Int {
        let uniform = Double(random.next() >> 11 | 1) / Double(1 << 53)
        let size = Double(toolOutputRange.lowerBound) * pow(uniform, -1 / 1.1)
        return min(Int(size), toolOutputRange.upperBound)
    }

    /// `bytes` of log-like text (words and spaces only: nothing to escape in JSON).
    static func outputText(bytes: Int, random: inout SplitMix64) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(bytes)
        var start = Int(random.next() % UInt64(logBlock.count))
        while text.count < bytes {
            let take = min(bytes - text.count, logBlock.count - start)
            text += logBlock[start..<(start + take)]
            start = 0
        }
        return text
    }

    /// 64 KiB of words, cut into outputs.
    private static let logBlock: [UInt8] = {
        var random = SplitMix64(seed: 7)
        var text: [UInt8] = []
        while text.count < 64 << 10 {
            text += SyntheticHistory.words[Int(random.next() % UInt64(SyntheticHistory.words.count))].utf8
            text += (random.next() % 9 == 0 ? " ok " : " ").utf8
        }
        return text
    }()
}
