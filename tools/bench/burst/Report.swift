import Foundation

/// The benchmark's Markdown tables.
struct Report {
    let updates: Int
    /// Updates caught up on before the burst.
    let catchUp: Int
    let bytes: Int
    let baseline: BurstTiming
    let sync: SyncOutcome

    /// The requirement's limits.
    static let maximumRatio = 2.0
    static let maximumPeakMiB = 150.0

    func print() {
        let ratio = sync.timing.absorbing / baseline.absorbing
        let peakMiB = Double(sync.peakKiB) / 1024
        let count = sync.timing.burst.lastSeq - sync.timing.burst.firstSeq + 1
        Swift.print("""
            | burst of \(updates) updates of ~\(bytes) bytes | answer → last absorbed (s) | trigger → answer: simulator storing (s) | trigger → last absorbed (s) |
            |---|---:|---:|---:|
            | baseline: a client that reads and discards | \(f(baseline.absorbing)) | \(f(baseline.storing)) | \(f(baseline.total)) |
            | oa-sync, live, into its mirror | \(f(sync.timing.absorbing)) | \(f(sync.timing.storing)) | \(f(sync.timing.total)) |
            | oa-sync / baseline | **\(f(ratio))×** | | \(f(sync.timing.total / baseline.total))× |

            | oa-sync | measured | target | met |
            |---|---:|---:|---|
            | absorbed, relative to the baseline | \(f(ratio))× | ≤ \(f(Self.maximumRatio, 0))× | \(ratio <= Self.maximumRatio ? "yes" : "no") |
            | peak RSS (VmHWM) | \(f(peakMiB, 1)) MiB | ≤ \(f(Self.maximumPeakMiB, 0)) MiB | \(peakMiB <= Self.maximumPeakMiB ? "yes" : "no") |
            | highest RSS sampled every 50 ms | \(f(Double(sync.highestSampledKiB) / 1024, 1)) MiB | | |
            | mirrored exactly once (seqs \(sync.timing.burst.firstSeq)…\(sync.timing.burst.lastSeq)) | \(sync.rows) rows, \(sync.distinctSeqs) distinct seqs | \(count), \(count) | \(sync.exactlyOnce ? "yes" : "no") |
            | caught up before the burst, exactly once | \(sync.catchUpRows) distinct seqs | \(sync.catchUpCount) | \(sync.catchUpRows == sync.catchUpCount ? "yes" : "no") |
            | updates absorbed per second | \(Int(Double(count) / sync.timing.absorbing)) (baseline \(Int(Double(count) / baseline.absorbing))) | | |
            | an update found by search after its commit, p50 / p95 / max (\(sync.search.delays.count) sampled during the burst, \(sync.search.unfound) not found in \(Int(SearchProbe.patience.seconds)) s) | \(f(sync.search.seconds(at: 50))) / **\(f(sync.search.seconds(at: 95)))** / \(f(sync.search.seconds(at: 100))) s | p95 ≤ 1 s | \(sync.search.seconds(at: 95) <= 1 ? "yes" : "no") |
            """)
    }

    private func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
}
