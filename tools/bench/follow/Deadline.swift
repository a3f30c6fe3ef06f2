import Foundation
import MirrorStore
import ToolSupport

/// How long a wait of the benchmark may take, and the failure that says what it waited for:
/// every wait here has one.
struct Deadline {
    let what: String
    let limit: Duration
    let end: ContinuousClock.Instant

    init(_ what: String, limit: Duration) {
        self.what = what
        self.limit = limit
        end = .now + limit
    }

    var hasPassed: Bool { ContinuousClock.now >= end }

    /// The failure to throw when the deadline passed; `seen` says how far it got.
    func exceeded(seen: String) -> BenchmarkFailure {
        BenchmarkFailure("gave up after \(String(format: "%.1f", limit.seconds)) s waiting for \(what); \(seen)")
    }
}

/// Sleeps the calling thread until `instant` (at once when it has passed): pacing by deadlines,
/// so that a late wake-up does not delay the ones after it.
func sleep(until instant: ContinuousClock.Instant) {
    let left = instant - .now
    guard left > .zero else { return }
    let nanoseconds = left.nanoseconds
    var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0, errno == EINTR {
        request = remaining
    }
}

extension Duration {
    /// In milliseconds, as a floating-point number (MirrorStore's `milliseconds` is whole).
    var fractionalMilliseconds: Double { seconds * 1000 }
}
