import Bridge

/// The JSON-lines front end: one JSON-RPC 2.0 request per line in, one answer per line out.
///
/// Blank lines are ignored. A line that is not JSON gets a -32700 answer with a null id; JSON that
/// is not a request object gets -32600. A request without an `id` is a notification: it runs and
/// gets no answer. Every other request gets exactly one answer, `result` or `error`. After
/// `quit` (answered `{}`), `finished` is true and the caller stops reading.
public struct JSONLinesSession {
    let runner: CommandRunner
    /// Whether a `quit` request ended the session.
    public private(set) var finished = false

    public init(context: CommandContext) {
        runner = CommandRunner(context: context)
    }

    /// The answer to one input line, or nil when there is none to give.
    public mutating func answer(_ line: String) async -> String? {
        guard line.contains(where: { !$0.isWhitespace }) else { return nil }
        let request: JSONValue
        do {
            request = try JSONParser.parse(line)
        } catch {
            return Self.error(id: .null, CommandError.parseError(error.description))
        }
        guard let members = request.objectValue else {
            return Self.error(id: .null, CommandError.invalidRequest("expected one request object per line (batches are not supported)"))
        }
        let id = members.last { $0.key == "id" }?.value
        let answerID = id.map { JSONValue($0.kind) } ?? .null
        guard request["jsonrpc"]?.stringValue == "2.0" else {
            return id == nil ? nil : Self.error(id: answerID, CommandError.invalidRequest("jsonrpc must be \"2.0\""))
        }
        guard let method = request["method"]?.stringValue else {
            return id == nil ? nil : Self.error(id: answerID, CommandError.invalidRequest("method must be a string"))
        }
        if let id, !Self.isValidID(id) {
            return Self.error(id: .null, CommandError.invalidRequest("id must be a string, a number or null"))
        }
        do {
            let result = try await runner.run(method: method, params: request["params"])
            finished = result.quits
            guard id != nil else { return nil }
            return String(decoding: JSONWriter.bytes(of: ["jsonrpc": "2.0", "id": answerID, "result": result.json]), as: UTF8.self)
        } catch {
            return id == nil ? nil : Self.error(id: answerID, error)
        }
    }

    private static func isValidID(_ id: JSONValue) -> Bool {
        switch id.kind {
        case .string, .number, .null: true
        default: false
        }
    }

    static func error(id: JSONValue, _ error: CommandError) -> String {
        var members = [JSONMember("code", .number(error.code)), JSONMember("message", .string(error.description))]
        if let data = error.data { members.append(JSONMember("data", data)) }
        let answer: JSONValue = ["jsonrpc": "2.0", "id": id, "error": .object(members)]
        return String(decoding: JSONWriter.bytes(of: answer), as: UTF8.self)
    }
}
