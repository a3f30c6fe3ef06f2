import Bridge

/// A program a test speaks JSON-RPC to, a message a line: the real one over pipes
/// (`ReplSession`), or a server run in process (`InProcessMCP`).
public protocol JSONRPCPeer: AnyObject {
    /// Sends `line` as one message.
    func send(_ line: String) throws
    /// The next message that is JSON, waiting for it for at most `timeout`.
    func nextJSON(timeout: Duration) async throws -> JSONValue
    /// Ends what it reads: it then ends, as at the end of its standard input.
    func closeInput()
    /// Its exit status once it has ended, waiting for at most `timeout` (-1 past it).
    func waitForExit(timeout: Duration) async -> Int32
}

extension JSONRPCPeer {
    /// Sends one JSON-RPC request.
    public func request(_ id: Int, _ method: String, _ params: JSONValue = [:]) throws {
        try send(String(decoding: JSONWriter.bytes(of: ["jsonrpc": "2.0", "id": .number(Int64(id)), "method": .string(method), "params": params]),
                        as: UTF8.self))
    }

    /// The answer to request `id`, and the other messages that came before it.
    public func answer(to id: Int, timeout: Duration = .seconds(60)) async throws -> (answer: JSONValue, before: [JSONValue]) {
        let deadline = ContinuousClock.now + timeout
        var before: [JSONValue] = []
        while true {
            let json = try await nextJSON(timeout: deadline - .now)
            if json["id"]?.int64Value == Int64(id) { return (json, before) }
            before.append(json)
        }
    }
}
