/// The answer to a stock timeline request that is being read in parts
/// (`WebSocketConnection.Event.part`): its pieces found by an `AnswerScanner`, its id and error
/// checked, its items decoded as each is complete.
struct AnswerInParts {
    /// Why the rest of a message read in parts is skipped.
    enum Refusal: Error {
        /// The answer cannot be read whole, for this reason (its session fails).
        case unreadable(BridgeError)
        /// The message is not an answer (a notification over the limit): the connection ends, as
        /// for any message over the limit.
        case notAnAnswer
    }

    /// The request answered.
    let id: RequestID
    let method: String
    /// Where the items go.
    let parts: TimelineParts
    /// The largest item, in bytes (the message limit).
    let itemLimit: Int
    /// True once the rest of the message is skipped.
    var skipsRest = false
    private var scanner: AnswerScanner

    init(id: RequestID, method: String, parts: TimelineParts, itemLimit: Int) {
        self.id = id
        self.method = method
        self.parts = parts
        self.itemLimit = itemLimit
        scanner = AnswerScanner(pieceLimit: itemLimit)
    }

    /// The items the message's next bytes complete, each with its size in bytes.
    mutating func items(in bytes: [UInt8], isLast: Bool) throws(Refusal) -> [(item: TimelineItem, bytes: Int)] {
        var items: [(item: TimelineItem, bytes: Int)] = []
        do {
            for piece in try scanner.feed(bytes) {
                switch piece {
                case .element(let element):
                    items.append((try WireDecoding.timelineItem(element), element.count))
                case .member(let key, let value):
                    try check(key, value)
                }
            }
            if isLast { try scanner.finish() }
        } catch let error as Refusal {
            throw error
        } catch AnswerScanner.ScanError.pieceTooLarge(let size) {
            throw .unreadable(.messageTooLarge(size: size, limit: itemLimit))
        } catch let error as AnswerScanner.ScanError {
            throw .unreadable(.unexpectedResult(method: method, reason: "an answer in parts that is not JSON-RPC's: \(error)"))
        } catch let error as BridgeError {
            throw .unreadable(error)
        } catch {
            throw .unreadable(.unexpectedResult(method: method, reason: "\(error)"))
        }
        return items
    }

    /// Checks a member of the answer other than its array of items.
    private func check(_ key: String, _ value: [UInt8]) throws {
        switch key {
        case "method", "params":
            throw Refusal.notAnAnswer
        case "id":
            guard let answered = RequestID(json: try JSONParser.parse(value)), answered == id else {
                throw BridgeError.unexpectedResult(method: method, reason: "an answer in parts to another request")
            }
        case "error":
            let error = try JSONParser.parse(value)
            throw BridgeError.server(method: method, error: JSONRPCError(
                code: Int(error["code"]?.int64Value ?? 0), message: error["message"]?.stringValue ?? "", data: error["data"]))
        case "result":
            throw BridgeError.unexpectedResult(method: method, reason: "the result is not an array")
        default:
            break
        }
    }
}
