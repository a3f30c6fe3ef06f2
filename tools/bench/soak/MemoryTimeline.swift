import Foundation
import ToolSupport

/// oa-sync's memory over the soak, sampled from `/proc/PID/status`.
struct MemoryTimeline {
    struct Sample {
        /// Since oa-sync was live.
        let elapsed: Duration
        let anonymousKiB: Int
        let fileBackedKiB: Int
        /// oa-sync's CPU time so far, in seconds.
        let cpuSeconds: Double
        let updatesSent: Int64
        let cuts: Int
    }

    private(set) var samples: [Sample] = []

    mutating func append(_ sample: Sample) { samples.append(sample) }

    /// The samples taken from `warmUp` on.
    func after(_ warmUp: Duration) -> [Sample] { samples.filter { $0.elapsed >= warmUp } }

    /// The least-squares slope of `RssAnon` over the samples from `warmUp` on, in MiB an hour;
    /// nil with fewer than two.
    func anonymousSlopeMiBPerHour(after warmUp: Duration) -> Double? {
        let points = after(warmUp).map { (x: $0.elapsed.seconds / 3600, y: Double($0.anonymousKiB) / 1024) }
        guard points.count >= 2 else { return nil }
        let meanX = points.reduce(0) { $0 + $1.x } / Double(points.count)
        let meanY = points.reduce(0) { $0 + $1.y } / Double(points.count)
        let covariance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) }
        let variance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        return variance > 0 ? covariance / variance : nil
    }

    /// The share of a core oa-sync used from `warmUp` on.
    func coreShare(after warmUp: Duration) -> Double? {
        let window = after(warmUp)
        guard let first = window.first, let last = window.last, last.elapsed > first.elapsed else { return nil }
        return (last.cpuSeconds - first.cpuSeconds) / (last.elapsed - first.elapsed).seconds
    }

    /// Writes the samples as tab-separated values: seconds, RssAnon and RssFile in KiB, oa-sync's
    /// CPU seconds, updates sent, cuts.
    func write(to url: URL) throws {
        var text = "seconds\trss_anon_kib\trss_file_kib\tcpu_seconds\tupdates_sent\tcuts\n"
        for sample in samples {
            text += "\(Int(sample.elapsed.seconds))\t\(sample.anonymousKiB)\t\(sample.fileBackedKiB)\t\(String(format: "%.2f", sample.cpuSeconds))\t\(sample.updatesSent)\t\(sample.cuts)\n"
        }
        try Data(text.utf8).write(to: url)
    }
}
