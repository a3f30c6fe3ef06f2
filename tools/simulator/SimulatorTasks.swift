/// Work the simulator starts from inside its actor, where no task group can reach: requests
/// handled while the connection's next frames are read, and updates broadcast after an answer.
/// Each job runs as a child task of `run()`, which lives as long as the server: when the server
/// stops, `run()`'s task is cancelled, the jobs with it, and `run()` returns once they all ended.
final class SimulatorTasks: Sendable {
    typealias Job = @Sendable () async -> Void

    private let jobs: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation

    /// Jobs wait here between `start` and `run` taking them, unbounded as the requests are: one
    /// job per request answered or broadcast started, each taken at once while `run` runs.
    init() {
        (jobs, continuation) = AsyncStream.makeStream(of: Job.self)
    }

    /// Runs `job` as a child task of `run()` (dropped once the server has stopped).
    func start(_ job: @escaping Job) {
        continuation.yield(job)
    }

    /// Runs every job started, each as a child task, until the calling task is cancelled; then
    /// returns once the jobs running have ended.
    func run() async {
        await withDiscardingTaskGroup { group in
            for await job in jobs {
                group.addTask(operation: job)
            }
        }
    }
}
