import Foundation
import Primitives
import ToolSupport

/// One HTTP/1.1 request written byte for byte on a socket to 127.0.0.1 (a `Host` of the test's
/// choosing, which URLSession would not send), its answer read to the end, on a thread of its
/// own and within a bound.
public enum RawHTTP {
    /// An answer: its status, its headers (names lowercased; the last of a repeated one), body.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var headerNames: [String]
        public var body: String
    }

    public struct Failed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Sends `method path` to 127.0.0.1:`port` with `host` as its `Host` (nil: none at all) and
    /// `headers`, and reads the answer until the server closes (`Connection: close`).
    public static func request(port: Int, path: String, host: String?, method: String = "GET", headers: [(String, String)] = [],
                               body: String = "", timeout: Duration = .seconds(30)) async throws -> Answer {
        var text = "\(method) \(path) HTTP/1.1\r\n"
        if let host { text += "Host: \(host)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "Connection: close\r\n\r\n" + body
        let result = OneShot<Result<Data, Failed>>()
        let request = Array(text.utf8)
        Thread { result.settle(exchange(port: port, request: request)) }.start()
        guard let outcome = await result.value(within: timeout) else { throw Failed(description: "no answer from 127.0.0.1:\(port)\(path) within \(timeout)") }
        return try parse(try outcome.get())
    }

    private static func exchange(port: Int, request: [UInt8]) -> Result<Data, Failed> {
        let descriptor: Int32
        do {
            descriptor = try LoopbackSocket.connect(port: port, receiveTimeout: 20)
        } catch {
            return .failure(Failed(description: error.description))
        }
        defer { close(descriptor) }
        do {
            try LoopbackSocket.send(request, on: descriptor)
        } catch {
            return .failure(Failed(description: error.description))
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !isComplete(answer) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else { return .failure(Failed(description: "recv: errno \(errno) after \(answer.count) bytes")) }
            answer.append(contentsOf: buffer[..<count])
        }
        return .success(answer)
    }

    /// Whether `data` holds a whole answer by its `Content-Length` (a server may keep the
    /// connection open after it, `Connection: close` notwithstanding); else it ends at the close.
    private static func isComplete(_ data: Data) -> Bool {
        guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return false }
        return data.count - end.upperBound >= length
    }

    private static func parse(_ data: Data) throws -> Answer {
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failed(description: "no complete head in \(text.prefix(200))") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusWords = lines.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else { throw Failed(description: "no status line in \(text.prefix(200))") }
        var headers: [String: String] = [:]
        var names: [String] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            names.append(name)
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = unchunked(body) }
        return Answer(status: status, headers: headers, headerNames: names, body: body)
    }

    /// A chunked body's data (sizes in hexadecimal, each before its chunk).
    private static func unchunked(_ body: String) -> String {
        var bytes = Substring(body).utf8[...]
        var data = [UInt8]()
        while let end = bytes.firstRange(of: "\r\n".utf8), let size = Int(String(decoding: bytes[..<end.lowerBound], as: UTF8.self), radix: 16), size > 0 {
            let start = end.upperBound
            let stop = bytes.index(start, offsetBy: size, limitedBy: bytes.endIndex) ?? bytes.endIndex
            data += bytes[start..<stop]
            bytes = bytes[stop...].dropFirst(2)
        }
        return String(decoding: data, as: UTF8.self)
    }
}
