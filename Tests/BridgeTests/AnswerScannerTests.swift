@testable import Bridge
import TestSupport
import Testing

/// The scanner of answers read in parts: the same pieces whatever the bytes' cut into parts,
/// exact bytes kept, strings' brackets and escapes not taken for structure, pieces over the limit
/// and broken answers refused.
@Suite("Answers read in parts", .endsWithin(.seconds(120)))
struct AnswerScannerTests {
    static let answer = #"""
    { "jsonrpc" : "2.0", "id":"hist-7", "result": [ {"session_id":"s","update":{"text":"a ] } \" \\ [ {"}},
      {"session_id":"s","update":{"n":[1,2.5e3,true,null,"x"]}} ,"loose",12 ,{"k":"\u00e9"}], "extra": {"a":[]} }
    """#

    static func scan(_ bytes: [UInt8], partSize: Int, limit: Int = 1 << 20) throws -> [AnswerScanner.Piece] {
        var scanner = AnswerScanner(pieceLimit: limit)
        var pieces: [AnswerScanner.Piece] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + partSize, bytes.count)
            pieces += try scanner.feed(Array(bytes[start..<end]))
            start = end
        }
        try scanner.finish()
        return pieces
    }

    @Test("every cut into parts gives the same pieces, each the exact bytes of its value")
    func cuts() throws {
        let bytes = Array(Self.answer.utf8)
        let whole = try Self.scan(bytes, partSize: bytes.count)
        #expect(whole == [
            .member(key: "jsonrpc", value: Array(#""2.0""#.utf8)),
            .member(key: "id", value: Array(#""hist-7""#.utf8)),
            .element(Array(#"{"session_id":"s","update":{"text":"a ] } \" \\ [ {"}}"#.utf8)),
            .element(Array(#"{"session_id":"s","update":{"n":[1,2.5e3,true,null,"x"]}}"#.utf8)),
            .element(Array(#""loose""#.utf8)),
            .element(Array("12".utf8)),
            .element(Array(#"{"k":"\u00e9"}"#.utf8)),
            .member(key: "extra", value: Array(#"{"a":[]}"#.utf8)),
        ])
        for partSize in 1...40 {
            #expect(try Self.scan(bytes, partSize: partSize) == whole, "parts of \(partSize) bytes")
        }
        for cut in 1..<bytes.count {
            var scanner = AnswerScanner(pieceLimit: 1 << 20)
            let pieces = try scanner.feed(Array(bytes[..<cut])) + scanner.feed(Array(bytes[cut...]))
            try scanner.finish()
            #expect(pieces == whole, "cut at \(cut)")
        }
    }

    @Test("an empty result, and a result that is not an array, which comes as a member")
    func otherResults() throws {
        #expect(try Self.scan(Array(#"{"id":1,"result":[]}"#.utf8), partSize: 3) == [.member(key: "id", value: Array("1".utf8))])
        #expect(try Self.scan(Array(#"{"result":null,"id":"a"}"#.utf8), partSize: 2)
            == [.member(key: "result", value: Array("null".utf8)), .member(key: "id", value: Array(#""a""#.utf8))])
    }

    @Test("a history page's object result: its members whole, its items one at a time, in whatever order and cut")
    func objectResult() throws {
        let page = Array(#"""
        {"result" : {"next":12, "items":[{"seq":11,"update":{"t":"] }"}}, {"seq":12,"update":{}}], "has_more" :true},
         "jsonrpc":"2.0", "id":"hist-3"}
        """#.utf8)
        let whole = try Self.scan(page, partSize: page.count)
        #expect(whole == [
            .resultObject,
            .resultMember(key: "next", value: Array("12".utf8)),
            .element(Array(#"{"seq":11,"update":{"t":"] }"}}"#.utf8)),
            .element(Array(#"{"seq":12,"update":{}}"#.utf8)),
            .resultMember(key: "has_more", value: Array("true".utf8)),
            .member(key: "jsonrpc", value: Array(#""2.0""#.utf8)),
            .member(key: "id", value: Array(#""hist-3""#.utf8)),
        ])
        for partSize in 1...20 {
            #expect(try Self.scan(page, partSize: partSize) == whole, "parts of \(partSize) bytes")
        }
        #expect(try Self.scan(Array(#"{"id":1,"result":{"items":[],"nested":{"items":[1]}}}"#.utf8), partSize: 5) == [
            .member(key: "id", value: Array("1".utf8)), .resultObject,
            .resultMember(key: "nested", value: Array(#"{"items":[1]}"#.utf8)),
        ], "only the result's own items are taken apart")
    }

    @Test("a piece over the limit is refused with its size so far; the limit holds for each piece, not the answer")
    func pieceLimit() throws {
        let item = #"{"session_id":"s","update":{"text":"\#(String(repeating: "x", count: 100))"}}"#
        let answer = Array(#"{"id":"a","result":[\#(Array(repeating: item, count: 50).joined(separator: ","))]}"#.utf8)
        #expect(try Self.scan(answer, partSize: 64, limit: item.utf8.count).count == 51)
        #expect(throws: AnswerScanner.ScanError.self) { try Self.scan(answer, partSize: 64, limit: item.utf8.count - 1) }
        do {
            _ = try Self.scan(answer, partSize: 1000, limit: 50)
            Issue.record("an item of \(item.utf8.count) bytes passed a limit of 50")
        } catch AnswerScanner.ScanError.pieceTooLarge(let size) {
            #expect(size > 50)
        }
    }

    @Test("what is not an answer's object is refused: a stray byte, an unfinished answer")
    func malformed() throws {
        for text in [#"[1,2]"#, #"{"id" 1}"#, #"{"result":[1 2]}"#, #"{"id":1,}x"#] {
            #expect(throws: AnswerScanner.ScanError.self, "\(text)") { try Self.scan(Array(text.utf8), partSize: 4) }
        }
        var scanner = AnswerScanner(pieceLimit: 100)
        _ = try scanner.feed(Array(#"{"id":1,"result":[{"a":"#.utf8))
        #expect(throws: AnswerScanner.ScanError.self) { try scanner.finish() }
    }
}
