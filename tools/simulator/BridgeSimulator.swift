import Bridge
import ToolSupport
import Foundation
import Logging

/// The simulated desktop bridge: routes every client's frames, keeps the history, broadcasts
/// updates, and obeys the `_sim/*` control methods that tests and benchmarks use.
actor BridgeSimulator {
    let flavor: Flavor
    let history: SimulatorHistory
    let logger: Logger
    var connections: [Int: SimulatorConnection] = [:]
    var initialized: Set<Int> = []
    private var nextConnectionID = 1
    var refuseUntil: ContinuousClock.Instant?
    var replyDelay: Duration = .zero
    var closeAfterFrames: Int?
    /// Each prompt is taken, then its connection dropped before the answer (`_sim/drop_before_answering_prompts`).
    var dropsBeforeAnsweringPrompts = false
    var largeMessages = SimulatorConnection.LargeMessages()
    var prompts: [JSONValue] = []
    /// The `client_info` of every `initialize`, in arrival order (`_sim/clients`).
    var clients: [JSONValue] = []
    /// Requests received and not yet answered, per connection; and the most seen at once.
    var inFlight: [Int: Int] = [:]
    var maxInFlight = 0
    var bytesSentByClosedConnections = 0
    var largestMessageSentByClosedConnections = 0
    private var encodingRandom = SplitMix64(seed: 0x5EED)
    /// Stock bridges handle one request at a time: requests take tickets in arrival order.
    private var nextTicket = 0
    private var nowServing = 0
    private var requestWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// What the simulator starts after an answer, or beside the connection's reading: child
    /// tasks of `runTasks()`, which lives as long as the server.
    let tasks = SimulatorTasks()

    /// The history-cursor extension's version the cursor flavour speaks: 2 names the history
    /// (`history_id`), 1 does not.
    let historyCursorVersion: Int

    /// Whether the cursor flavour offers the page byte budget (`history_max_bytes`, `max_bytes`).
    let offersMaxBytes: Bool

    init(flavor: Flavor, history: SimulatorHistory, historyCursorVersion: Int = 2, offersMaxBytes: Bool = true, logger: Logger) {
        self.flavor = flavor
        self.history = history
        self.historyCursorVersion = historyCursorVersion
        self.offersMaxBytes = offersMaxBytes
        self.logger = logger
    }

    var summary: String { "\(history.sessions.count) sessions, \(history.eventCount) events" }

    // MARK: Connections

    /// False while `_sim/refuse_connections` is in force.
    func acceptsConnections() -> Bool {
        guard let refuseUntil else { return true }
        return ContinuousClock.now >= refuseUntil
    }

    func register(_ makeConnection: (Int, SimulatorConnection.LargeMessages) -> SimulatorConnection) -> (SimulatorConnection, closeAfterFrames: Int?) {
        let connection = makeConnection(nextConnectionID, largeMessages)
        nextConnectionID += 1
        connections[connection.id] = connection
        return (connection, closeAfterFrames)
    }

    func unregister(_ connection: SimulatorConnection) {
        bytesSentByClosedConnections += connection.bytesSent
        largestMessageSentByClosedConnections = max(largestMessageSentByClosedConnections, connection.largestMessageSent)
        connections.removeValue(forKey: connection.id)
        initialized.remove(connection.id)
        connection.finish()
    }

    /// Handles one frame from a client.
    func receive(_ bytes: [UInt8], from connection: SimulatorConnection) async {
        guard let frame = try? Frame(bytes: bytes), let method = frame.json["method"]?.stringValue else { return }
        guard let id = frame.json["id"], !id.isNull else { return }  // notifications get no answer
        let params = frame.json["params"] ?? [:]
        guard initialized.contains(connection.id) || method == BridgeMethod.initialize else { return }
        // In arrival order: a request right behind `initialize` is answered, even if it is read
        // before `initialize` has been handled.
        if method == BridgeMethod.initialize { initialized.insert(connection.id) }
        if method.hasPrefix("_sim/") {
            // Control methods are not part of the simulated bridge: no delay, no queueing.
            await answer(method: method, id: id, params: params, connection: connection, delay: .zero)
            return
        }
        // Counted on arrival: a client that pipelines on a stock bridge shows here.
        inFlight[connection.id, default: 0] += 1
        maxInFlight = max(maxInFlight, inFlight[connection.id, default: 0])
        let delay = replyDelay
        let ticket = nextTicket
        nextTicket += 1
        // Every request is handled in a child task of its own, so that the connection's next frames are
        // read meanwhile; a stock bridge still handles one request at a time, in arrival order.
        tasks.start {
            if self.flavor == .stock { await self.waitForTurn(ticket) }
            await self.answer(method: method, id: id, params: params, connection: connection, delay: delay)
            if self.flavor == .stock { await self.endTurn() }
            await self.requestEnded(on: connection.id)
        }
    }

    /// A request of `connectionID` was answered (or its connection was gone).
    private func requestEnded(on connectionID: Int) {
        inFlight[connectionID, default: 1] -= 1
    }

    /// Runs what the simulator starts (requests, broadcasts after an answer) as child tasks,
    /// until the calling task is cancelled; then returns once they have ended.
    nonisolated func runTasks() async {
        await tasks.run()
    }

    /// Waits until every request that arrived before `ticket` was answered.
    private func waitForTurn(_ ticket: Int) async {
        if ticket == nowServing { return }
        await withCheckedContinuation { requestWaiters[ticket] = $0 }
    }

    private func endTurn() {
        nowServing += 1
        requestWaiters.removeValue(forKey: nowServing)?.resume()
    }

    private func answer(method: String, id: JSONValue, params: JSONValue, connection: SimulatorConnection, delay: Duration) async {
        // A delayed answer to a connection that is gone is never sent; stop waiting for it early.
        let deadline = ContinuousClock.now + delay
        while ContinuousClock.now < deadline, connection.isOpen, !Task.isCancelled {
            try? await Task.sleep(for: min(.milliseconds(20), deadline - ContinuousClock.now))
        }
        guard connection.isOpen else { return }
        let echoed = StockEncoding.echoedID(id)
        do {
            guard let result = try await result(of: method, params: params, connection: connection) else { return }
            connection.send(Self.frame(id: echoed, resultBytes: result))
        } catch let error as JSONRPCError {
            let body: JSONValue = ["jsonrpc": "2.0", "id": echoed,
                                   "error": ["code": .number(error.code), "message": .string(error.message)]]
            connection.send(JSONWriter.bytes(of: body))
        } catch {
            logger.error("request failed", metadata: ["method": "\(method)", "error": "\(error)"])
            let body: JSONValue = ["jsonrpc": "2.0", "id": echoed, "error": ["code": -32603, "message": .string("\(error)")]]
            connection.send(JSONWriter.bytes(of: body))
        }
    }

    /// The result's JSON bytes, or nil for a method the bridge does not answer.
    private func result(of method: String, params: JSONValue, connection: SimulatorConnection) async throws -> [UInt8]? {
        switch method {
        case BridgeMethod.initialize:
            clients.append(params["client_info"] ?? .null)
            return JSONWriter.bytes(of: initializeResult)
        case BridgeMethod.recentSessions:
            return JSONWriter.bytes(of: .array(history.recentSessions(limit: 10).map { session in
                ["session_id": .string(session.id), "last_ts": .number(session.stats.lastTS),
                 "message_count": .number(session.stats.count)]
            }))
        case BridgeMethod.sessionTimeline:
            return try timeline(params)
        case BridgeMethod.threadsList:
            return JSONWriter.bytes(of: threads(params))
        case BridgeMethod.sessionNew:
            return try newSession(mode: "codex", id: UUID().uuidString)
        case BridgeMethod.sessionPrompt:
            let answer = try prompt(params)
            guard !dropsBeforeAnsweringPrompts else {
                connection.drop()
                return nil
            }
            return answer
        case BridgeMethod.sessionCancel:
            guard params["session_id"]?.stringValue != nil else { throw JSONRPCError(code: -32602, message: "Missing required parameter: session_id") }
            return JSONWriter.bytes(of: ["status": "no_active_session"])
        case BridgeMethod.sessionSetMode:
            guard let session = params["session_id"]?.stringValue, let mode = params["mode_id"]?.stringValue else {
                throw JSONRPCError(code: -32602, message: "Invalid session/set_mode parameters")
            }
            try publish([(session, modeUpdate(mode))])
            return JSONWriter.bytes(of: [:])
        case BridgeMethod.historyChanges where flavor == .cursor:
            return try changes(params)
        case BridgeMethod.historySessions where flavor == .cursor:
            return JSONWriter.bytes(of: sessionsPage(params))
        case let control where control.hasPrefix("_sim/"):
            return try JSONWriter.bytes(of: self.control(control, params: params, connection: connection))
        default:
            return nil  // the stock bridge never answers a method it does not know
        }
    }

    private var initializeResult: JSONValue {
        var extensions: [JSONMember] = [JSONMember("orchestrate_explore", true)]
        if flavor == .cursor {
            extensions += [JSONMember("history_cursor", .number(Int64(historyCursorVersion))), JSONMember("pipelining", true)]
            if historyCursorVersion >= 2 { extensions.append(JSONMember("history_id", .string(history.historyID))) }
            if offersMaxBytes { extensions.append(JSONMember("history_max_bytes", true)) }
        }
        return [
            "protocol_version": "0.2.2",
            "agent_capabilities": [
                "load_session": false,
                "prompt_capabilities": ["image": false, "audio": false, "embedded_context": false],
                "mcp_capabilities": ["http": false, "sse": false],
                "ext_capabilities": .object(extensions),
            ],
            "auth_methods": [],
            "agent_info": ["name": "openagents-mac", "title": "OpenAgents macOS (simulated)", "version": "0.1.0"],
            "_meta": ["working_directory": "/Users/sim/code/project"],
        ]
    }

    // MARK: History methods

    private func timeline(_ params: JSONValue) throws -> [UInt8] {
        guard let session = params["session_id"]?.stringValue else {
            throw JSONRPCError(code: -32602, message: "Missing required parameter: session_id")
        }
        var events = try history.timeline(sessionID: session, limit: params["limit"]?.int64Value.map(Int.init))
        // Events of the same millisecond have no stable order on the desktop.
        var start = 0
        while start < events.count {
            var end = start + 1
            while end < events.count, events[end].ts == events[start].ts { end += 1 }
            events[start..<end].shuffle(using: &encodingRandom)
            start = end
        }
        var items: [JSONValue] = []
        items.reserveCapacity(events.count)
        for event in events {
            guard let update = try? JSONParser.parse(event.updateJSON), StockEncoding.isDecodable(update) else { continue }
            items.append(["session_id": .string(session), "update": StockEncoding.reencoded(update, using: &encodingRandom)])
        }
        return JSONWriter.bytes(of: .array(items))
    }

    /// A page of `tinyvex/history.changes`. With `max_bytes` (when the simulator offers it), the
    /// page ends with the event whose update brings its updates' bytes to the budget: never empty.
    private func changes(_ params: JSONValue) throws -> [UInt8] {
        let since = max(params["since"]?.int64Value ?? 0, 0)
        let limit = Int(min(max(params["limit"]?.int64Value ?? 1000, 1), 5000))
        var budget = Int.max
        if offersMaxBytes, let maxBytes = params["max_bytes"] {
            guard let value = maxBytes.int64Value, value >= 1 else {
                throw JSONRPCError(code: -32602, message: "Invalid max_bytes: an integer of at least 1")
            }
            budget = Int(value)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + min(limit * 256, budget))
        bytes += #"{"items":["#.utf8
        var first = true
        var updateBytes = 0
        let next = try history.changes(since: since, limit: limit) { event in
            guard event.isJSON else { return true }
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes += Self.seqKey
            Self.appendDecimal(event.seq, to: &bytes)
            bytes += Self.sessionIDKey
            Self.appendString(event.sessionID, to: &bytes)
            bytes += Self.tsKey
            Self.appendDecimal(event.ts, to: &bytes)
            bytes += Self.updateKey
            bytes += event.updateJSON
            bytes.append(UInt8(ascii: "}"))
            updateBytes += event.updateJSON.count
            return updateBytes < budget
        }
        let hasMore = next < history.lastSeq
        bytes += Array(#"],"next":\#(next),"has_more":\#(hasMore)}"#.utf8)
        return bytes
    }

    /// Appends `utf8` as a JSON string: as it is between quotes when it needs no escape (printable
    /// ASCII without quote or backslash, as session ids are), else as `JSONWriter` writes it.
    private static func appendString(_ utf8: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        guard utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            bytes += JSONWriter.bytes(of: .string(String(decoding: utf8, as: UTF8.self)))
            return
        }
        bytes.append(UInt8(ascii: "\""))
        bytes += utf8
        bytes.append(UInt8(ascii: "\""))
    }

    private static let seqKey = Array(#"{"seq":"#.utf8)
    private static let sessionIDKey = Array(#","session_id":"#.utf8)
    private static let tsKey = Array(#","ts":"#.utf8)
    private static let updateKey = Array(#","update":"#.utf8)

    /// Appends the decimal digits of `value`, without making a string (a page writes two numbers
    /// per event).
    private static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var magnitude = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    private func sessionsPage(_ params: JSONValue) -> JSONValue {
        let limit = Int(min(max(params["limit"]?.int64Value ?? 1000, 1), 1000))
        let after = params["after"]?.stringValue ?? ""
        let ids = history.sessions.keys.filter { $0 > after }.sorted()
        let page = ids.prefix(limit)
        let items: [JSONValue] = page.compactMap { id in
            guard let stats = history.sessions[id] else { return nil }
            var members = [JSONMember("session_id", .string(id)), JSONMember("last_ts", .number(stats.lastTS)),
                           JSONMember("message_count", .number(stats.count)), JSONMember("last_seq", .number(stats.lastSeq))]
            if let title = stats.title { members.append(JSONMember("title", .string(title))) }
            if let mode = stats.mode { members.append(JSONMember("mode", .string(mode))) }
            return .object(members)
        }
        let next: JSONValue = ids.count > limit ? page.last.map { .string($0) } ?? .null : .null
        return ["items": .array(items), "next": next]
    }

    private func threads(_ params: JSONValue) -> JSONValue {
        let topK = Int(min(max(params["topK"]?.int64Value ?? 10, 1), 10))
        let items: [JSONValue] = (0..<12).map { index in
            let updated = Int64(1_730_716_000_000 - index * 3_600_000)
            var members = [JSONMember("id", .string("rollout-sim-\(index)")), JSONMember("source", index % 3 == 0 ? "claude_code" : "codex"),
                           JSONMember("updated_at", .number(updated))]
            if index % 2 == 0 {
                members += [JSONMember("title", .string("Simulated thread \(index)")), JSONMember("created_at", .number(updated - 900_000)),
                            JSONMember("last_message_ts", .number(updated - 10_000)), JSONMember("message_count", .number(index * 7 + 3))]
            }
            return .object(members)
        }
        return ["items": .array(Array(items.prefix(topK)))]
    }

    static func frame(id: JSONValue, resultBytes: [UInt8]) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":"#.utf8) + JSONWriter.bytes(of: id) + Array(#","result":"#.utf8) + resultBytes + [UInt8(ascii: "}")]
    }

    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
