import Primitives
import Testing

/// A test's time limit that measures the test and ends it, and, for a test that starts programs, its
/// place in `ProgramGate.shared`: `@Suite("…", .startsPrograms(endsWithin: .seconds(120)))`, or
/// `.endsWithin(.seconds(30))` for a test that runs in-process only. On a suite it applies to
/// each of its tests, and to each case of a parameterized one.
///
/// Use it instead of Swift Testing's `.timeLimit`, which counts from the test's start, a wait
/// for a place included, and whose granularity is minutes. Past the limit the test is told so
/// (an issue naming the limit) and cancelled; every wait of the tests and their helpers heeds
/// cancellation (`waitFor`, `within`, `ProgramRun`, …), so the test then ends. One that has not
/// ended `grace` later is reported again, naming the wait that ignores cancellation as the cause.
public struct TestBound: TestTrait, SuiteTrait, TestScoping {
    /// How long the test may run once it has its place.
    public let limit: Duration
    /// Whether the test takes a place in `ProgramGate.shared` first.
    public let startsPrograms: Bool
    /// How long a cancelled test may take to end before it is reported as stuck.
    public static let grace = Duration.seconds(30)

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> TestBound? {
        test.isSuite || testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let report: @Sendable (String) -> Void = { Issue.record(Comment(rawValue: $0), sourceLocation: test.sourceLocation) }
        if startsPrograms {
            try await ProgramGate.shared.withPlace {
                try await Self.run(limit: limit, grace: Self.grace, report: report, function)
            }
        } else {
            try await Self.run(limit: limit, grace: Self.grace, report: report, function)
        }
    }

    /// Runs `body` in a child task for at most `limit`: past it, `report`s the overrun and cancels
    /// it, then `report`s again if it has not ended `grace` later (and goes on waiting: the child
    /// is structured). A `CancellationError` the cancelled body throws is not rethrown, the overrun
    /// having been reported; its other errors are. Cancelling the caller cancels the body, unreported.
    public static func run(limit: Duration, grace: Duration, report: @Sendable (String) -> Void,
                           _ body: @Sendable () async throws -> Void) async throws {
        try await withoutActuallyEscaping(body) { body in
            try await withThrowingTaskGroup(of: Void.self) { group in
                let ended = OneShot<Void>()
                group.addTask {
                    defer { ended.settle() }
                    try await body()
                }
                var overran = false
                if await ended.value(within: limit) == nil, !Task.isCancelled {
                    overran = true
                    report("the test ran past its limit of \(limit) and was cancelled")
                    group.cancelAll()
                    if await ended.value(within: grace) == nil, !Task.isCancelled {
                        report("the test was still running \(grace) after it was cancelled: a wait in it ignores cancellation")
                    }
                }
                do {
                    try await group.waitForAll()
                } catch is CancellationError where overran {
                    // Reported above, as the overrun it is.
                }
            }
        }
    }
}

extension Trait where Self == TestBound {
    /// Each test ends within `limit`, in-process: reported and cancelled past it.
    public static func endsWithin(_ limit: Duration) -> Self {
        TestBound(limit: limit, startsPrograms: false)
    }

    /// Each test takes a place in `ProgramGate.shared` before it starts, and ends within `limit`
    /// of getting it.
    public static func startsPrograms(endsWithin limit: Duration) -> Self {
        TestBound(limit: limit, startsPrograms: true)
    }
}
