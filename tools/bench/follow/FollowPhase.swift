import Foundation
import ToolSupport

/// How each follower is measured.
struct PhaseSettings {
    var rate: Int
    var steadyEvents: Int
    var idle: Duration
    var burstEvents: Int
    var burstBatch: Int
    /// How long after the last commit of a phase its events may take to be shown.
    var catchUp: Duration
    /// How long a follower may take to be up.
    var ready: Duration
}

/// Measures one follower: starts it, waits until it is up, writes the steady phase, leaves it
/// idle, writes the burst, stops it.
struct FollowPhase {
    let mode: FollowMode
    let settings: PhaseSettings
    let writer: MirrorWriter
    let repl: String
    let work: URL

    /// Says what it is doing on standard error.
    var progress: (String) -> Void

    func run() throws -> ModeResult {
        let arguments = mode.arguments(mirror: writer.store.path, session: writer.sessions[0])
        let steadyCount = settings.steadyEvents
        let follower = try Follower(executable: repl, arguments: arguments, readsInput: mode.request != nil,
                                    expected: steadyCount + settings.burstEvents,
                                    log: work.appending(path: "oa-repl-\(mode.rawValue).log"))
        do {
            progress("\(mode.rawValue): starting oa-repl \(arguments.joined(separator: " "))")
            try waitUntilUp(follower)
            progress("\(mode.rawValue): up; \(steadyCount) events at \(settings.rate)/s")
            let steady = try steadyPhase(follower)
            progress("\(mode.rawValue): idle for \(Int(settings.idle.seconds)) s")
            let idle = idlePhase(follower)
            progress("\(mode.rawValue): burst of \(settings.burstEvents)")
            let burst = try burstPhase(follower)
            let peak = ProcessMemory.peakResidentKiB(follower.pid)
            let snapshot = follower.output.snapshot
            let exit = follower.stop()
            return ModeResult(mode: mode, arguments: arguments, steady: steady, idle: idle, burst: burst, peakResidentKiB: peak,
                              repeats: max(0, snapshot.occurrences - snapshot.arrived * mode.occurrencesPerEvent),
                              exit: exit)
        } catch {
            let exit = follower.stop(grace: .seconds(2))
            throw BenchmarkFailure("\(mode.rawValue): \(error) (oa-repl: \(exit); its standard error:\n\(follower.logTail))")
        }
    }

    /// Sends the request (JSON lines: its answer must come), then commits a probe every 100 ms
    /// until the follower shows one: a follower `--from now` shows only what is committed after
    /// it started.
    private func waitUntilUp(_ follower: Follower) throws {
        let deadline = Deadline("oa-repl to be up", limit: settings.ready)
        if let request = mode.request {
            try follower.send(request)
            guard follower.output.wait(until: deadline.end, for: { $0.sawFirstNewline }) else {
                throw deadline.exceeded(seen: "no answer to events.subscribe; output so far: \(printable(follower.output.snapshot.tail))")
            }
            let answer = String(decoding: follower.output.snapshot.firstLine, as: UTF8.self)
            guard answer.contains(#""result":{"subscription":"#) else {
                throw BenchmarkFailure("events.subscribe was not answered with a subscription: \(answer.debugDescription)")
            }
        }
        var probe = 0
        while true {
            try writer.commit(.probe(probe), session: writer.sessions[0])
            probe += 1
            let next = ContinuousClock.now + .milliseconds(100)
            if follower.output.wait(until: min(next, deadline.end), for: { $0.probes > 0 }) { return }
            let snapshot = follower.output.snapshot
            if snapshot.ended { throw BenchmarkFailure("oa-repl closed its output before it showed a probe: \(printable(snapshot.tail))") }
            if deadline.hasPassed { throw deadline.exceeded(seen: "\(probe) probes committed, none shown; output: \(printable(snapshot.tail))") }
        }
    }

    /// Events 0 ..< steadyEvents at the rate asked, each in its own transaction, paced by
    /// deadlines from the start; then waits for them all to be shown.
    private func steadyPhase(_ follower: Follower) throws -> SteadyResult {
        let count = settings.steadyEvents
        let interval = Duration.seconds(1) / settings.rate
        var commits: [ContinuousClock.Instant] = []
        commits.reserveCapacity(count)
        var lag = Duration.zero
        let cpuBefore = follower.cpuTime
        let start = ContinuousClock.now + .milliseconds(5)
        for index in 0..<count {
            let planned = start + interval * index
            sleep(until: planned)
            lag = max(lag, .now - planned)
            commits.append(try writer.commit(.measured(index), session: mode.session(for: index, of: writer.sessions)))
        }
        let written = ContinuousClock.now
        let deadline = Deadline("the steady phase's \(count) events to be shown", limit: settings.catchUp)
        let complete = follower.output.wait(until: deadline.end) { $0.arrived >= count }
        let cpuAfter = follower.cpuTime
        let cpuEnd = ContinuousClock.now
        let snapshot = follower.output.snapshot
        if !complete && snapshot.ended { throw BenchmarkFailure("oa-repl closed its output during the steady phase: \(printable(snapshot.tail))") }
        let shown = (0..<count).compactMap { index in snapshot.arrivals[index].map { (index, ($0 - commits[index]).fractionalMilliseconds) } }
        let latencies = shown.map(\.1)
        let slowest = shown.max { $0.1 < $1.1 }
        return SteadyResult(
            events: count, rate: settings.rate,
            achievedRate: Double(count) / (written - start).seconds,
            maximumScheduleLag: lag.fractionalMilliseconds,
            latency: Latency(latencies), over50Milliseconds: latencies.count { $0 > 50 },
            slowestAtSecond: slowest.map { (commits[$0.0] - start).seconds },
            lost: count - latencies.count,
            followerCPUPercent: percent(cpuBefore, cpuAfter, over: cpuEnd - start)
        )
    }

    /// Writes nothing for the idle time and reads the follower's CPU time before and after.
    private func idlePhase(_ follower: Follower) -> IdleResult {
        let bytesBefore = follower.output.snapshot.bytes
        let switchesBefore = ProcessStat.contextSwitches(of: follower.pid)
        let cpuBefore = follower.cpuTime
        let start = ContinuousClock.now
        sleep(until: start + settings.idle)
        let cpuAfter = follower.cpuTime
        let switchesAfter = ProcessStat.contextSwitches(of: follower.pid)
        let window = ContinuousClock.now - start
        let used = cpuBefore.flatMap { before in cpuAfter.map { $0 - before } }
        return IdleResult(seconds: window.seconds, cpuMilliseconds: used?.fractionalMilliseconds,
                          cpuPercent: percent(cpuBefore, cpuAfter, over: window),
                          contextSwitches: ProcessStat.switches(from: switchesBefore, to: switchesAfter),
                          bytesPrinted: follower.output.snapshot.bytes - bytesBefore)
    }

    /// Events steadyEvents ..< steadyEvents + burstEvents as fast as they commit, in
    /// transactions of `burstBatch`; then waits for them all to be shown.
    private func burstPhase(_ follower: Follower) throws -> BurstResult {
        let first = settings.steadyEvents
        let range = first..<(first + settings.burstEvents)
        let cpuBefore = follower.cpuTime
        let start = ContinuousClock.now
        var index = range.lowerBound
        while index < range.upperBound {
            let batch = (index..<min(range.upperBound, index + settings.burstBatch)).map {
                (Marker.measured($0), mode.session(for: $0 - first, of: writer.sessions))
            }
            try writer.commit(batch)
            index += batch.count
        }
        let written = ContinuousClock.now
        let deadline = Deadline("the burst's \(range.count) events to be shown", limit: settings.catchUp + .seconds(range.count / 200))
        let complete = follower.output.wait(until: deadline.end) { $0.arrived >= range.upperBound }
        let cpuAfter = follower.cpuTime
        let cpuEnd = ContinuousClock.now
        let snapshot = follower.output.snapshot
        if !complete && snapshot.ended { throw BenchmarkFailure("oa-repl closed its output during the burst: \(printable(snapshot.tail))") }
        let shown = range.compactMap { snapshot.arrivals[$0] }
        let last = shown.max()
        return BurstResult(
            events: range.count, eventsPerTransaction: settings.burstBatch,
            writerMilliseconds: (written - start).fractionalMilliseconds,
            shownMilliseconds: last.map { ($0 - start).fractionalMilliseconds },
            lagMilliseconds: last.map { ($0 - written).fractionalMilliseconds },
            lost: range.count - shown.count,
            followerCPUPercent: percent(cpuBefore, cpuAfter, over: cpuEnd - start)
        )
    }

    /// CPU time used between two readings as a percentage of one core over `window`.
    private func percent(_ before: Duration?, _ after: Duration?, over window: Duration) -> Double? {
        guard let before, let after, window > .zero else { return nil }
        return (after - before).seconds / window.seconds * 100
    }

    /// Output bytes as text for a message (control characters shown as escapes).
    private func printable(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).debugDescription
    }
}
