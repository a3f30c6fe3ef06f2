import Foundation
import ToolSupport

/// Latencies of repeated runs of one operation.
struct LatencySample {
    private(set) var durations: [Duration] = []

    /// Runs `body` `iterations` times, timing each run.
    static func measure(iterations: Int, _ body: () throws -> Void) rethrows -> LatencySample {
        var sample = LatencySample()
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            sample.durations.append(try clock.measure(body))
        }
        return sample
    }

    func percentile(_ p: Double) -> Duration {
        let sorted = durations.sorted()
        guard !sorted.isEmpty else { return .zero }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// The process's peak resident set size, in MiB.
func peakResidentMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func formatted(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}
