import Bridge
import Foundation
import MirrorStore
import Primitives
import TestSupport
import Testing
import ToolSupport

/// `oa-repl --jsonl` held to one CPU (`taskset -c 0`), where Swift's cooperative pool has a single
/// thread: a command that runs SQLite for a long time must not hold the subscriptions up.
///
/// `OA_REPL=PATH` runs another build of oa-repl instead (docs/benchmarks.md: the same test on the
/// code before the command layer had a thread of its own).
@Suite("JSON lines on one core", .serialized, .startsPrograms(endsWithin: .seconds(600)))
struct OneCoreSubscriptionTests {
    /// The most a notification may come after its commit while the search runs.
    static let notificationBound = Duration.milliseconds(500)

    @Test("a search of a second or more does not delay a subscription's notifications (taskset -c 0)")
    func longSearchDoesNotDelayNotifications() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let executable = ProcessInfo.processInfo.environment["OA_REPL"].map { URL(fileURLWithPath: $0) } ?? BuildProducts.executable("oa-repl")

        // The mirror written and the delays measured on a thread of its own: writing takes tens of
        // seconds, which would hold a thread of the test process's pool (shared with the other
        // tests), and the pool's own delays would add to the times of the commits and lines read.
        let measured = OneShot<Result<NotificationDelays, NotificationDelays.Failure>>()
        Thread {
            measured.settle(Result { () throws(NotificationDelays.Failure) in try NotificationDelays.measure(mirror: mirror, executable: executable) })
        }.start()
        // Its thread ends by itself: every wait in it has a deadline.
        guard let outcome = await measured.valueUnlessCancelled() else { throw CancellationError() }
        let delays = try outcome.get()

        let worst = delays.delays.values.max() ?? .zero
        print("one core: the search took \(delays.searchTook); \(delays.committed) commits meanwhile, "
              + "notified after \(delays.delays.values.min() ?? .zero) to \(worst)")
        #expect(delays.delays.count == delays.committed, "every event committed during the search was notified")
        #expect(delays.searchTook >= .seconds(1), "the search must take a second or more for the test to say anything: \(delays.searchTook)")
        #expect(worst < Self.notificationBound, "a notification came \(worst) after its commit, during a search of \(delays.searchTook)")
        #expect(try await delays.end.stop(within: .seconds(30), program: "oa-repl") == 0)
    }
}

/// How long after their commits a subscription's notifications came while a long search ran, as
/// one thread saw it: it writes the mirror (`SlowSearchHistory`), runs `taskset -c 0 oa-repl --jsonl`, subscribes, sends the search, and
/// commits an event every 100 ms until the search's answer arrives, reading oa-repl's output
/// meanwhile (every wait bounded).
struct NotificationDelays: Sendable {
    /// From sending the search to its answer.
    var searchTook: Duration
    /// How many events were committed before the answer.
    var committed: Int
    /// By event text, from its commit to its notification.
    var delays: [String: Duration]
    /// The end of the oa-repl measured, still running.
    var end: ProcessEnd

    /// Why the measure could not be made.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let commitInterval = Duration.milliseconds(100)

    static func measure(mirror: String, executable: URL) throws(Failure) -> NotificationDelays {
        // A write to an oa-repl that has ended fails with EPIPE rather than ending the test run.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-c", "0", executable.path, "--db", mirror, "--jsonl"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            let store = try MirrorStore(path: mirror)
            try SlowSearchHistory.write(into: store)
            let end = try ProcessEnd(running: process)
            try? output.fileHandleForWriting.close()
            var lines = BlockingLines(descriptor: output.fileHandleForReading.fileDescriptor)
            func send(_ line: String) throws { try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }

            try send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"after":"now"}}"#)
            let subscribed = ContinuousClock.now + .seconds(60)
            while try lines.next(before: subscribed).map({ try JSONParser.parse($0)["id"]?.int64Value }) != 1 {
                guard ContinuousClock.now < subscribed else { throw Failure(description: "events.subscribe was not answered within 60 s") }
            }

            try send(#"{"jsonrpc":"2.0","id":2,"method":"search","params":{"query":"\#(SlowSearchHistory.slowQuery)","limit":20}}"#)
            let sent = ContinuousClock.now
            var committed: [String: ContinuousClock.Instant] = [:]
            var delays: [String: Duration] = [:]
            var answered: ContinuousClock.Instant?
            var nextCommit = sent
            while answered == nil {
                guard ContinuousClock.now - sent < .seconds(120) else { throw Failure(description: "the search was not answered within 120 s") }
                if ContinuousClock.now >= nextCommit {
                    let probe = "probe\(committed.count)"
                    try store.appendEvents([chunkEvent("probes", probe)])
                    committed[probe] = .now
                    nextCommit += commitInterval
                }
                guard let line = try lines.next(before: nextCommit) else { continue }
                let json = try JSONParser.parse(line)
                if json["id"]?.int64Value == 2 {
                    guard json["result"]?.arrayValue?.isEmpty == false else { throw Failure(description: "the search found nothing: \(line.prefix(300))") }
                    answered = .now
                }
                note(json, committed: committed, into: &delays)
            }
            // The notifications of the last commits may come after the answer.
            let deadline = ContinuousClock.now + .seconds(30)
            while delays.count < committed.count, let line = try lines.next(before: deadline) {
                note(try JSONParser.parse(line), committed: committed, into: &delays)
            }
            return NotificationDelays(searchTook: (answered ?? sent) - sent, committed: committed.count, delays: delays, end: end)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    /// Notes the delay of every probe that `json` (an `events.appended` notification) carries.
    private static func note(_ json: JSONValue, committed: [String: ContinuousClock.Instant], into delays: inout [String: Duration]) {
        guard json["method"]?.stringValue == "events.appended" else { return }
        for event in json["params"]?["events"]?.arrayValue ?? [] {
            guard let text = event["text"]?.stringValue, let commit = committed[text], delays[text] == nil else { continue }
            delays[text] = .now - commit
        }
    }
}

/// Lines read from a pipe by the thread that waits for them (`poll`, with a deadline).
struct BlockingLines {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line, or nil when none came before `deadline`.
    mutating func next(before deadline: ContinuousClock.Instant) throws(NotificationDelays.Failure) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                defer { buffer.removeSubrange(...newline) }
                return String(decoding: buffer[..<newline], as: UTF8.self)
            }
            let left = deadline - .now
            guard left > .zero else { return nil }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(clamping: left.milliseconds + 1)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw NotificationDelays.Failure(description: "oa-repl ended before the awaited line") }
            buffer += chunk[..<count]
        }
    }
}

/// A mirror on which one search takes a second or more: every event holds words no other holds,
/// all starting with `q`, so that the prefix query `q*` has FTS5 merge the list of every one.
enum SlowSearchHistory {
    static let events = 800_000
    static let wordsPerEvent = 8
    static let slowQuery = "q*"

    static func write(into store: MirrorStore) throws {
        var random = SplitMix64(seed: 25)
        var written = 0
        while written < events {
            let page = (0..<min(5000, events - written)).map { index -> NewEvent in
                let words = (0..<wordsPerEvent).map { _ in "q" + String(UInt64.random(in: 0..<(1 << 40), using: &random), radix: 36) }
                // Entries of their own (a chunk is one only with a message), so that one search reads 800,000.
                var event = chunkEvent("session-\((written + index) % 50)", words.joined(separator: " "))
                event.kind = "tool_call"
                return event
            }
            try store.appendEvents(page)
            written += page.count
        }
    }
}
