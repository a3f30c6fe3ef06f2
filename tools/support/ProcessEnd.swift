import Foundation
import Primitives

/// The end of a child process, awaited without holding a thread: the process's termination handler
/// settles a `OneShot`, and a waiting test sleeps its task until then or its deadline.
///
/// It replaces the process's termination handler.
public final class ProcessEnd: Sendable {
    private let exitStatus = OneShot<Int32>()
    /// The process's pid.
    public let processIdentifier: Int32

    /// Starts `process` (`run()`), watching for its end.
    public init(running process: Process) throws {
        let exitStatus = exitStatus
        process.terminationHandler = { exitStatus.settle($0.terminationStatus) }
        try process.run()
        processIdentifier = process.processIdentifier
    }

    /// Watches `process`, started already: a server that does not end until told to, so that
    /// its end cannot come before the handler is in place.
    public init(watching process: Process) {
        let exitStatus = exitStatus
        process.terminationHandler = { exitStatus.settle($0.terminationStatus) }
        processIdentifier = process.processIdentifier
        if !process.isRunning { exitStatus.settle(process.terminationStatus) }
    }

    /// The exit status once the process has ended, or nil when it did not within `timeout`.
    public func status(within timeout: Duration) async -> Int32? {
        await exitStatus.value(within: timeout)
    }

    /// Sends `signal`, then waits at most `timeout` for the end; past it (or at once when the
    /// calling task is cancelled), SIGKILL, and waits at most 10 s for that end too. The exit
    /// status, or `DidNotEnd` saying what happened.
    @discardableResult
    public func stop(with signal: Int32 = SIGTERM, within timeout: Duration = .seconds(30), program: String) async throws(DidNotEnd) -> Int32 {
        if let ended = exitStatus.settledValue { return ended }
        Foundation.kill(processIdentifier, signal)
        if let ended = await status(within: timeout) { return ended }
        let cancelled = Task.isCancelled
        await kill()
        throw DidNotEnd(description: cancelled ? "\(program) was killed: the test was cancelled before it ended"
                                               : "\(program) did not end within \(timeout) of signal \(signal), and was killed")
    }

    /// Kills the process (SIGKILL) and waits at most 10 s for its end, cancelled or not (a killed
    /// process ends at once; the wait only reaps it); false if it did not come.
    @discardableResult
    public func kill() async -> Bool {
        if exitStatus.settledValue != nil { return true }
        Foundation.kill(processIdentifier, SIGKILL)
        return await exitStatus.valueIgnoringCancellation(within: .seconds(10)) != nil
    }

    /// Whether the process has ended (as its termination handler said).
    public var hasEnded: Bool { exitStatus.settledValue != nil }

    /// Its exit status once it has ended; nil while it runs.
    public var endedStatus: Int32? { exitStatus.settledValue }

    /// A process that did not end when told to.
    public struct DidNotEnd: Error, CustomStringConvertible {
        public let description: String
    }
}
