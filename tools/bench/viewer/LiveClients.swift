import Foundation
import MirrorStore
import Synchronization
import ToolSupport

/// Pages following a session live, as the viewer's script does: each holds `/live?session=ID`
/// open and, told of a change, fetches the session's tail (`/entries?from=` its last entry). A
/// writer meanwhile commits a reply in a burst, a piece per commit; each page notes when each
/// piece first shows in what it fetched. The latency of a piece in a page: its commit to that.
final class LiveClients: Sendable {
    let port: Int
    let sessionID: String
    private let committed = Mutex<[Int: ContinuousClock.Instant]>([:])
    private let latencies = Mutex<[Double]>([])
    private let stopping = Mutex(false)
    private let opened = Mutex(0)

    init(port: Int, sessionID: String) {
        self.port = port
        self.sessionID = sessionID
    }

    /// Runs `clients` pages and a burst of `commits` commits (one piece each, `interval` apart),
    /// written to `mirror`; returns every piece's latency in every page (ms) and how many
    /// (page, piece) pairs were never seen within 10 s of the last commit.
    func run(clients: Int, commits: Int, interval: Duration, mirror: String) throws -> (latencies: [Double], missed: Int) {
        let threads = (0..<clients).map { _ in Thread { self.follow() } }
        threads.forEach { $0.start() }
        let opening = ContinuousClock.now + .seconds(30)
        while opened.withLock({ $0 }) < clients {
            guard ContinuousClock.now < opening else { throw BenchmarkFailure("only \(opened.withLock { $0 }) of \(clients) streams opened in 30 s") }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let writer = try MirrorStore(path: mirror)
        for piece in 0..<commits {
            let text = " mk\(piece)x"
            _ = try writer.appendEvents([NewEvent(sessionID: sessionID, timestamp: nil, kind: "agent_message_chunk", text: text,
                                                  updateJSON: Array(#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\#(text)"}}"#.utf8))],
                                        history: nil)
            let now = ContinuousClock.now
            committed.withLock { $0[piece] = now }
            Thread.sleep(forTimeInterval: interval.seconds)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, latencies.withLock({ $0.count }) < clients * commits {
            Thread.sleep(forTimeInterval: 0.05)
        }
        stopping.withLock { $0 = true }
        let seen = latencies.withLock { $0 }
        return (seen, clients * commits - seen.count)
    }

    private func follow() {
        guard let descriptor = try? HTTPProbe.connect(port: port) else { return }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let encoded = sessionID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? sessionID
        try? HTTPProbe.send("GET /live?session=\(encoded) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", on: descriptor)
        let probe = HTTPProbe(port: port)
        var from: Int64 = 0
        var seen = Set<Int>()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var open = false
        while !stopping.withLock({ $0 }) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return }
            guard count > 0 else { continue }
            let text = String(decoding: buffer[..<count], as: UTF8.self)
            if !open, text.contains(": open") {
                open = true
                opened.withLock { $0 += 1 }
            }
            guard text.contains("event: change") else { continue }
            guard let (_, answer) = try? probe.get("/sessions/\(encoded)/entries?from=\(from)") else { continue }
            let now = ContinuousClock.now
            if let last = answer.matches(of: /<section id="e-(\d+)"/).last, let ordinal = Int64(last.1) { from = ordinal }
            for match in answer.matches(of: /mk(\d+)x/) {
                guard let piece = Int(match.1), !seen.contains(piece), let at = committed.withLock({ $0[piece] }) else { continue }
                seen.insert(piece)
                latencies.withLock { $0.append((now - at).seconds * 1000) }
            }
        }
    }
}
