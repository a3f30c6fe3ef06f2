/// An RFC 8259 parser over UTF-8 bytes, recording where every value came from.
///
/// Fails with `JSONParseError` (with the byte offset) on anything that is not one complete JSON
/// value surrounded by optional whitespace; nesting deeper than `maximumDepth` is refused rather
/// than overflowing the stack. String values are decoded leniently: invalid UTF-8 and unpaired
/// surrogate escapes become U+FFFD (the bytes as sent stay available through `sourceRange`).
public struct JSONParser {
    /// How deep arrays and objects may nest.
    public static let maximumDepth = 512

    /// Parses `bytes` as one JSON value.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            var parser = Cursor(bytes: buffer)
            defer { parser.release() }
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.offset == buffer.count else { throw parser.error("unexpected data after the JSON value") }
            return value
        }
    }

    /// Parses the UTF-8 of `text` as one JSON value.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// A position in UTF-8 bytes and the parsing of the value there; also what readers that take
    /// a known shape apart without building its tree step with (`HistoryPageReading`).
    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0
        /// The members of the objects being parsed.
        var openMembers = OpenValues<JSONMember>()
        /// The elements of the arrays being parsed.
        var openElements = OpenValues<JSONValue>()

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        /// Frees what the containers parsed held; each parse calls it when it ends, thrown or not.
        mutating func release() {
            openMembers.release()
            openElements.release()
        }

        func error(_ message: String) -> JSONParseError {
            JSONParseError(message: message, offset: offset)
        }

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipWhitespace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x0A, 0x0D, 0x09: offset += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            let start = offset
            guard let byte = current else { throw error("unexpected end of input") }
            let kind: JSONValue.Kind
            switch byte {
            case UInt8(ascii: "{"): kind = try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): kind = try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): kind = .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); kind = .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); kind = .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); kind = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): kind = .number(try parseNumber())
            default: throw error("unexpected character '\(Unicode.Scalar(byte))'")
            }
            return JSONValue(kind, sourceRange: start..<offset)
        }

        /// Checks the value here and steps past it, building nothing but the strings it holds.
        mutating func skipValue(depth: Int) throws(JSONParseError) {
            guard let byte = current else { throw error("unexpected end of input") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth)") }
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                offset += 1
                skipWhitespace()
                if current == close {
                    offset += 1
                    return
                }
                while true {
                    skipWhitespace()
                    if close == UInt8(ascii: "}") {
                        guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
                        _ = try parseString()
                        skipWhitespace()
                        guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
                        offset += 1
                        skipWhitespace()
                    }
                    try skipValue(depth: depth + 1)
                    skipWhitespace()
                    switch current {
                    case UInt8(ascii: ","): offset += 1
                    case close:
                        offset += 1
                        return
                    default: throw error("expected ',' or a container's end")
                    }
                }
            default:
                _ = try parseValue(depth: depth)
            }
        }

        mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
            let count = literal.utf8CodeUnitCount
            guard offset + count <= bytes.count else { throw error("unexpected end of input") }
            for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] {
                throw error("invalid literal")
            }
            offset += count
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue.Kind {
            guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth)") }
            offset += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                offset += 1
                return .object([])
            }
            let first = openMembers.count
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let key = try parseString()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
                offset += 1
                skipWhitespace()
                let value = try parseValue(depth: depth)
                openMembers.push(JSONMember(key, value))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): offset += 1
                case UInt8(ascii: "}"):
                    offset += 1
                    return .object(openMembers.pop(from: first))
                default: throw error("expected ',' or '}'")
                }
            }
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue.Kind {
            guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth)") }
            offset += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                offset += 1
                return .array([])
            }
            let first = openElements.count
            while true {
                skipWhitespace()
                let element = try parseValue(depth: depth)
                openElements.push(element)
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): offset += 1
                case UInt8(ascii: "]"):
                    offset += 1
                    return .array(openElements.pop(from: first))
                default: throw error("expected ',' or ']'")
                }
            }
        }

        mutating func parseString() throws(JSONParseError) -> String {
            offset += 1
            let start = offset
            // Fast path: no escapes.
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                    offset += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("control character in string") }
                offset += 1
            }
            var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<offset]))
            while offset < bytes.count {
                let byte = bytes[offset]
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    return String(decoding: scratch, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    offset += 1
                    try appendEscape(to: &scratch)
                case 0..<0x20:
                    throw error("control character in string")
                default:
                    scratch.append(byte)
                    offset += 1
                }
            }
            throw error("unterminated string")
        }

        mutating func appendEscape(to scratch: inout [UInt8]) throws(JSONParseError) {
            guard let escape = current else { throw error("unterminated escape") }
            offset += 1
            switch escape {
            case UInt8(ascii: "\""): scratch.append(0x22)
            case UInt8(ascii: "\\"): scratch.append(0x5C)
            case UInt8(ascii: "/"): scratch.append(0x2F)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate pairs with a following \u low surrogate; alone, it reads as U+FFFD
                    // and whatever follows is read on its own.
                    let high = scalar
                    let afterHigh = offset
                    scalar = 0xFFFD
                    if offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") {
                        offset += 2
                        let low = try parseHex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            offset = afterHigh
                        }
                    }
                } else if (0xDC00..<0xE000).contains(scalar) {
                    scalar = 0xFFFD
                }
                let unicode = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                scratch.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                throw error("invalid escape '\\\(Unicode.Scalar(escape))'")
            }
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw error("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[offset]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("invalid hex digit in \\u escape")
                }
                value = value << 4 | digit
                offset += 1
            }
            return value
        }

        mutating func parseNumber() throws(JSONParseError) -> String {
            let start = offset
            if current == UInt8(ascii: "-") { offset += 1 }
            guard let first = current, isDigit(first) else { throw error("invalid number") }
            if first == UInt8(ascii: "0") {
                offset += 1
            } else {
                skipDigits()
            }
            if current == UInt8(ascii: ".") {
                offset += 1
                guard let digit = current, isDigit(digit) else { throw error("invalid number") }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                offset += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
                guard let digit = current, isDigit(digit) else { throw error("invalid number") }
                skipDigits()
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        }

        mutating func skipDigits() {
            while let byte = current, isDigit(byte) { offset += 1 }
        }

        func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }
}

/// Why bytes are not JSON.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    /// Where in the input the parser gave up.
    public let offset: Int

    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}
