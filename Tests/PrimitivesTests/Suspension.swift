/// Waits until `count()` reaches `expected`, yielding and looking again every millisecond, for at
/// most `timeout` (a full parallel run on two loaded cores can keep a task from running for
/// seconds); throws a failure with the reason otherwise.
///
/// The primitives count their suspended waiters under the lock that registers them, so a count
/// reached here proves the waiter is suspended (not merely started), before a test wakes it.
func waitUntilSuspended(_ expected: Int, _ what: String, timeout: Duration = .seconds(60),
                        count: () -> Int) async throws {
    let deadline = ContinuousClock.now + timeout
    while count() != expected {
        guard ContinuousClock.now < deadline else {
            throw SuspensionTimedOut(description: "\(what): \(count()) suspended waiter(s) after \(timeout), expected \(expected)")
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// The waiters did not suspend in time.
struct SuspensionTimedOut: Error, CustomStringConvertible {
    let description: String
}
