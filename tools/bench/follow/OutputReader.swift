import Foundation
import Synchronization

/// What a follower printed so far, as a thread of its own reads it from the follower's standard
/// output: when each measured marker first arrived, how many probes came, the first line (the
/// JSON-lines answer), and whether the output ended.
///
/// The reader thread writes, the benchmark's thread reads and waits; both through one lock.
final class FollowerOutput: Sendable {
    struct State {
        /// When each measured marker first arrived (nil: not yet), by its number.
        var arrivals: [ContinuousClock.Instant?]
        /// Measured markers arrived, each counted once.
        var arrived = 0
        /// Every occurrence of a measured marker, repeats included.
        var occurrences = 0
        /// Markers whose number is past the expected ones.
        var unexpected = 0
        var probes = 0
        var bytes = 0
        /// The first line, or the first 4 KiB of it.
        var firstLine: [UInt8] = []
        var sawFirstNewline = false
        /// The last bytes read, for failure messages.
        var tail: [UInt8] = []
        /// End of output (the follower closed it or exited), or a read error.
        var ended = false
        /// Set by a waiter that sleeps on `wake`; the reader clears it and signals.
        var waiting = false
    }

    private let state: Mutex<State>
    private let wake = DispatchSemaphore(value: 0)

    /// For `expected` measured markers, numbered 0 ..< expected.
    init(expected: Int) {
        state = Mutex(State(arrivals: Array(repeating: nil, count: expected)))
    }

    /// A copy of what was seen so far.
    var snapshot: State { state.withLock { $0 } }

    /// Reads `descriptor` to its end on a new thread, then closes it.
    func startReading(_ descriptor: Int32) {
        let thread = Thread { [self] in
            var scanner = MarkerScanner()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let now = ContinuousClock.now
                buffer.withUnsafeBytes { record(UnsafeRawBufferPointer(rebasing: $0[..<count]), at: now, scanner: &scanner) }
            }
            close(descriptor)
            let waiter = state.withLock { state in
                state.ended = true
                defer { state.waiting = false }
                return state.waiting
            }
            if waiter { wake.signal() }
        }
        thread.name = "follower-output"
        thread.start()
    }

    /// Waits until `condition` holds, the output ends, or `deadline` passes; returns whether
    /// the condition holds.
    func wait(until deadline: ContinuousClock.Instant, for condition: (State) -> Bool) -> Bool {
        while true {
            let (holds, ended) = state.withLock { state in
                let holds = condition(state)
                if !holds && !state.ended { state.waiting = true }
                return (holds, state.ended)
            }
            if holds { return true }
            if ended { return false }
            let left = deadline - .now
            guard left > .zero else { return false }
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(left, .seconds(3600)).nanoseconds)))
        }
    }

    /// Takes a chunk read at `now`: every marker in it arrived then.
    private func record(_ bytes: UnsafeRawBufferPointer, at now: ContinuousClock.Instant, scanner: inout MarkerScanner) {
        let waiter = state.withLock { state in
            state.bytes += bytes.count
            if !state.sawFirstNewline {
                let line = bytes.prefix { $0 != 0x0A }
                state.firstLine.append(contentsOf: line.prefix(max(0, 4096 - state.firstLine.count)))
                state.sawFirstNewline = line.count < bytes.count
            }
            state.tail = Array((state.tail + bytes).suffix(2048))
            scanner.scan(bytes) { marker in
                switch marker {
                case .probe:
                    state.probes += 1
                case .measured(let number) where number < state.arrivals.count:
                    state.occurrences += 1
                    if state.arrivals[number] == nil {
                        state.arrivals[number] = now
                        state.arrived += 1
                    }
                case .measured:
                    state.unexpected += 1
                }
            }
            defer { state.waiting = false }
            return state.waiting
        }
        if waiter { wake.signal() }
    }
}
