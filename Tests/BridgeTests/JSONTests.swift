import TestSupport
import Testing
@testable import Bridge

@Suite("JSON", .endsWithin(.seconds(120)))
struct JSONTests {
    @Test("values parse with their source ranges")
    func sourceRanges() throws {
        let text = #" {"a": [1, -2.5e3, true, null], "b": {"c": "d\"e"}} "#
        let bytes = Array(text.utf8)
        let value = try JSONParser.parse(bytes)
        #expect(value["a"]?[1]?.doubleValue == -2500)
        #expect(value["a"]?[0]?.int64Value == 1)
        #expect(value["a"]?[2]?.boolValue == true)
        #expect(value["a"]?[3]?.isNull == true)
        #expect(value["b"]?["c"]?.stringValue == #"d"e"#)
        let range = try #require(value["b"]?.sourceRange)
        #expect(String(decoding: bytes[range], as: UTF8.self) == #"{"c": "d\"e"}"#)
    }

    @Test("escapes, surrogate pairs and raw UTF-8 decode")
    func strings() throws {
        #expect(try JSONParser.parse(#""\u00e9\n\t\/\\ \ud83d\ude00 ü""#).stringValue == "é\n\t/\\ 😀 ü")
        #expect(try JSONParser.parse(#""\ud800x""#).stringValue == "\u{FFFD}x", "a lone surrogate becomes U+FFFD")
        #expect(try JSONParser.parse(#""\ud800\u0041""#).stringValue == "\u{FFFD}A", "and what follows it is kept")
        #expect(try JSONParser.parse(#""\udc00""#).stringValue == "\u{FFFD}")
    }

    @Test("invalid JSON is refused with the offset", arguments: [
        "", "{", "[1,]", "{\"a\":}", "nul", "01", "1.", "-", "\"abc", "{\"a\" 1}", "[1] x", "\"\u{01}\"", "{1:2}", "\"\\x\"",
    ])
    func invalid(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test("nesting deeper than the limit is refused, not a crash")
    func deepNesting() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = try #require(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        #expect(error.message.contains("nesting"))
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        _ = try JSONParser.parse(fine)
    }

    @Test("canonical bytes ignore key order and spacing, and keep numbers as written")
    func canonical() throws {
        let first = try JSONParser.parse(#"{"b": 1, "a": {"y": [1.50, "x"], "x": null}}"#)
        let second = try JSONParser.parse(#"{"a":{"x":null,"y":[1.50,"x"]},"b":1}"#)
        #expect(JSONWriter.canonicalBytes(of: first) == JSONWriter.canonicalBytes(of: second))
        #expect(String(decoding: JSONWriter.canonicalBytes(of: first), as: UTF8.self) == #"{"a":{"x":null,"y":[1.50,"x"]},"b":1}"#)
        #expect(JSONWriter.bytes(of: first) != JSONWriter.bytes(of: second))
    }

    @Test("written JSON parses back to the same value")
    func roundTrip() throws {
        let value: JSONValue = ["text": "line\n\"quoted\" \u{01} é", "list": [1, true, nil, ["k": "v"]]]
        #expect(try JSONParser.parse(JSONWriter.bytes(of: value)) == value)
    }
}
