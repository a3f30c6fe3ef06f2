/// Waits until `condition` holds, checking every 20 ms, for at most `timeout`; returns whether it did.
///
/// For conditions that something else makes true (a process, a server): the deadline only bounds a
/// failure, it never stands in for the condition.
public func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
