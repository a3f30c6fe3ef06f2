/// One JSON-RPC 2.0 message received from the bridge.
public enum JSONRPCMessage: Sendable {
    /// A call from the bridge that expects an answer.
    case request(id: RequestID, method: String, params: JSONValue?)
    /// A message that expects no answer (`session/update`).
    case notification(method: String, params: JSONValue?)
    /// A successful answer.
    case response(id: RequestID, result: JSONValue)
    /// A failed answer. The id is nil when the bridge could not read the request's.
    case failure(id: RequestID?, error: JSONRPCError)
}

/// The `error` object of a failed answer.
public struct JSONRPCError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (JSON-RPC error \(code))" }
}

/// A frame that is not a JSON-RPC message this client can use.
public struct MalformedFrame: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String

    public var description: String { "malformed frame: \(reason)" }
}

/// A received frame: its bytes, parsed.
public struct Frame: Sendable {
    /// The frame's payload exactly as received.
    public let bytes: [UInt8]
    /// The payload, parsed; every value's `sourceRange` points into `bytes`.
    public let json: JSONValue

    /// Parses a frame's payload.
    public init(bytes: [UInt8]) throws(MalformedFrame) {
        self.bytes = bytes
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw MalformedFrame(reason: error.description)
        }
    }

    /// A frame whose bytes were parsed elsewhere, in part: `json` is the part read, its source
    /// ranges pointing into `bytes` (`HistoryPageReading` reads an item of another shape so).
    init(bytes: [UInt8], parsedPart json: JSONValue) {
        self.bytes = bytes
        self.json = json
    }

    /// The exact bytes of `value`, a part of this frame (its canonical text if it was built in code).
    public func rawBytes(of value: JSONValue) -> [UInt8] {
        guard let range = value.sourceRange, range.upperBound <= bytes.count else { return JSONWriter.bytes(of: value) }
        return Array(bytes[range])
    }

    /// Reads the frame as a JSON-RPC message.
    public func message() throws(MalformedFrame) -> JSONRPCMessage {
        guard case .object = json.kind else { throw MalformedFrame(reason: "not a JSON object") }
        let id = json["id"]
        if let method = json["method"] {
            guard let name = method.stringValue else { throw MalformedFrame(reason: "method is not a string") }
            if let id, !id.isNull {
                guard let requestID = RequestID(json: id) else { throw MalformedFrame(reason: "id is neither a string nor a number") }
                return .request(id: requestID, method: name, params: json["params"])
            }
            return .notification(method: name, params: json["params"])
        }
        if let error = json["error"] {
            guard let code = error["code"]?.int64Value, let message = error["message"]?.stringValue else {
                throw MalformedFrame(reason: "error without an integer code and a message")
            }
            let requestID = id.flatMap { RequestID(json: $0) }
            return .failure(id: requestID, error: JSONRPCError(code: Int(code), message: message, data: error["data"]))
        }
        if let result = json["result"] {
            guard let id, let requestID = RequestID(json: id) else { throw MalformedFrame(reason: "result without a usable id") }
            return .response(id: requestID, result: result)
        }
        throw MalformedFrame(reason: "neither a method, a result nor an error")
    }
}

/// Writes JSON-RPC 2.0 messages.
public enum JSONRPCEncoder {
    /// A request's bytes.
    public static func request(id: RequestID, method: String, params: JSONValue?) -> [UInt8] {
        var members = [JSONMember("jsonrpc", "2.0"), JSONMember("id", .string(id.rawValue)), JSONMember("method", .string(method))]
        if let params { members.append(JSONMember("params", params)) }
        return JSONWriter.bytes(of: .object(members))
    }

    /// A notification's bytes.
    public static func notification(method: String, params: JSONValue?) -> [UInt8] {
        var members = [JSONMember("jsonrpc", "2.0"), JSONMember("method", .string(method))]
        if let params { members.append(JSONMember("params", params)) }
        return JSONWriter.bytes(of: .object(members))
    }
}
