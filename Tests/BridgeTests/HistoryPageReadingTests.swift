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

    @Test("10,000 generated items: every one read without the tree reads as with it, and most common ones are")
    func generatedItems() throws {
        var random = SplitMix64(seed: 3434)
        var read = 0, common = 0, commonRead = 0
        for _ in 0..<10_000 {
            let (bytes, isCommon) = Self.generatedItem(&random)
            let fast = HistoryPageReading.change(bytes)
            if let fast {
                read += 1
                let tree = try WireDecoding.historyChangeFromTree(bytes)
                #expect(Reading(fast) == Reading(tree), "\(String(decoding: bytes, as: UTF8.self))")
            }
            if isCommon {
                common += 1
                if fast != nil { commonRead += 1 }
            }
        }
        #expect(commonRead == common && common > 1000)
        #expect(read < 10_000)
    }

    @Test("1,000 pages of generated items: every page read without the tree reads as with it")
    func generatedPages() throws {
        var random = SplitMix64(seed: 5656)
        var read = 0
        for _ in 0..<1_000 {
            let items = (0..<(1 + Int(random.next() % 6))).map { _ in String(decoding: Self.generatedItem(&random).bytes, as: UTF8.self) }
            let page = Self.answer(id: #""hist-1""#, items: items, tail: random.next() % 2 == 0 ? #","has_more":false"# : "")
            guard let fast = HistoryPageReading.answer(page, answers: { _ in true }) else { continue }
            read += 1
            let tree = try Self.treePage(page, since: 9)
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
        Array(#"{"jsonrpc":"2.0","id":\#(id),"result":{"items":[\#(items.joined(separator: ","))]\#(tail)}}"#.utf8)
    }

    private static func treePage(_ bytes: [UInt8], since: Int64) throws -> HistoryChangesPage {
        let frame = try Frame(bytes: bytes)
        guard case .response(_, let result) = try frame.message() else { throw MalformedFrame(reason: "not an answer") }
        return try WireDecoding.changes(result, frame: frame, since: since)
    }
}
