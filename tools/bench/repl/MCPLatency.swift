import Foundation
import MirrorStore
import ToolSupport

/// Times MCP tool calls on a running `oa-repl --mcp`, request written to answer read, as a client
/// sees them: `search_sessions` with words from the mirror, `read_session` around random ordinals
/// of a long session and from the start of the longest.
struct MCPLatency {
    let repl: String
    let mirror: String
    /// Calls per case.
    let calls: Int
    let words: [String]

    /// One row of the report: what was called, p50 and p99 in ms, the answer's mean size.
    struct Row {
        var label: String
        var p50: Double
        var p99: Double
        var meanBytes: Double
    }

    func measure(long: SessionSummary, longest: SessionSummary) throws -> [Row] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repl)
        process.arguments = ["--db", mirror, "--mcp"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        var reader = LineReader(handle: output.fileHandleForReading)
        var nextID = 0
        func call(_ request: String) throws -> (Double, Int) {
            nextID += 1
            let line = request.replacingOccurrences(of: "\"id\":0", with: "\"id\":\(nextID)") + "\n"
            let start = ContinuousClock.now
            input.fileHandleForWriting.write(Data(line.utf8))
            while true {
                guard let answer = reader.nextLine() else { throw BenchmarkFailure("oa-repl --mcp ended: \(request)") }
                if answer.contains("\"id\":\(nextID),") {
                    guard !answer.contains("\"isError\":true"), !answer.contains("\"error\":") else {
                        throw BenchmarkFailure("oa-repl --mcp failed: \(answer.prefix(300))")
                    }
                    return ((ContinuousClock.now - start).seconds * 1000, answer.utf8.count)
                }
            }
        }
        _ = try call(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"oa-repl-bench","version":"1"}}}"#)
        input.fileHandleForWriting.write(Data(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8 + [0x0A]))

        var random = SplitMix64(seed: 5)
        func tool(_ name: String, _ arguments: String) -> String {
            #"{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"\#(name)","arguments":{\#(arguments)}}}"#
        }
        let cases: [(String, () -> String)] = [
            ("`search_sessions`, a word, 10 hits", {
                tool("search_sessions", #""query":"\#(words[Int.random(in: 0..<words.count, using: &random)])""#)
            }),
            ("`search_sessions`, a word in one session of \(long.localEventCount) events", {
                tool("search_sessions", #""query":"\#(words[Int.random(in: 0..<words.count, using: &random)])","session_id":"\#(long.sessionID)""#)
            }),
            ("`read_session` at a random ordinal of \(long.localEventCount) events", {
                tool("read_session", #""session_id":"\#(long.sessionID)","at":\#(Int64.random(in: 0..<long.localEventCount, using: &random))"#)
            }),
            ("`read_session` from the start of \(longest.localEventCount) events", {
                tool("read_session", #""session_id":"\#(longest.sessionID)""#)
            }),
        ]
        return try cases.map { label, request in
            _ = try call(request())
            var times: [Double] = []
            var bytes = 0
            for _ in 0..<calls {
                let (time, size) = try call(request())
                times.append(time)
                bytes += size
            }
            times.sort()
            func at(_ p: Double) -> Double { times[min(times.count - 1, Int((p / 100 * Double(times.count)).rounded(.up)) - 1)] }
            return Row(label: label, p50: at(50), p99: at(99), meanBytes: Double(bytes) / Double(calls))
        }
    }
}

/// Lines read from a pipe, blocking.
struct LineReader {
    let handle: FileHandle
    private var buffer: [UInt8] = []

    init(handle: FileHandle) {
        self.handle = handle
    }

    mutating func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            // availableData returns what the pipe holds (waiting for some); read(upToCount:) waits to fill its count.
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return nil }
            buffer += chunk
        }
    }
}
