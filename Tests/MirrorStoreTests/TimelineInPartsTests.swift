import Foundation
import MirrorStore
import TestSupport
import Testing

/// A timeline merged in parts ends as the same timeline merged whole, whatever the cut into parts,
/// the live events before it and the fetches before it; and a merge cut short, then made again
/// whole, loses and duplicates nothing.
@Suite("Timelines merged in parts", .endsWithin(.seconds(120)))
struct TimelineInPartsTests {
    /// A mirror merging whole (`replaceTimelineTail`) and one merging in parts, kept side by side.
    struct Pair {
        let directory: TemporaryDirectory
        let whole: MirrorStore
        let inParts: MirrorStore

        init() throws {
            directory = try TemporaryDirectory()
            whole = try MirrorStore(path: directory.path("whole.sqlite"))
            inParts = try MirrorStore(path: directory.path("parts.sqlite"))
        }

        func fetch(_ texts: [String], partSize: Int, afterLiveEvents: Bool, cutShortAfter: Int? = nil) throws {
            let events = texts.map { messageEvent("s", text: $0) }
            let wholeOutcome = try whole.replaceTimelineTail(sessionID: "s", history: nil, with: events, fetchedAfterLiveEvents: afterLiveEvents)
            if let cutShortAfter {
                var cut = try inParts.beginTimelineMerge(sessionID: "s", history: nil, fetchedAfterLiveEvents: afterLiveEvents)
                try inParts.mergeTimelinePart(Array(events.prefix(cutShortAfter)), into: &cut)
            }
            var merge = try inParts.beginTimelineMerge(sessionID: "s", history: nil, fetchedAfterLiveEvents: afterLiveEvents)
            var start = 0
            while start < events.count {
                try inParts.mergeTimelinePart(Array(events[start..<min(start + partSize, events.count)]), into: &merge)
                start += partSize
            }
            let partsOutcome = try inParts.finishTimelineMerge(merge, watermark: nil)
            if cutShortAfter == nil {
                #expect(partsOutcome == wholeOutcome, "\(texts) in parts of \(partSize)")
            }
        }

        func live(_ texts: [String]) throws {
            for store in [whole, inParts] {
                try store.appendEvents(texts.map { messageEvent("s", text: $0, provisional: true) }, history: nil)
            }
        }

        /// Each mirror's timeline: text, provisional, gone; and its session's counts.
        func expectSame(_ context: String) throws {
            func shape(_ store: MirrorStore) throws -> [String] {
                let counts = try store.session(id: "s").map { "\($0.localEventCount)/\($0.goneEventCount)" } ?? "none"
                return try store.timeline(sessionID: "s").map { "\($0.text)\($0.provisional ? "?" : "")\($0.goneAt == nil ? "" : "✝")" } + [counts]
            }
            #expect(try shape(whole) == shape(inParts), "\(context)")
        }
    }

    /// A small deterministic generator (the same cases every run).
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func texts(_ maxCount: Int) -> [String] {
            (0..<next(maxCount + 1)).map { _ in ["a", "b", "c", "d"][next(4)] }
        }
    }

    @Test("fetches, live events and fetches again: in parts as whole, for 300 generated cases")
    func sameAsWhole() async throws {
        try await onThreadOfItsOwn(Self.fetchGeneratedCases)
    }

    @Test("a merge cut short, then made whole again, ends as the whole merge: nothing duplicated or lost")
    func cutShort() async throws {
        try await onThreadOfItsOwn(Self.cutGeneratedMerges)
    }

    /// Seconds of SQLite work each: run on a thread of their own.
    private static func fetchGeneratedCases() throws {
        var generator = Generator(state: 22)
        for round in 0..<300 {
            let pair = try Pair()
            var steps: [String] = []
            for _ in 0..<4 {
                switch generator.next(3) {
                case 0:
                    let live = generator.texts(3)
                    steps.append("live \(live)")
                    try pair.live(live)
                default:
                    let texts = generator.texts(8)
                    let partSize = 1 + generator.next(4)
                    let afterLive = generator.next(2) == 0
                    steps.append("fetch \(texts) parts \(partSize) after live \(afterLive)")
                    try pair.fetch(texts, partSize: partSize, afterLiveEvents: afterLive)
                }
                try pair.expectSame("round \(round): \(steps)")
            }
        }
    }

    private static func cutGeneratedMerges() throws {
        var generator = Generator(state: 7)
        for round in 0..<200 {
            let pair = try Pair()
            let first = generator.texts(6)
            try pair.fetch(first, partSize: 2, afterLiveEvents: true)
            let live = generator.texts(2)
            try pair.live(live)
            let second = generator.texts(10)
            let cut = generator.next(second.count + 1)
            try pair.fetch(second, partSize: 1 + generator.next(3), afterLiveEvents: generator.next(2) == 0, cutShortAfter: cut)
            try pair.expectSame("round \(round): \(first), live \(live), then \(second) cut after \(cut)")
        }
    }
}
