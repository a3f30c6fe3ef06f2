@testable import Bridge
import TestSupport
import Testing

/// Who takes a message read in parts: the request its id names, when that request reads answers
/// in parts; the only request waiting, when the result comes before the id; else the whole path.
@Suite("Messages read in parts, taken by their request", .endsWithin(.seconds(120)))
struct MessageInPartsTests {
    let mine = RequestID("hist-2")

    func decide(_ pieces: [AnswerScanner.Piece], onlyWaiting: RequestID? = nil) -> MessageInParts.Decision? {
        MessageInParts.decision(pieces, answering: { $0 == mine }, onlyWaiting: onlyWaiting)
    }

    @Test("the id first names the request; another request's answer, a notification or an error goes whole")
    func byID() {
        #expect(decide([.member(key: "jsonrpc", value: Array(#""2.0""#.utf8))]) == nil, "undecided while only jsonrpc came")
        #expect(decide([.member(key: "jsonrpc", value: Array(#""2.0""#.utf8)), .member(key: "id", value: Array(#""hist-2""#.utf8))])
            == .answer(mine))
        #expect(decide([.member(key: "id", value: Array(#""hist-3""#.utf8)), .resultObject]) == .whole)
        #expect(decide([.member(key: "method", value: Array(#""session/update""#.utf8))]) == .whole)
        #expect(decide([.member(key: "error", value: Array(#"{"code":1}"#.utf8))]) == .whole)
    }

    @Test("a result before the id: the only request waiting takes it; with two in flight it goes whole")
    func resultFirst() {
        #expect(decide([.resultObject], onlyWaiting: mine) == .answer(mine))
        #expect(decide([.element(Array("{}".utf8))], onlyWaiting: mine) == .answer(mine))
        #expect(decide([.resultObject], onlyWaiting: nil) == .whole)
    }
}
