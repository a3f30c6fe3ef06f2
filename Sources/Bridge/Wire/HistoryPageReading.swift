/// Takes apart the history pages of the shape bridges send — an answer of `items`, `next` and
/// `has_more`, each item's update a chunk of a message with a text block — without building their
/// tree of values: a catch-up reads millions of such items, and the tree (an array and a string
/// for every object and value, freed right after) cost it more of its CPU than anything but
/// SQLite (`docs/benchmarks.md`, issue 34).
///
/// An item of another shape is read through a tree of its own: a member this reads given twice, a
/// value of another type, a number that is not a plain integer, an update of another kind or a
/// chunk whose content is not a text block, a key with escapes. A page that is not an answer of
/// that shape, or not JSON, is declined (nil) and read through the tree as before. So what is read
/// here reads as the tree reads it (`HistoryPageReadingTests` holds both to that); the members it
/// does not read are checked as JSON and skipped, as the tree ignores them.
enum HistoryPageReading {
    /// A page's answer: the request it answers, and the page.
    struct Answer: Sendable {
        let id: RequestID
        let page: Page
    }

    /// What a page holds: its items, its `next` (when it says one) and `has_more`.
    struct Page: Sendable {
        var items: [HistoryChange]
        var next: Int64?
        var hasMore: Bool

        /// The page as the client hands it on, `since` and `byteCount` as `WireDecoding.changes` takes them.
        func changesPage(since: Int64, byteCount: Int) -> HistoryChangesPage {
            HistoryChangesPage(items: items, next: next ?? items.last?.seq ?? since, hasMore: hasMore, byteCount: byteCount)
        }
    }

    /// The answer `bytes` (a whole message) are, when it is a history page of the common shape
    /// answering a request `answers` accepts (asked as soon as the id is read).
    static func answer(_ bytes: [UInt8], answers: (RequestID) -> Bool) -> Answer? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(message: bytes, buffer: buffer)
            defer { reader.cursor.release() }
            guard let answer = reader.answer(answers: answers), reader.isAtEnd else { return nil }
            return answer
        }
    }

    /// The change `bytes` (one item's JSON) hold, when the item has the common shape.
    static func change(_ bytes: [UInt8]) -> HistoryChange? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(message: bytes, buffer: buffer)
            defer { reader.cursor.release() }
            guard let change = reader.change(), reader.isAtEnd else { return nil }
            return change
        }
    }

    /// The keys read; every other is skipped.
    private enum Key {
        case jsonrpc, id, result, items, next, hasMore, seq, sessionID, ts, update, sessionUpdate, content, type, text, other

        init(_ key: UnsafeBufferPointer<UInt8>) {
            self = switch key.count {
            case 2 where Self.equal(key, "id"): .id
            case 2 where Self.equal(key, "ts"): .ts
            case 3 where Self.equal(key, "seq"): .seq
            case 4 where Self.equal(key, "next"): .next
            case 4 where Self.equal(key, "type"): .type
            case 4 where Self.equal(key, "text"): .text
            case 5 where Self.equal(key, "items"): .items
            case 6 where Self.equal(key, "result"): .result
            case 6 where Self.equal(key, "update"): .update
            case 7 where Self.equal(key, "jsonrpc"): .jsonrpc
            case 7 where Self.equal(key, "content"): .content
            case 8 where Self.equal(key, "has_more"): .hasMore
            case 10 where Self.equal(key, "session_id"): .sessionID
            case 13 where Self.equal(key, "sessionUpdate"): .sessionUpdate
            default: .other
            }
        }

        private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ key: StaticString) -> Bool {
            for index in 0..<bytes.count where bytes[index] != key.utf8Start[index] { return false }
            return true
        }
    }

    /// The chunk kinds read here, by their tags.
    private static let chunkKinds: [String: UpdateKind] = [
        UpdateKind.agentMessageChunk.rawValue: .agentMessageChunk,
        UpdateKind.agentThoughtChunk.rawValue: .agentThoughtChunk,
        UpdateKind.userMessageChunk.rawValue: .userMessageChunk,
    ]

    private struct Reader {
        /// The message read (whose bytes `cursor` reads), for the items read through a tree.
        let message: [UInt8]
        var cursor: JSONParser.Cursor

        init(message: [UInt8], buffer: UnsafeBufferPointer<UInt8>) {
            self.message = message
            cursor = JSONParser.Cursor(bytes: buffer)
        }

        var isAtEnd: Bool {
            mutating get {
                cursor.skipWhitespace()
                return cursor.offset == cursor.bytes.count
            }
        }

        /// `{"jsonrpc": …, "id": …, "result": {…}}`, in any order, and nothing else.
        mutating func answer(answers: (RequestID) -> Bool) -> Answer? {
            var id: RequestID?, page: Page?, sawVersion = false
            var object = Object()
            while let key = object.nextKey(&cursor) {
                switch key {
                case .jsonrpc where !sawVersion:
                    sawVersion = true
                    guard (try? cursor.skipValue(depth: 1)) != nil else { return nil }
                case .id where id == nil:
                    // A string or a number: the ids requests are sent with (no container is parsed).
                    guard let first = cursor.current, first == UInt8(ascii: "\"") || first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                          let value = try? cursor.parseValue(depth: 1), let read = RequestID(json: value), answers(read) else { return nil }
                    id = read
                case .result where page == nil:
                    guard let read = result() else { return nil }
                    page = read
                default:
                    return nil
                }
            }
            guard object.isComplete, let id, let page else { return nil }
            return Answer(id: id, page: page)
        }

        /// `{"items": [...], "next": …, "has_more": …}`, other members skipped.
        private mutating func result() -> Page? {
            var items: [HistoryChange]?, next: Int64??, hasMore: Bool?
            var object = Object()
            while let key = object.nextKey(&cursor) {
                switch key {
                case .items where items == nil:
                    guard let read = changes() else { return nil }
                    items = read
                case .next where next == nil:
                    guard let read = integerOrNull() else { return nil }
                    next = read
                case .hasMore where hasMore == nil:
                    guard let read = boolean() else { return nil }
                    hasMore = read
                case .items, .next, .hasMore:
                    return nil
                default:
                    guard (try? cursor.skipValue(depth: 2)) != nil else { return nil }
                }
            }
            guard object.isComplete, let items else { return nil }
            return Page(items: items, next: next ?? nil, hasMore: hasMore ?? false)
        }

        private mutating func changes() -> [HistoryChange]? {
            cursor.skipWhitespace()
            guard cursor.current == UInt8(ascii: "[") else { return nil }
            cursor.offset += 1
            var changes: [HistoryChange] = []
            cursor.skipWhitespace()
            if cursor.current == UInt8(ascii: "]") {
                cursor.offset += 1
                return changes
            }
            while true {
                cursor.skipWhitespace()
                let start = cursor.offset
                if let change = change() {
                    changes.append(change)
                } else {
                    // An item of another shape is read through a tree of its own, in place.
                    cursor.offset = start
                    guard let item = try? cursor.parseValue(depth: 3),
                          let change = try? WireDecoding.change(item, Frame(bytes: message, parsedPart: item))
                    else { return nil }
                    changes.append(change)
                }
                cursor.skipWhitespace()
                switch cursor.current {
                case UInt8(ascii: ","): cursor.offset += 1
                case UInt8(ascii: "]"):
                    cursor.offset += 1
                    return changes
                default: return nil
                }
            }
        }

        /// `{"seq": …, "session_id": …, "ts": …, "update": {…}}`, other members skipped.
        mutating func change() -> HistoryChange? {
            var seq: Int64?, sessionID: String?, ts: Int64??, update: SessionUpdate?
            var object = Object()
            while let key = object.nextKey(&cursor) {
                switch key {
                case .seq where seq == nil:
                    guard let read = integerOrNull(), let read else { return nil }
                    seq = read
                case .sessionID where sessionID == nil:
                    guard let read = string() else { return nil }
                    sessionID = read
                case .ts where ts == nil:
                    guard let read = integerOrNull() else { return nil }
                    ts = read
                case .update where update == nil:
                    guard let read = chunk() else { return nil }
                    update = read
                case .seq, .sessionID, .ts, .update:
                    return nil
                default:
                    guard (try? cursor.skipValue(depth: 4)) != nil else { return nil }
                }
            }
            guard object.isComplete, let seq, let sessionID, let update else { return nil }
            return HistoryChange(seq: seq, sessionID: sessionID, ts: ts ?? nil, update: update)
        }

        /// An update that is a chunk of a message with a text block, in either encoding: its
        /// `content` the block, or an object whose `content` is (`ContentBlock(chunkContent:)`).
        private mutating func chunk() -> SessionUpdate? {
            cursor.skipWhitespace()
            let start = cursor.offset
            var kind: UpdateKind?, block: TextBlock?
            var object = Object()
            while let key = object.nextKey(&cursor) {
                switch key {
                case .sessionUpdate where kind == nil:
                    guard let tag = string(), let chunkKind = HistoryPageReading.chunkKinds[tag] else { return nil }
                    kind = chunkKind
                case .content where block == nil:
                    guard let read = content() else { return nil }
                    block = read
                case .sessionUpdate, .content:
                    return nil
                default:
                    guard (try? cursor.skipValue(depth: 5)) != nil else { return nil }
                }
            }
            guard object.isComplete, let kind, let text = block?.text, block?.isText == true else { return nil }
            let bytes = Array(UnsafeBufferPointer(rebasing: cursor.bytes[start..<cursor.offset]))
            return SessionUpdate(rawBytes: bytes, summary: UpdateSummary(kind: kind, text: text))
        }

        /// A chunk's `content`: the block its own `content` is if it has one, else itself.
        private mutating func content() -> TextBlock? {
            var own = TextBlock(), inner: TextBlock?
            var object = Object()
            while let key = object.nextKey(&cursor) {
                switch key {
                case .content where inner == nil:
                    var nested = Object()
                    var block = TextBlock()
                    while let innerKey = nested.nextKey(&cursor) {
                        guard block.read(innerKey, &self, depth: 7) else { return nil }
                    }
                    guard nested.isComplete else { return nil }
                    inner = block
                case .content:
                    return nil
                default:
                    guard own.read(key, &self, depth: 6) else { return nil }
                }
            }
            guard object.isComplete else { return nil }
            return inner ?? own
        }

        mutating func string() -> String? {
            cursor.skipWhitespace()
            guard cursor.current == UInt8(ascii: "\"") else { return nil }
            return try? cursor.parseString()
        }

        /// A plain integer (`Int64`), or null: nil for anything else.
        mutating func integerOrNull() -> Int64?? {
            cursor.skipWhitespace()
            guard let first = cursor.current else { return nil }
            if first == UInt8(ascii: "n") {
                guard (try? cursor.expectLiteral("null")) != nil else { return nil }
                return .some(nil)
            }
            guard first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                  let literal = try? cursor.parseNumber(), let integer = Int64(literal) else { return nil }
            return integer
        }

        mutating func boolean() -> Bool? {
            cursor.skipWhitespace()
            switch cursor.current {
            case UInt8(ascii: "t"): return (try? cursor.expectLiteral("true")) != nil ? true : nil
            case UInt8(ascii: "f"): return (try? cursor.expectLiteral("false")) != nil ? false : nil
            default: return nil
            }
        }
    }

    /// A content block's `type` and `text` as read; a text block when `type` is `text` and `text` a string.
    private struct TextBlock {
        var type: String?
        var text: String?
        private var sawType = false, sawText = false

        var isText: Bool { type == "text" && text != nil }

        /// Reads the member `key` of a block, a value `depth` deep in a page; false if it cannot be read here.
        mutating func read(_ key: Key, _ reader: inout Reader, depth: Int) -> Bool {
            switch key {
            case .type where !sawType:
                sawType = true
                type = reader.string()
                return type != nil
            case .text where !sawText:
                sawText = true
                text = reader.string()
                return text != nil
            case .type, .text:
                return false
            default:
                return (try? reader.cursor.skipValue(depth: depth)) != nil
            }
        }
    }

    /// The members of an object read one by one: `nextKey` steps to each key (the cursor then at
    /// its value, which the caller steps past), nil at the end or where the object is malformed
    /// (`isComplete` tells which).
    private struct Object {
        private var state = State.before

        private enum State { case before, first, between, complete, failed }

        var isComplete: Bool { state == .complete }

        mutating func nextKey(_ cursor: inout JSONParser.Cursor) -> Key? {
            cursor.skipWhitespace()
            switch state {
            case .before:
                guard cursor.current == UInt8(ascii: "{") else { return fail() }
                cursor.offset += 1
                cursor.skipWhitespace()
                if cursor.current == UInt8(ascii: "}") {
                    cursor.offset += 1
                    state = .complete
                    return nil
                }
            case .first, .between:
                switch cursor.current {
                case UInt8(ascii: ","):
                    cursor.offset += 1
                    cursor.skipWhitespace()
                case UInt8(ascii: "}"):
                    cursor.offset += 1
                    state = .complete
                    return nil
                default: return fail()
                }
            case .complete, .failed:
                return nil
            }
            // A key without escapes: `"`, bytes that are neither `"`, `\` nor control characters, `"`.
            guard cursor.current == UInt8(ascii: "\"") else { return fail() }
            let start = cursor.offset + 1
            var end = start
            while end < cursor.bytes.count, cursor.bytes[end] != UInt8(ascii: "\"") {
                guard cursor.bytes[end] != UInt8(ascii: "\\"), cursor.bytes[end] >= 0x20 else { return fail() }
                end += 1
            }
            guard end < cursor.bytes.count else { return fail() }
            let key = Key(UnsafeBufferPointer(rebasing: cursor.bytes[start..<end]))
            cursor.offset = end + 1
            cursor.skipWhitespace()
            guard cursor.current == UInt8(ascii: ":") else { return fail() }
            cursor.offset += 1
            cursor.skipWhitespace()
            state = .between
            return key
        }

        private mutating func fail() -> Key? {
            state = .failed
            return nil
        }
    }
}
