#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the store reads "now" from, in milliseconds since the Unix epoch.
public struct MirrorClock: Sendable {
    public let now: @Sendable () -> Int64

    public init(now: @escaping @Sendable () -> Int64) {
        self.now = now
    }

    /// The system's wall clock.
    public static let system = MirrorClock {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
