import Dispatch
import Foundation
import Synchronization

/// A serial executor that runs its jobs, in order, on one thread of its own.
///
/// An actor that makes blocking calls uses it as its executor (`unownedExecutor`), so that they
/// never occupy a thread of Swift's cooperative pool: one that owns a database connection (a
/// commit waits for the disk; GRDB's serialized writer is the model), or one that writes to a
/// pipe nobody reads yet. The thread ends when the executor is released.
public final class ThreadExecutor: SerialExecutor {
    private let queue = JobQueue()

    /// Starts the thread, named `name` (as `top`, `perf` and debuggers show it; at most 15 bytes).
    public init(name: String) {
        let queue = self.queue
        let executor = UnownedSerialExecutor(ordinary: self)
        let threadName = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            // Named from inside, before any job, once `start()` has returned: Foundation's setter
            // names the system's thread only once `start()` has recorded it, so a thread that ran
            // first kept the name of the one that made it (a race that a loaded machine lost).
            started.wait()
            Thread.current.name = threadName
            while let jobs = queue.waitForJobs() {
                for job in jobs { job.runSynchronously(on: executor) }
            }
        }
        thread.start()
        started.signal()
    }

    deinit {
        queue.stop()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job))
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// The jobs waiting for the executor's thread.
private final class JobQueue: Sendable {
    private let state = Mutex<(jobs: [UnownedJob], stopped: Bool)>(([], false))
    private let wakeUp = DispatchSemaphore(value: 0)

    func push(_ job: UnownedJob) {
        let wasEmpty = state.withLock { state in
            state.jobs.append(job)
            return state.jobs.count == 1
        }
        if wasEmpty { wakeUp.signal() }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wakeUp.signal()
    }

    /// Every waiting job, once there is one; nil once stopped with none left.
    func waitForJobs() -> [UnownedJob]? {
        while true {
            let (jobs, stopped) = state.withLock { state in
                defer { state.jobs.removeAll(keepingCapacity: true) }
                return (state.jobs, state.stopped)
            }
            if !jobs.isEmpty { return jobs }
            if stopped { return nil }
            wakeUp.wait()
        }
    }
}
