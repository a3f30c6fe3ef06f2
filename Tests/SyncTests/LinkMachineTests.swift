@testable import MirrorStore
@testable import SyncEngine
import TestSupport
import Testing
import ToolSupport

/// A desktop link's decisions, fed sequences of what happens, with no socket, no store and no
/// sleep: time is a `TestClock` the test moves.
@Suite("A link's decisions", .endsWithin(.seconds(120)))
struct LinkMachineTests {
    private static func machine(backoff: BackoffPolicy = BackoffPolicy()) -> LinkMachine<TestClock> {
        LinkMachine(configuration: SyncConfiguration(bridgeURL: "ws://127.0.0.1:1", backoff: backoff))
    }

    private static let history = HistoryKey(rawValue: 1)

    /// The backoff's attempt a reconnection follows (nil if the decision is not to reconnect).
    private static func attempt(_ decision: AfterConnection) -> Int? {
        guard case .reconnect(_, let attempt) = decision else { return nil }
        return attempt
    }

    @Test("live batches cut anywhere, with gaps, repeats, seqs out of order or missing, and lost connections: the mirror holds each seq once, in order, all of them")
    func cursorDecisionsKeepTheMirrorWhole() {
        for seed in UInt64(1)...4000 {
            var random = SplitMix64(seed: seed)
            let outcome = CursorScenario.run(random: &random)
            // Each seq once, in order, from the first: what the history holds, as far as it goes.
            #expect(outcome.mirror == (0..<outcome.mirror.count).map { Int64($0 + 1) }, "seed \(seed)")
            // As far as every update the client received (a seq-less one stands for any the
            // desktop had when it came), and no further than the desktop's history.
            #expect(outcome.mirror.count >= outcome.mustReach && outcome.mirror.count <= outcome.published,
                    "seed \(seed): \(outcome.mirror.count) mirrored, \(outcome.mustReach) received, \(outcome.published) published")
        }
    }

    @Test("a batch that continues the cursor is appended whole and asks for no page")
    func continuingBatch() {
        var machine = Self.machine()
        _ = machine.connecting(at: TestClock().now, forgettingFailedSessions: true)
        machine.historyResolved(Self.history)
        let decision = machine.liveUpdates(seqs: [5, 6, 7], cursor: 4)
        #expect(decision == LiveDecision(continuing: [0, 1, 2], cursor: 7, pagesFromCursor: false))
        let pages = machine.takePaging()
        #expect(!pages)
    }

    @Test("a gap and a seq-less update are said once a connection; a new connection forgets them, and its history")
    func notesOncePerConnection() {
        let clock = TestClock()
        var machine = Self.machine()
        _ = machine.connecting(at: clock.now, forgettingFailedSessions: true)
        let beforeHistory = machine.liveUpdates(seqs: [9], cursor: 0)
        #expect(beforeHistory == LiveDecision(continuing: [], cursor: 0, pagesFromCursor: true))
        machine.historyResolved(Self.history)
        let notes = machine.liveUpdates(seqs: [3, nil, 5, nil], cursor: 1).notes
        #expect(notes == [
            .gap(cursor: 1, seq: 3, first: true), .seqless(index: 1), .gap(cursor: 1, seq: 5, first: false),
        ])
        let pagesOnce = machine.takePaging()
        #expect(pagesOnce)
        let pagesAgain = machine.takePaging()
        #expect(!pagesAgain)
        _ = machine.connecting(at: clock.now, forgettingFailedSessions: true)
        #expect(machine.history == nil)
        machine.historyResolved(Self.history)
        let notesAgain = machine.liveUpdates(seqs: [nil, 4], cursor: 1).notes
        #expect(notesAgain == [.seqless(index: 0), .gap(cursor: 1, seq: 4, first: true)])
    }

    @Test("backoff on a clock the test moves: waits grow to their cap (six hours here), and reset after a connection that lasted or wrote")
    func backoffOnATestClock() {
        let clock = TestClock()
        let backoff = BackoffPolicy(initial: .seconds(1), multiplier: 2, cap: .seconds(6 * 3600), healthyAfter: .seconds(30))
        var machine = Self.machine(backoff: backoff)
        var random = SplitMix64(seed: 7)
        var waited = Duration.zero
        for failure in 1...40 {
            _ = machine.connecting(at: clock.now, forgettingFailedSessions: true)
            clock.advance(by: .milliseconds(10))
            guard case .reconnect(let delay, let attempt) = machine.ended(.lost, at: clock.now, random: &random) else {
                Issue.record("a lost connection is followed by a reconnection")
                return
            }
            #expect(attempt == failure)
            #expect(delay >= .zero && delay <= backoff.ceiling(forAttempt: attempt - 1))
            clock.advance(by: delay)
            waited += delay
        }
        #expect(backoff.ceiling(forAttempt: 39) == .seconds(6 * 3600))
        #expect(waited > .seconds(6 * 3600), "forty failures in a row wait hours of the test's clock")
        // A connection that lasted `healthyAfter` starts the count again.
        _ = machine.connecting(at: clock.now, forgettingFailedSessions: true)
        clock.advance(by: .seconds(30))
        let afterLasting = machine.ended(.lost, at: clock.now, random: &random)
        #expect(Self.attempt(afterLasting) == 0)
        // So does one that wrote events, however short.
        _ = machine.connecting(at: clock.now, forgettingFailedSessions: true)
        _ = machine.ended(.lost, at: clock.now, random: &random)
        _ = machine.connecting(at: clock.now, forgettingFailedSessions: true)
        machine.tally(.eventsWritten(1))
        let afterWriting = machine.ended(.lost, at: clock.now, random: &random)
        #expect(Self.attempt(afterWriting) == 0)
        let whenCancelled = machine.ended(.cancelled, at: clock.now, random: &random)
        #expect(whenCancelled == .stop)
        let whenRefused = machine.ended(.refused, at: clock.now, random: &random)
        #expect(whenRefused == .abandon)
    }

    @Test("a page refused as over the limit halves the next and asks for a reconnection at once, a bounded number of times")
    func pageRefused() {
        var machine = Self.machine()
        _ = machine.connecting(at: TestClock().now, forgettingFailedSessions: false)
        #expect(!machine.retriesAtOnce(after: 0))
        let halved = machine.pageRefused(requested: 2000, size: nil)
        #expect(halved == 1000)
        #expect(machine.retriesAtOnce(after: 0))
        #expect(!machine.retriesAtOnce(after: LinkMachine<TestClock>.onceReconnectLimit))
        #expect(machine.pageSizer.size == 1000)
        _ = machine.connecting(at: TestClock().now, forgettingFailedSessions: false)
        #expect(!machine.retriesAtOnce(after: 0), "a new connection starts without the wish")
        #expect(machine.pageSizer.size == 1000, "the page size outlives the connection")
        let belowOne = machine.pageRefused(requested: 1, size: 5 << 20)
        #expect(belowOne == nil, "a page of one event cannot get smaller")
    }

    @Test("stock sessions are refetched once quiet on the test's clock; a timeline asked for before their last update does not confirm them")
    func quietStockSessions() {
        let clock = TestClock()
        var machine = Self.machine()
        machine.liveUpdatesApplied(to: ["a", "b"], at: clock.now)
        clock.advance(by: .seconds(1))
        machine.liveUpdatesApplied(to: ["b"], at: clock.now)
        clock.advance(by: .seconds(1))
        #expect(machine.quietSessions(at: clock.now) == ["a"])
        let askedAt = clock.now
        clock.advance(by: .milliseconds(500))
        machine.liveUpdatesApplied(to: ["b"], at: clock.now)
        #expect(!machine.liveSessions.heldByTimeline("b", askedAt: askedAt))
        machine.refetched("a", askedAt: askedAt)
        machine.refetched("b", askedAt: askedAt)
        #expect(machine.liveSessions.sessionIDs == ["b"])
        clock.advance(by: .seconds(2))
        #expect(machine.quietSessions(at: clock.now) == ["b"])
    }

    @Test("a failed stock session is put off for the rest of the sync, or until its retry")
    func failedSessionsPutOff() {
        var machine = Self.machine()
        let failure = SessionFailure(sessionID: "s", reason: "too large", failedAt: 0, retryAfter: 1000, failures: 1)
        #expect(machine.putsOff(failure, mirrorNow: 999))
        #expect(!machine.putsOff(failure, mirrorNow: 1000))
        machine.sessionFailed("s")
        machine.connectionEndedBySession()
        #expect(machine.putsOff(failure, mirrorNow: 5000))
        #expect(machine.retriesAtOnce(after: 0))
        _ = machine.connecting(at: TestClock().now, forgettingFailedSessions: false)
        #expect(machine.putsOff(failure, mirrorNow: 5000), "a sync's retry keeps it put off")
        _ = machine.connecting(at: TestClock().now, forgettingFailedSessions: true)
        #expect(!machine.putsOff(failure, mirrorNow: 5000), "a run's next connection tries it again")
    }
}

/// A history-cursor desktop announcing its history as a real one may (batches cut anywhere,
/// updates lost, repeated, reordered or without a seq, connections lost), and a driver doing
/// what the link's machine decides, against a mirror of seqs.
private enum CursorScenario {
    struct Outcome {
        var mirror: [Int64]
        /// The highest seq the client received, or the desktop's last when a seq-less update came.
        var mustReach: Int
        /// The desktop's last seq.
        var published: Int
    }

    static func run(random: inout SplitMix64) -> Outcome {
        var machine = LinkMachine<TestClock>(configuration: SyncConfiguration(bridgeURL: "ws://127.0.0.1:1"))
        let clock = TestClock()
        var mirror: [Int64] = []
        var published: Int64 = 0
        var connected = false
        var recent: [Int64] = []
        var mustReach: Int64 = 0

        func page() {
            // The catch-up: every event from the cursor to the desktop's end.
            let cursor = mirror.last ?? 0
            if published > cursor { mirror.append(contentsOf: (cursor + 1)...published) }
        }

        for _ in 0..<Int.random(in: 5...60, using: &random) {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<8:
                connected = false
            case 8..<20 where !connected:
                _ = machine.connecting(at: clock.now, forgettingFailedSessions: true)
                // Live updates may come before the history is known.
                if Bool.random(using: &random) {
                    apply(live(&published, &recent, &random), to: &mirror, &machine, published: published, mustReach: &mustReach)
                }
                machine.historyResolved(HistoryKey(rawValue: 1))
                page()
                connected = true
            case 20..<35:
                if connected, machine.takePaging() { page() }
                clock.advance(by: .milliseconds(250))
            default:
                let batch = live(&published, &recent, &random)
                if connected { apply(batch, to: &mirror, &machine, published: published, mustReach: &mustReach) }
            }
        }
        // The last tick, on a connection (the engine connects again until it has one, and a new
        // connection catches up): whatever asked for a page gets it.
        if !connected {
            _ = machine.connecting(at: clock.now, forgettingFailedSessions: true)
            machine.historyResolved(HistoryKey(rawValue: 1))
            page()
        }
        if machine.takePaging() { page() }
        return Outcome(mirror: mirror, mustReach: Int(mustReach), published: Int(published))
    }

    /// What the desktop sends live: its new events, cut into a batch, with some lost, some
    /// repeated, some reordered and some without a seq.
    private static func live(_ published: inout Int64, _ recent: inout [Int64], _ random: inout SplitMix64) -> [Int64?] {
        var batch: [Int64?] = []
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            published += 1
            recent.append(published)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<8: continue
            case 8..<12: batch.append(nil)
            case 12..<20: batch.append(published); batch.append(recent.randomElement(using: &random))
            default: batch.append(published)
            }
        }
        if recent.count > 32 { recent.removeFirst(recent.count - 32) }
        if batch.count > 1, Int.random(in: 0..<10, using: &random) == 0 { batch.swapAt(0, batch.count - 1) }
        return batch
    }

    /// The driver: appends what the machine says continues the cursor, with its cursor.
    private static func apply(_ batch: [Int64?], to mirror: inout [Int64], _ machine: inout LinkMachine<TestClock>,
                              published: Int64, mustReach: inout Int64) {
        for seq in batch { mustReach = max(mustReach, seq ?? published) }
        let cursor = mirror.last ?? 0
        let decision = machine.liveUpdates(seqs: batch, cursor: cursor)
        for index in decision.continuing {
            if let seq = batch[index] { mirror.append(seq) }
        }
        precondition(decision.cursor == (mirror.last ?? 0), "the decision's cursor is the last seq appended")
    }
}
