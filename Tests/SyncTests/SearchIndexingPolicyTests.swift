import MirrorStore
@testable import SyncEngine
import TestSupport
import Testing
import ToolSupport

/// The search indexing policy fed generated sequences of what happens (live batches of any size,
/// bursts, quiet spells, catch-ups of several commits, ticks), against a model of the mirror's
/// index: no store, no clock but the instants the test passes.
@Suite("Search indexing policy", .endsWithin(.seconds(60)))
struct SearchIndexingPolicyTests {
    typealias Policy = SearchIndexingPolicy<TestClock.Instant>

    /// The mirror's index as the policy's actions leave it.
    struct IndexModel {
        var pending = 0
        var merging = SearchIndexMerging.asItGrows
        var merges = 0
        var indexedAt: [TestClock.Instant] = []

        /// Writes `events` with `commit`'s mode, performing its actions as the engine does.
        mutating func write(_ events: Int, _ commit: Policy.Commit, policy: inout Policy, at now: TestClock.Instant) {
            perform(commit.before, policy: &policy, at: now)
            switch commit.mode {
            case .withCommit: pending = max(0, pending - MirrorStore.searchIndexingPerWrite)
            case .putOff: pending += events
            }
            perform(commit.after, policy: &policy, at: now)
        }

        @discardableResult
        mutating func perform(_ actions: [SearchIndexingAction], policy: inout Policy, at now: TestClock.Instant) -> Int {
            var covered = 0
            for action in actions {
                switch action {
                case .setMerging(let merging): self.merging = merging
                case .merge: merges += 1
                case .indexPending(let limit):
                    let indexed = min(pending, limit ?? .max)
                    pending -= indexed
                    covered += indexed
                    if limit == nil { indexedAt.append(now) }
                    perform(policy.indexed(indexed, limit: limit), policy: &policy, at: now)
                }
            }
            return covered
        }
    }

    @Test("bursts index at most once each interval, nothing is indexed with its commit during one or a catch-up, and once it is over what waits is indexed, merged, and merging restored")
    func generatedSequences() {
        for seed in UInt64(1)...2000 {
            var random = SplitMix64(seed: seed)
            var policy = Policy()
            var index = IndexModel()
            var now = TestClock().now
            var lastBurstBatch: TestClock.Instant?
            var catchUp: (commits: Int, written: Int)?
            var owesMerge = false
            func inBurst() -> Bool { lastBurstBatch.map { $0.duration(to: now) < Policy.burstSettlingTime } ?? false }
            /// A run's burst indexes once an interval at most (checked at the run's end).
            func expectIndexingIntervals() {
                for (earlier, later) in zip(index.indexedAt, index.indexedAt.dropFirst()) {
                    #expect(earlier.duration(to: later) >= Policy.burstIndexingInterval, "seed \(seed): a burst indexes once an interval")
                }
                index.indexedAt = []
            }
            for _ in 0..<Int(random.next() % 300) {
                now = now.advanced(by: .milliseconds(Int64(random.next() % 300)))
                switch random.next() % 10 {
                case 0..<5:
                    let size = Int(1 + random.next() % (random.next() % 4 == 0 ? 2_000 : 40))
                    let moreWaiting = random.next() % 3 == 0
                    if moreWaiting || size >= Policy.burstBatchSize { lastBurstBatch = now }
                    let commit = policy.liveCommit(moreWaiting: moreWaiting, batchSize: size, at: now)
                    #expect(!inBurst() || commit.mode == .putOff, "seed \(seed): a burst's commit puts indexing off")
                    #expect(catchUp == nil || (commit.mode == .putOff && commit.after.isEmpty), "seed \(seed): live commits wait for a catch-up")
                    index.write(size, commit, policy: &policy, at: now)
                case 5..<7:
                    let waiting = Int(random.next() % 2)
                    let actions = policy.tick(notificationsWaiting: waiting, at: now)
                    #expect(waiting == 0 && catchUp == nil || actions.isEmpty, "seed \(seed): a tick waits for notifications and catch-ups")
                    index.perform(actions, policy: &policy, at: now)
                case 7 where catchUp == nil:
                    if index.merging == .deferred { owesMerge = true }
                    policy.catchUpStarted(mergingLeftDeferred: index.merging == .deferred)
                    catchUp = (0, 0)
                case 7, 8:
                    guard let running = catchUp else { continue }
                    let merging = index.merging
                    let commit = policy.catchUpCommit(at: now)
                    #expect(commit.mode == (inBurst() ? .putOff : .withCommit), "seed \(seed): a catch-up indexes its commits, but not in a burst")
                    index.write(5_000, commit, policy: &policy, at: now)
                    #expect(index.merging == (running.commits > 0 ? .deferred : merging), "seed \(seed): merging waits from a catch-up's second commit")
                    catchUp = (running.commits + 1, running.written + 5_000)
                default:
                    guard let running = catchUp else { continue }
                    if random.next() % 3 == 0 {
                        // The run stops in its catch-up: a new one knows only what the mirror
                        // holds (merging deferred, perhaps: its next catch-up merges).
                        expectIndexingIntervals()
                        policy = Policy()
                        lastBurstBatch = nil
                        owesMerge = false
                    } else {
                        policy.catchUpEnded(written: running.written)
                        if running.commits > 1 { owesMerge = true }
                    }
                    catchUp = nil
                }
            }
            if let running = catchUp {
                policy.catchUpEnded(written: running.written)
                if running.commits > 1 { owesMerge = true }
            }
            if index.merging == .deferred && !owesMerge {
                // Left deferred by a run stopped in a catch-up: the next run's catch-up, however
                // small, owes the merge.
                policy.catchUpStarted(mergingLeftDeferred: true)
                index.write(1, policy.catchUpCommit(at: now), policy: &policy, at: now)
                policy.catchUpEnded(written: 1)
                owesMerge = true
            }
            expectIndexingIntervals()
            // Quiet: ticks with nothing waiting drain what waits, merge what was indexed in bulk,
            // and merging is as it grows again.
            now = now.advanced(by: Policy.burstSettlingTime)
            for _ in 0...(index.pending / MirrorStore.searchIndexingPerWrite + 1) {
                index.perform(policy.tick(notificationsWaiting: 0, at: now), policy: &policy, at: now)
                now = now.advanced(by: .milliseconds(100))
            }
            #expect(index.pending == 0, "seed \(seed): what a burst put off is indexed once it is over")
            #expect(!owesMerge || index.merges > 0, "seed \(seed): what catch-ups indexed in bulk is merged")
            #expect(index.merging == .asItGrows, "seed \(seed)")
        }
    }

    @Test("a catch-up of one transaction leaves merging as it is; one of several defers it, and its end merges once what was indexed in steps")
    func catchUpMerging() {
        var policy = Policy()
        let now = TestClock().now
        policy.catchUpStarted(mergingLeftDeferred: false)
        #expect(policy.catchUpCommit(at: now) == .init(mode: .withCommit))
        policy.catchUpEnded(written: 10)
        #expect(policy.step() == [.indexPending(atMost: MirrorStore.searchIndexingPerWrite)])
        #expect(policy.indexed(0, limit: MirrorStore.searchIndexingPerWrite) == [], "10 events need no merge")

        policy.catchUpStarted(mergingLeftDeferred: false)
        #expect(policy.catchUpCommit(at: now) == .init(mode: .withCommit))
        #expect(policy.catchUpCommit(at: now) == .init(before: [.setMerging(.deferred)], mode: .withCommit))
        #expect(policy.catchUpCommit(at: now) == .init(mode: .withCommit))
        policy.catchUpEnded(written: 30_000)
        #expect(policy.step() == [.setMerging(.asItGrows), .indexPending(atMost: MirrorStore.searchIndexingPerWrite)])
        #expect(policy.indexed(3, limit: MirrorStore.searchIndexingPerWrite) == [.merge])
        #expect(policy.step() == [.indexPending(atMost: MirrorStore.searchIndexingPerWrite)])
        #expect(policy.indexed(0, limit: MirrorStore.searchIndexingPerWrite) == [], "merged once")
    }

    @Test("merging left deferred by a run stopped in a catch-up is merged by the next catch-up's end, however small")
    func mergingLeftDeferred() {
        var policy = Policy()
        let now = TestClock().now
        policy.catchUpStarted(mergingLeftDeferred: true)
        #expect(policy.catchUpCommit(at: now) == .init(mode: .withCommit))
        policy.catchUpEnded(written: 1)
        #expect(policy.step() == [.setMerging(.asItGrows), .indexPending(atMost: MirrorStore.searchIndexingPerWrite)])
        #expect(policy.indexed(0, limit: MirrorStore.searchIndexingPerWrite) == [.merge])
    }
}
