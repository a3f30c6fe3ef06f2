import MirrorStore

/// How long after the mirror's cursor first covers a burst's update search finds it: every
/// `interval`, the update at the cursor is noted, and searched for (its number, which only its
/// text holds: "burst 17 …") until found.
final class SearchProbe {
    static let interval = Duration.milliseconds(100)
    /// A probe not found within this is counted as this.
    static let patience = Duration.seconds(10)

    private let store: MirrorStore
    private var pending: [(index: Int64, covered: ContinuousClock.Instant)] = []
    private var lastProbe: ContinuousClock.Instant?
    private var lastPoll: ContinuousClock.Instant?
    /// How often the pending probes are searched for (the measure's resolution), so that the
    /// searches take little of the machine the burst runs on.
    static let pollInterval = Duration.milliseconds(50)
    private(set) var delays: [Duration] = []
    private(set) var unfound = 0

    init(mirror: String) throws {
        store = try MirrorStore(path: mirror, mode: .readOnly)
    }

    /// Notes the update at `cursor`, once per `interval`, and searches for those pending.
    func observe(cursor: Int64, burst: FiredBurst, now: ContinuousClock.Instant = .now) {
        if cursor >= burst.firstSeq, lastProbe.map({ now - $0 >= Self.interval }) ?? true {
            lastProbe = now
            pending.append((cursor - burst.firstSeq, now))
        }
        if lastPoll.map({ now - $0 >= Self.pollInterval }) ?? true {
            lastPoll = now
            poll(now: now)
        }
    }

    /// Searches for the probes still pending, until each is found or `patience` runs out.
    func finish() async {
        while !pending.isEmpty {
            poll(now: .now)
            try? await Task.sleep(for: Self.pollInterval)
        }
    }

    private func poll(now: ContinuousClock.Instant) {
        pending.removeAll { probe in
            if (try? store.search(String(probe.index), limit: 1).isEmpty) == false {
                delays.append(ContinuousClock.now - probe.covered)
                return true
            }
            if now - probe.covered > Self.patience {
                unfound += 1
                delays.append(Self.patience)
                return true
            }
            return false
        }
    }

    /// The delay at `percentile` (0–100), in seconds.
    func seconds(at percentile: Double) -> Double {
        let sorted = delays.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * percentile / 100).rounded(.up)) - 1)
        return sorted[max(0, index)].seconds
    }
}
