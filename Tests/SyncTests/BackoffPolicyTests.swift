import SyncEngine
import TestSupport
import Testing

/// How long oa-sync waits before connecting again, and when it starts counting afresh.
@Suite("Reconnect backoff", .endsWithin(.seconds(120)))
struct BackoffPolicyTests {
    @Test("waits grow from 0.5 s, doubling, up to 30 s; each a random time within its ceiling")
    func grows() {
        let policy = BackoffPolicy()
        #expect((0..<8).map { policy.ceiling(forAttempt: $0) } == [0.5, 1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        var random = SystemRandomNumberGenerator()
        let waits = (0..<200).map { _ in policy.delay(forAttempt: 3, using: &random) }
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= .seconds(4) })
        #expect(Set(waits).count > 1, "jittered, not one fixed wait")
    }

    @Test("a connection that wrote to the mirror, or lasted 30 s, starts the count again; one that did neither adds one")
    func progressResetsTheCount() {
        let policy = BackoffPolicy()
        #expect(policy.attempt(after: 6, lasted: .milliseconds(40), madeProgress: true) == 0,
                "a bridge dropping every few frames, each connection bringing some of the catch-up")
        #expect(policy.attempt(after: 6, lasted: .seconds(30), madeProgress: false) == 0)
        #expect(policy.attempt(after: 6, lasted: .seconds(29), madeProgress: false) == 7)
        #expect(policy.attempt(after: 0, lasted: .zero, madeProgress: false) == 1)
    }
}
