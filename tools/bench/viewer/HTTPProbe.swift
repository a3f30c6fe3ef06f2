import Foundation
import ToolSupport

/// Requests to the viewer over loopback, one connection each, timed from connect to the last
/// byte (blocking: the benchmark has nothing else to do meanwhile).
struct HTTPProbe {
    let port: Int

    /// `GET path`: the time in ms and the answer (head and body).
    func get(_ path: String) throws -> (milliseconds: Double, answer: String) {
        let start = ContinuousClock.now
        let descriptor = try Self.connect(port: port)
        defer { close(descriptor) }
        try Self.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n", on: descriptor)
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else { throw BenchmarkFailure("recv from the viewer: errno \(errno)") }
            answer += buffer[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 2") else { throw BenchmarkFailure("GET \(path): \(text.prefix(300))") }
        return ((ContinuousClock.now - start).seconds * 1000, text)
    }

    static func connect(port: Int) throws -> Int32 {
        try LoopbackSocket.connect(port: port, receiveTimeout: 30)
    }

    static func send(_ text: String, on descriptor: Int32) throws {
        try LoopbackSocket.send(Array(text.utf8), on: descriptor)
    }
}

/// p50, p99 (and max) of `times`.
struct Percentiles {
    var p50: Double
    var p95: Double
    var p99: Double
    var max: Double

    init(_ times: [Double]) {
        let sorted = times.sorted()
        func at(_ p: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(p / 100 * Double(sorted.count)))] }
        p50 = at(50)
        p95 = at(95)
        p99 = at(99)
        max = sorted.last ?? .nan
    }
}
