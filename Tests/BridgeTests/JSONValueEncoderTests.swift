@testable import Bridge
import Testing

@Suite("JSONValueEncoder: a typed value as JSON, members in order, nil as null")
struct JSONValueEncoderTests {
    struct Row: Encodable {
        var zeta: String
        var alpha: Int64?
        var nested: [Inner]
        var flag: Bool
        var ratio: Double
        var small: Int32?
        var fraction: Double?

        enum CodingKeys: String, CodingKey { case zeta, alpha, nested, flag, ratio, small, fraction }
    }

    struct Inner: Encodable {
        var name: String?
        var count: Int
    }

    @Test("members come in the order of the coding keys; nil optionals are null; arrays and numbers as written")
    func order() throws {
        let row = Row(zeta: "z \"quoted\"", alpha: nil, nested: [Inner(name: nil, count: 2), Inner(name: "b", count: -3)], flag: true, ratio: 0.5,
                      small: nil, fraction: nil)
        let json = try JSONValueEncoder().encode(row)
        #expect(String(decoding: JSONWriter.bytes(of: json), as: UTF8.self)
            == #"{"zeta":"z \"quoted\"","alpha":null,"nested":[{"name":null,"count":2},{"name":"b","count":-3}],"flag":true,"ratio":0.5,"small":null,"fraction":null}"#)
        #expect(String(decoding: JSONWriter.bytes(of: try JSONValueEncoder().encode([Int64(1), 2])), as: UTF8.self) == "[1,2]")
    }

    @Test("a number that is not finite is refused")
    func notFinite() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
    }
}
