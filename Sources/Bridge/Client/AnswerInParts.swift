/// A request whose answer may be read in parts (`WebSocketConnection.Event.part`), and the reading
/// of that answer once it began: its pieces (found by the message's `AnswerScanner`) checked, its
/// items decoded as each is complete and passed on to the request's parts.
struct AnswerInParts {
    /// Where the items go.
    enum Sink {
        /// A stock timeline: the result is an array of items.
        case timeline(TimelineParts)
        /// A history page asked from `since`: the result is an object with an `items` array.
        case historyPage(HistoryPageParts, since: Int64)

        /// The answer cannot be read whole, for `error`.
        func fail(_ error: BridgeError) {
            switch self {
            case .timeline(let parts): parts.fail(error)
            case .historyPage(let parts, _): parts.fail(error)
            }
        }
    }

    /// True for a request of a history page.
    var readsHistoryPages: Bool {
        if case .historyPage = sink { return true }
        return false
    }

    /// The request answered.
    let id: RequestID
    let method: String
    let sink: Sink
    /// Messages over this many bytes are read in parts while the request waits.
    let streamsOver: Int
    /// True once the rest of the message is skipped.
    private(set) var skipsRest = false
    /// True once the answer named its request (taken before it did when no other request waited).
    private var idChecked = false
    private var resultIsObject = false
    private var lastSeq: Int64?
    private var next: Int64?
    private var hasMore = false

    init(id: RequestID, method: String, sink: Sink, streamsOver: Int) {
        self.id = id
        self.method = method
        self.sink = sink
        self.streamsOver = streamsOver
    }

    /// Reads the answer's next pieces, passing each item on as it is decoded (waiting while the
    /// reader is behind); once the answer cannot be read whole, or its reader stopped, its parts
    /// end and the rest of the message is skipped.
    mutating func take(_ pieces: [AnswerScanner.Piece]) async {
        guard !skipsRest else { return }
        do {
            for piece in pieces {
                guard try await take(piece) else {
                    skipsRest = true
                    return
                }
            }
        } catch {
            fail(error)
        }
    }

    /// The message ended (`scanned`: how its scanner ended, `byteCount`: its size).
    mutating func finish(scanned: Result<Void, BridgeError>, byteCount: Int) {
        guard !skipsRest else { return }
        if case .failure(let error) = scanned { return fail(error) }
        guard idChecked else { return fail(.unexpectedResult(method: method, reason: "an answer in parts without an id")) }
        switch sink {
        case .timeline(let parts):
            parts.complete(())
        case .historyPage(let parts, let since):
            guard resultIsObject else { return fail(.unexpectedResult(method: method, reason: "the result is not an object")) }
            parts.complete(HistoryPageEnding(next: next ?? lastSeq ?? since, hasMore: hasMore, byteCount: byteCount))
        }
        skipsRest = true
    }

    /// The answer cannot be read whole, for `error`: its parts end, and the rest is skipped.
    mutating func fail(_ error: BridgeError) {
        skipsRest = true
        sink.fail(error)
    }

    /// One piece; false once the reader stopped.
    private mutating func take(_ piece: AnswerScanner.Piece) async throws(BridgeError) -> Bool {
        switch (piece, sink) {
        case (.element(let bytes), .timeline(let parts)):
            return await parts.send(try WireDecoding.timelineItem(bytes), bytes: bytes.count)
        case (.element(let bytes), .historyPage(let parts, _)):
            guard resultIsObject else { throw .unexpectedResult(method: method, reason: "the result is not an object") }
            let change = try WireDecoding.historyChange(bytes)
            lastSeq = change.seq
            return await parts.send(change, bytes: bytes.count)
        case (.resultObject, .timeline):
            throw .unexpectedResult(method: method, reason: "the result is not an array")
        case (.resultObject, .historyPage):
            resultIsObject = true
        case (.resultMember(let key, let value), _):
            let json = try Self.parse(value, method)
            if key == "next" { next = json.int64Value }
            if key == "has_more" { hasMore = json.boolValue ?? false }
        case (.member(let key, let value), _):
            try check(key, value)
        }
        return true
    }

    /// Checks a member of the answer other than its result read in parts.
    private mutating func check(_ key: String, _ value: [UInt8]) throws(BridgeError) {
        switch key {
        case "id":
            guard let answered = RequestID(json: try Self.parse(value, method)), answered == id else {
                throw .unexpectedResult(method: method, reason: "an answer in parts to another request")
            }
            idChecked = true
        case "error":
            let error = try Self.parse(value, method)
            throw .server(method: method, error: JSONRPCError(
                code: Int(error["code"]?.int64Value ?? 0), message: error["message"]?.stringValue ?? "", data: error["data"]))
        case "result":
            throw .unexpectedResult(method: method, reason: "the result is neither an array nor an object")
        case "method", "params":
            throw .unexpectedResult(method: method, reason: "a message in parts that is not an answer")
        default:
            break
        }
    }

    private static func parse(_ bytes: [UInt8], _ method: String) throws(BridgeError) -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw .unexpectedResult(method: method, reason: "a member is not JSON: \(error)")
        }
    }
}
