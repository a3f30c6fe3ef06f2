import Foundation

/// The soak's results, and whether they meet the targets.
struct SoakReport {
    let timeline: MemoryTimeline
    let sent: SentUpdates
    let mirrored: MirroredUpdates
    let peakKiB: Int
    let warmUp: Duration
    /// Time between the rows of the table.
    let every: Duration
    let maxSlope: Double
    let maxPeakMiB: Double

    /// The slope is judged only over a window at least this long after the warm-up.
    static let slopeWindow = Duration.seconds(20 * 60)

    var exactlyOnce: Bool { mirrored.rows == sent.count && mirrored.distinctSeqs == sent.count }
    var slope: Double? { timeline.anonymousSlopeMiBPerHour(after: warmUp) }
    var judgesSlope: Bool { (timeline.samples.last?.elapsed ?? .zero) - warmUp >= Self.slopeWindow }
    var peakMiB: Double { Double(peakKiB) / 1024 }
    var coreShare: Double? { timeline.coreShare(after: warmUp) }

    var passed: Bool {
        exactlyOnce && peakMiB <= maxPeakMiB && (!judgesSlope || (slope.map { $0 <= maxSlope } ?? false))
    }

    func print() {
        Swift.print("| minute | RssAnon MiB | RssFile MiB | updates sent | cuts |\n|---:|---:|---:|---:|---:|")
        var nextRow = Duration.zero
        for (index, sample) in timeline.samples.enumerated() where sample.elapsed >= nextRow || index == timeline.samples.count - 1 {
            Swift.print("| \(f(sample.elapsed.seconds / 60, 1)) | \(mib(sample.anonymousKiB)) | \(mib(sample.fileBackedKiB)) | \(sample.updatesSent) | \(sample.cuts) |")
            while nextRow <= sample.elapsed { nextRow += every }
        }
        let afterWarmUp = timeline.after(warmUp).map(\.anonymousKiB)
        Swift.print("")
        Swift.print("updates: \(sent.count) sent (\(sent.endlessReplyBytes) bytes of text in the reply that never ends), \(sent.cuts) cuts; mirrored \(mirrored.rows) rows, \(mirrored.distinctSeqs) distinct seqs: \(exactlyOnce ? "each exactly once" : "NOT exactly once")")
        if let low = afterWarmUp.min(), let high = afterWarmUp.max() {
            Swift.print("RssAnon after the \(f(warmUp.seconds / 60, 0))-minute warm-up: \(mib(low))–\(mib(high)) MiB")
        }
        let slopeText = slope.map { f($0, 2) } ?? "?"
        Swift.print("RssAnon slope after the warm-up: \(slopeText) MiB an hour (target ≤ \(f(maxSlope, 1))\(judgesSlope ? "" : "; not judged: less than 20 minutes after the warm-up"))")
        Swift.print("oa-sync's CPU after the warm-up: \(coreShare.map { f($0 * 100, 1) } ?? "?") % of a core")
        Swift.print("peak RSS (VmHWM): \(f(peakMiB, 1)) MiB (target ≤ \(f(maxPeakMiB, 0)))")
        Swift.print(passed ? "\nall targets met" : "\nFAILED: a target is missed or an update was not mirrored exactly once")
    }

    private func mib(_ kib: Int) -> String { f(Double(kib) / 1024, 1) }
    private func f(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}
