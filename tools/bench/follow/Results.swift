/// What the benchmark measured for one follower (all times in milliseconds): the report's rows
/// and `--json`'s objects.
struct ModeResult: Codable {
    var mode: FollowMode
    /// The follower's command line after the executable.
    var arguments: [String]
    var steady: SteadyResult
    var idle: IdleResult
    var burst: BurstResult
    /// The follower's VmHWM at the end, in KiB.
    var peakResidentKiB: Int?
    /// Markers shown more often than once per event (should be 0).
    var repeats: Int
    /// How the follower ended when stopped with SIGTERM ("exit 0" expected).
    var exit: String
}

/// The steady phase: events written at a fixed rate, each in its own transaction.
struct SteadyResult: Codable {
    var events: Int
    /// The rate asked for and the rate the writer kept, in events per second.
    var rate: Int
    var achievedRate: Double
    /// The latest a commit started after its planned time.
    var maximumScheduleLag: Double
    /// Commit returned → marker read from the follower's output.
    var latency: Latency?
    /// Events shown more than 50 ms after their commit returned.
    var over50Milliseconds: Int
    /// When the slowest event was committed, in seconds from the phase's start.
    var slowestAtSecond: Double?
    var lost: Int
    /// The follower's CPU time over the phase (first commit to last event shown, or the wait's
    /// end), as a percentage of one core.
    var followerCPUPercent: Double?
}

/// Percentiles of latencies, in milliseconds (nearest rank).
struct Latency: Codable {
    var count: Int
    var p50: Double
    var p90: Double
    var p99: Double
    var max: Double
    var min: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ percent: Double) -> Double {
            let index = Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        count = sorted.count
        p50 = rank(50)
        p90 = rank(90)
        p99 = rank(99)
        max = sorted[sorted.count - 1]
        min = sorted[0]
    }
}

/// The idle window: nothing written.
struct IdleResult: Codable {
    var seconds: Double
    /// The follower's CPU time in the window.
    var cpuMilliseconds: Double?
    /// As a percentage of one core.
    var cpuPercent: Double?
    /// Context switches in the window of its threads alive at its end: how often it woke at all.
    var contextSwitches: Int?
    /// What it printed meanwhile (should be 0).
    var bytesPrinted: Int
}

/// The burst: events written as fast as the writer can.
struct BurstResult: Codable {
    var events: Int
    /// Events per write transaction.
    var eventsPerTransaction: Int
    /// Burst start → the writer's last commit returned.
    var writerMilliseconds: Double
    /// Burst start → the last marker shown.
    var shownMilliseconds: Double?
    /// The writer's last commit → the last marker shown.
    var lagMilliseconds: Double?
    var lost: Int
    /// The follower's CPU time over the burst, as a percentage of one core.
    var followerCPUPercent: Double?
}
