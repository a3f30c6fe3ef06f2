@testable import Bridge
import Testing
import ToolSupport

/// History pages of the common shape are read without their tree (`HistoryPageReading`); what is
/// read so must read as the tree reads it, and everything else must be left to the tree.
@Suite("History pages read without their tree", .endsWithin(.seconds(60)))
struct HistoryPageReadingTests {
    /// What a change reads to, compared field by field (`SessionUpdate` compares bytes alone).
    private struct Reading: Equatable {
        var seq: Int64, sessionID: String, ts: Int64?, update: [UInt8], summary: UpdateSummary

        init(_ change: HistoryChange) {
            (seq, sessionID, ts, update, summary) = (change.seq, change.sessionID, change.ts, change.update.rawBytes, change.update.summary)
        }
    }

    @Test("a page as bridges write it, chunks in both encodings, reads without its tree as with it")
    func commonPage() throws {
        let page = Self.answer(id: #""hist-7""#, items: [
            #"{"seq":41,"session_id":"S-1","ts":1731000000025,"update":{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"Hel"}}}}"#,
            #"{"seq":42,"session_id":"S-1","ts":null,"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"lo \"w\u00e9\ud83d\ude00\n"}}}"#,
            #" { "update" : { "content" : { "text" : "x" , "type" : "text", "annotations": {"a": [1, 2.5e3, true]} } , "sessionUpdate" : "user_message_chunk", "_meta": null } , "session_id" : "S-2" , "seq" : 43 } "#,
            #"{"seq":44,"session_id":"S-2","update":{"sessionUpdate":"plan","plan":{"entries":[{"content":"read it through its tree"}]}}}"#,
        ], tail: #","next":44,"has_more":true"#)
        let read = try #require(HistoryPageReading.answer(page, answers: { $0 == RequestID("hist-7") }))
        #expect(read.id == RequestID("hist-7"))
        let fromTree = try Self.treePage(page, since: 40)
        let fast = read.page.changesPage(since: 40, byteCount: page.count)
        #expect(fast.items.map(Reading.init) == fromTree.items.map(Reading.init))
        #expect(fast == fromTree)
        #expect(fast.items.map(\.update.summary.text) == ["Hel", "lo \"w\u{e9}\u{1F600}\n", "x", "read it through its tree"])
    }

    @Test("a page answering another request, with any other member or shape, or an item the tree refuses, is left to the tree")
    func declined() {
        let item = #"{"seq":1,"session_id":"S","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}"#
        #expect(HistoryPageReading.answer(Self.answer(id: "7", items: [item], tail: ""), answers: { _ in false }) == nil)
        #expect(HistoryPageReading.answer(Self.answer(id: "7", items: [item], tail: ""), answers: { _ in true }) != nil)
        for declined in [
            Array(#"{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"},"result":{"items":[]}}"#.utf8),
            Array(#"{"jsonrpc":"2.0","id":7,"id":8,"result":{"items":[]}}"#.utf8),
            Array(#"{"jsonrpc":"2.0","id":7,"result":{"items":[]},"extra":1}"#.utf8),
            Array(#"{"jsonrpc":"2.0","id":7,"result":{"items":[]}} x"#.utf8),
            Array(#"{"jsonrpc":"2.0","id":7,"result":{"next":1}}"#.utf8),
            Self.answer(id: "7", items: [item, item.replacingOccurrences(of: #""seq":1,"#, with: "")], tail: ""),
            Self.answer(id: "7", items: [item, #"{"seq":2,"session_id":"S","update":{"sessionUpdate":"plan","#], tail: ""),
        ] {
            #expect(HistoryPageReading.answer(declined, answers: { _ in true }) == nil, "\(String(decoding: declined, as: UTF8.self))")
        }
    }

    @Test("values nested to the parser's depth limit, wherever a page or an item holds them, read as the tree reads them")
    func depthLimit() throws {
        let text = #"{"type":"text","text":"a"}"#
        // Where a value goes (`V`), and how deep it is: in a page, and in an item read alone.
        let places: [(item: String, inPage: Int, alone: Int?)] = [
            (#"{"seq":1,"session_id":"S","x":V,"update":{"sessionUpdate":"agent_message_chunk","content":{"content":\#(text)}}}"#, 4, 1),
            (#"{"seq":1,"session_id":"S","update":{"sessionUpdate":"agent_message_chunk","x":V,"content":{"content":\#(text)}}}"#, 5, 2),
            (#"{"seq":1,"session_id":"S","update":{"sessionUpdate":"agent_message_chunk","content":{"x":V,"content":\#(text)}}}"#, 6, 3),
            (#"{"seq":1,"session_id":"S","update":{"sessionUpdate":"agent_message_chunk","content":{"content":{"x":V,"type":"text","text":"a"}}}}"#, 7, 4),
            (#"{"seq":1,"session_id":"S","update":{"sessionUpdate":"agent_message_chunk","content":{"x":V,"type":"text","text":"a"}}}"#, 6, 3),
            (#"{"seq":1,"session_id":"S","update":{"sessionUpdate":"plan","x":V}}"#, 5, 2),
        ]
        let item = #"{"seq":1,"session_id":"S","update":{"sessionUpdate":"agent_message_chunk","content":\#(text)}}"#
        let pages: [(page: String, depth: Int)] = places.map { (Self.answerText(id: #""h""#, items: [$0.item], tail: ""), $0.inPage) } + [
            (#"{"jsonrpc":V,"id":"h","result":{"items":[\#(item)]}}"#, 1),
            (#"{"id":"h","result":{"items":[\#(item)],"x":V}}"#, 2),
        ]
        for (page, depth) in pages {
            // Arrays nested `count` deep put the innermost at depth + count - 1; the parser takes 511 at most.
            for count in (511 - depth)...(513 - depth) {
                let bytes = Array(page.replacingOccurrences(of: "V", with: Self.nested(count)).utf8)
                let tree = try? Self.treePage(bytes, since: 0)
                let fast = HistoryPageReading.answer(bytes, answers: { _ in true })
                #expect((fast != nil) == (tree != nil), "depth \(depth), \(count) arrays")
                if let fast, let tree {
                    #expect(fast.page.changesPage(since: 0, byteCount: bytes.count) == tree)
                    #expect(fast.page.items.map(Reading.init) == tree.items.map(Reading.init))
                }
            }
        }
        for place in places {
            guard let depth = place.alone else { continue }
            for count in (511 - depth)...(513 - depth) {
                let bytes = Array(place.item.replacingOccurrences(of: "V", with: Self.nested(count)).utf8)
                let read = try? WireDecoding.historyChange(bytes)
                let tree = try? WireDecoding.historyChangeFromTree(bytes)
                #expect(read.map(Reading.init) == tree.map(Reading.init), "an item alone, depth \(depth), \(count) arrays")
            }
        }
    }

    @Test("10,000 generated items: every one read without the tree reads as with it, and most common ones are")
    func generatedItems() throws {
        var random = SplitMix64(seed: 3434)
        var common = 0, commonRead = 0, leftToTheTree = 0
        for _ in 0..<10_000 {
            let (bytes, isCommon) = Self.generatedItem(&random)
            let fast = HistoryPageReading.change(bytes)
            if let fast {
                let tree = try WireDecoding.historyChangeFromTree(bytes)
                #expect(Reading(fast) == Reading(tree), "\(String(decoding: bytes, as: UTF8.self))")
            } else if (try? WireDecoding.historyChangeFromTree(bytes)) != nil {
                leftToTheTree += 1
            }
            if isCommon {
                common += 1
                if fast != nil { commonRead += 1 }
            }
        }
        #expect(commonRead == common && common > 1000)
        #expect(leftToTheTree > 100, "items the tree reads and this reader leaves to it")
    }

    @Test("1,000 pages of generated items: every page read without the tree reads as with it")
    func generatedPages() throws {
        var random = SplitMix64(seed: 5656)
        var read = 0
        let ids = [#""hist-1""#, "7", "-3", "7.0", "1e2", "null", "[1]", #"{"a":1}"#, #""hist-2""#]
        let tails = ["", #","has_more":false"#, #","has_more":true,"next":44"#, #","next":null"#, #","next":"44""#, #","next":4.0"#,
                     #","has_more":null"#, #","next":-1,"x":[{"y":[]}]"#]
        for _ in 0..<1_000 {
            let items = (0..<(1 + Int(random.next() % 6))).map { _ in String(decoding: Self.generatedItem(&random).bytes, as: UTF8.self) }
            let page = Self.answer(id: ids[Int(random.next() % UInt64(ids.count))], items: items,
                                   tail: tails[Int(random.next() % UInt64(tails.count))])
            guard let fast = HistoryPageReading.answer(page, answers: { $0 != RequestID("hist-2") }) else { continue }
            read += 1
            let frame = try Frame(bytes: page)
            guard case .response(let id, let result) = try frame.message() else {
                Issue.record("read, but not an answer: \(String(decoding: page, as: UTF8.self))")
                continue
            }
            let tree = try WireDecoding.changes(result, frame: frame, since: 9)
            #expect(fast.id == id && id != RequestID("hist-2"))
            #expect(fast.page.changesPage(since: 9, byteCount: page.count).items.map(Reading.init) == tree.items.map(Reading.init))
            #expect(fast.page.changesPage(since: 9, byteCount: page.count) == tree)
        }
        #expect(read > 100 && read < 1_000)
    }

    // MARK: - Generated items

    /// An item from a grammar of what bridges send and what they might: members in any order and
    /// spacing, members read twice, numbers of every form, strings with every escape, invalid
    /// UTF-8, other kinds and content shapes, and cut JSON. `isCommon`: the shape bridges send.
    private static func generatedItem(_ random: inout SplitMix64) -> (bytes: [UInt8], isCommon: Bool) {
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        var isCommon = true
        func odd<T>(_ usual: T, _ odd: [T], percent: UInt64 = 8) -> T {
            guard chance(percent) else { return usual }
            isCommon = false
            return pick(odd)
        }
        let space = { (random: inout SplitMix64) -> String in random.next() % 4 == 0 ? pickSpace(&random) : "" }
        let texts = ["a", "Hel", "lo wor", " \\\"q\\\" ", "\\n\\t", "\\u00e9t\\u00e9", "\\ud83d\\ude00", "\\ud83d", "\\/", "ok\\\\", "é", "```swift\\nlet"]
        var text = "\"" + pick(texts) + "\""
        text = odd(text, ["1", "null", "{\"text\":\"a\"}", "\"\\x\"", "\"a"])
        let type = odd("\"text\"", ["\"image\"", "1", "\"Text\""], percent: 4)
        var block = [("\"type\"", type), ("\"text\"", text)]
        if chance(10) { block.append(("\"annotations\"", pick(["{\"priority\":1}", "[1,{\"a\":null}]", "\"x\""]))) }
        block = odd(block, [[("\"text\"", text)], [("\"type\"", type)], block + [("\"type\"", "\"text\"")]], percent: 4)
        let blockJSON = object(block.shuffled(using: &random), &random, space)
        let content = chance(50) ? object([("\"content\"", blockJSON)], &random, space) : blockJSON
        let kind = odd(pick(["\"agent_message_chunk\"", "\"agent_thought_chunk\"", "\"user_message_chunk\""]),
                       ["\"plan\"", "\"tool_call\"", "\"agent_message_chunk_2\"", "1"])
        var update = [("\"sessionUpdate\"", kind), ("\"content\"", odd(content, ["\"text\"", "{}", "null", "[]"], percent: 4))]
        if chance(10) { update.append(("\"_meta\"", pick(["{\"k\":[true,false,null]}", "-0.5e-3", "\"\\u0000\""]))) }
        update = odd(update, [update + [("\"sessionUpdate\"", kind)], [update[0]]], percent: 3)
        let seq = odd(String(random.next() % 1_000_000), ["1.0", "1e3", "-0", "99999999999999999999", "\"5\"", "null"], percent: 5)
        let ts = odd(pick([String(1_731_000_000_000 + Int64(random.next() % 1000)), "null"]), ["1.5", "\"t\"", "true"], percent: 5)
        let sessionID = odd("\"S-\(random.next() % 9)\"", ["7", "null", "\"S\\u00e9\""], percent: 5)
        var item = [("\"seq\"", seq), ("\"session_id\"", sessionID), ("\"update\"", object(update.shuffled(using: &random), &random, space))]
        if chance(70) { item.append(("\"ts\"", ts)) }
        if chance(10) { item.append(("\"kind\"", "\"x\"")) }
        item = odd(item, [item + [("\"seq\"", "2")], item.map { $0.0 == "\"seq\"" ? ("\"se\\u0071\"", $0.1) : $0 }, Array(item.dropFirst())],
                   percent: 4)
        var bytes = Array(object(item.shuffled(using: &random), &random, space).utf8)
        if chance(2) {
            isCommon = false
            bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
        }
        if chance(2) {
            isCommon = false
            if let quote = bytes.lastIndex(of: UInt8(ascii: "a")) { bytes[quote] = 0xFF }
        }
        return (bytes, isCommon)
    }

    private static func pickSpace(_ random: inout SplitMix64) -> String {
        [" ", "\n", "\t ", "\r\n  "][Int(random.next() % 4)]
    }

    private static func object(_ members: [(String, String)], _ random: inout SplitMix64,
                               _ space: (inout SplitMix64) -> String) -> String {
        "{" + space(&random) + members.map { key, value in
            key + space(&random) + ":" + space(&random) + value + space(&random)
        }.joined(separator: ",") + "}"
    }

    private static func answer(id: String, items: [String], tail: String) -> [UInt8] {
        Array(answerText(id: id, items: items, tail: tail).utf8)
    }

    private static func answerText(id: String, items: [String], tail: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"items":[\#(items.joined(separator: ","))]\#(tail)}}"#
    }

    /// Arrays nested `count` deep.
    private static func nested(_ count: Int) -> String {
        String(repeating: "[", count: count) + String(repeating: "]", count: count)
    }

    private static func treePage(_ bytes: [UInt8], since: Int64) throws -> HistoryChangesPage {
        let frame = try Frame(bytes: bytes)
        guard case .response(_, let result) = try frame.message() else { throw MalformedFrame(reason: "not an answer") }
        return try WireDecoding.changes(result, frame: frame, since: since)
    }
}
