import Commands
import Dispatch
import Foundation
import Synchronization

/// SIGINT (Ctrl-C) and SIGTERM as the end of a long command rather than of the program.
enum Interruption {
    /// Runs `body` until it returns, or until SIGINT or SIGTERM arrives (`body` is then
    /// cancelled, and awaited); returns the signal that ended it, if one did. The signals' usual
    /// effect is back once it returns.
    static func run(_ body: @escaping @Sendable () async -> Void) async -> Int32? {
        let arrival = SignalArrival()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { arrival.record(number) }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        return await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                await body()
                return nil
            }
            group.addTask { await arrival.wait() }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// From now on, SIGINT and SIGTERM end the program with status 0, between two lines of
    /// `output` (a JSON-lines session has nothing else to finish). Keep the result for as long as
    /// that should hold.
    static func exitingOnSignals(between output: StandardOutput) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { output.exitBetweenLines(status: 0) }
            source.resume()
            return source
        }
    }
}

/// The first signal that arrived, and the task waiting for one.
private final class SignalArrival: Sendable {
    private let state = Mutex<(signal: Int32?, waiter: CheckedContinuation<Int32?, Never>?)>((nil, nil))

    func record(_ number: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Int32?, Never>? in
            if state.signal == nil { state.signal = number }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: number)
    }

    /// The signal, once one arrived; nil if the task is cancelled first.
    func wait() async -> Int32? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                let now = state.withLock { state -> Int32?? in
                    if let signal = state.signal { return .some(signal) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Int32?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume(returning: nil)
        }
    }
}
