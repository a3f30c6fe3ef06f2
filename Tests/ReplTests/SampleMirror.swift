import Foundation
import Primitives
import Synchronization
import TestSupport
import Testing
import ToolSupport

/// A mirror of the sample desktop history, made once by the real oa-sync from the real simulator,
/// then copied for each test.
enum SampleMirror {
    /// The attempt at making the mirror that callers await, if one was started: the first to ask
    /// makes it, the others await its outcome. An attempt ended by its maker's cancellation is
    /// dropped, and the next caller makes the mirror again; any other failure is every caller's.
    private static let attempt = Mutex<OneShot<Result<String, any Error>>?>(nil)

    /// A fresh copy of the sample mirror in `directory`.
    static func copy(in directory: TemporaryDirectory) async throws -> String {
        let path = directory.path("mirror.sqlite")
        try FileManager.default.copyItem(atPath: try await originalPath(), toPath: path)
        return path
    }

    /// The mirror made once for the whole run (its wait for oa-sync is off the pool).
    private static func originalPath() async throws -> String {
        while true {
            let (outcome, isMaker) = attempt.withLock { attempt in
                if let attempt { return (attempt, false) }
                let started = OneShot<Result<String, any Error>>()
                attempt = started
                return (started, true)
            }
            if isMaker {
                do {
                    outcome.settle(.success(try await make()))
                } catch {
                    if error is CancellationError { attempt.withLock { $0 = nil } }
                    outcome.settle(.failure(error))
                }
            }
            guard let made = await outcome.valueUnlessCancelled() else { throw CancellationError() }
            // Its maker was cancelled (its test ran past its limit): make it again, unless this
            // caller was cancelled too.
            if case .failure(let error) = made, error is CancellationError, !isMaker, !Task.isCancelled { continue }
            return try made.get()
        }
    }

    private static func make() async throws -> String {
        let directory = try TemporaryDirectory()
        let keep = directory.url.deletingLastPathComponent().appending(path: "oa-repl-sample-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
        removeAtExit(keep)
        let simulator = try await SimulatorProcess(flavor: "cursor", database: try SimulatorProcess.sampleDatabase(in: directory))
        let mirror = keep.appending(path: "mirror.sqlite").path
        let outcome = try await ProgramRun.run(BuildProducts.executable("oa-sync"),
                                                      ["--bridge", simulator.url, "--db", mirror, "--once", "--quiet"])
        guard outcome.status == 0 else { throw SampleError.syncFailed(outcome.standardError) }
        await simulator.kill()
        return mirror
    }

    /// The directories of the mirrors made in this run, removed as the test process exits (the
    /// mirror outlives every test, so no test's directory may hold it).
    private static let made = Mutex<[URL]>([])

    private static func removeAtExit(_ directory: URL) {
        let isFirst = made.withLock { made in
            made.append(directory)
            return made.count == 1
        }
        if isFirst {
            atexit {
                for directory in SampleMirror.made.withLock({ $0 }) { try? FileManager.default.removeItem(at: directory) }
            }
        }
    }

    enum SampleError: Error {
        case syncFailed(String)
    }
}

/// Compares `actual` with the golden file `name` (in Tests/ReplTests/Golden), after replacing what
/// changes from run to run (times of today, client message ids, ports). With UPDATE_GOLDEN=1 in
/// the environment, writes the file instead.
func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let normalized = normalize(actual)
    let url = Repository.root.appending(path: "Tests/ReplTests/Golden/\(name)")
    if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
        try Data(normalized.utf8).write(to: url)
        return
    }
    let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? "(missing golden file \(name))"
    #expect(normalized == expected, "\(name) differs from its golden file", sourceLocation: sourceLocation)
}

private func normalize(_ text: String) -> String {
    var text = text
    let replacements: [(String, String)] = [
        // Times from 2025 on are the run's clock; the sample's own are of 2024.
        (#"20(2[5-9]|[3-9][0-9])-[01][0-9]-[0-3][0-9]T[0-9:.]+Z"#, "<time>"),
        (#"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, "<uuid>"),
        (#"ws://127\.0\.0\.1:[0-9]+"#, "ws://127.0.0.1:<port>"),
        // A desktop's default name is its bridge's host and port.
        (#"127\.0\.0\.1:[0-9]+"#, "127.0.0.1:<port>"),
        (#"local-[0-9a-f]{8}"#, "local-<id>"),
        (#"/[^\s"]*/mirror\.sqlite"#, "<mirror>"),
    ]
    for (pattern, replacement) in replacements {
        text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
    }
    return text
}
