import Commands
import Dispatch
import Foundation
import Primitives

/// SIGINT (Ctrl-C) and SIGTERM as the end of a long command rather than of the program.
enum Interruption {
    /// Runs `body` until it returns, or until SIGINT or SIGTERM arrives (`body` is then
    /// cancelled, and awaited); returns the signal that ended it, if one did. The signals' usual
    /// effect is back once it returns.
    static func run(_ body: @escaping @Sendable () async -> Void) async -> Int32? {
        // The first signal that arrived, awaited by the task that waits for one.
        let arrival = OneShot<Int32>()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { arrival.settle(number) }
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
            group.addTask { await arrival.valueUnlessCancelled() }
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
