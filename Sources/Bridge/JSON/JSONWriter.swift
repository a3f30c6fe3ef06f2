/// Writes JSON text.
public enum JSONWriter {
    /// Compact JSON of `value`, members in their order.
    public static func bytes(of value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, to: &output, sortingKeys: false)
        return output
    }

    /// Canonical JSON of `value`: compact, object keys sorted by their UTF-8 bytes (the last of
    /// repeated keys kept), strings escaped the one same way, numbers as written (`1.0` and `1`
    /// stay different). Two encodings that differ in key order, whitespace or string escapes — as
    /// a stock bridge's re-encodings do — give the same bytes.
    public static func canonicalBytes(of value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, to: &output, sortingKeys: true)
        return output
    }

    private static func write(_ value: JSONValue, to output: inout [UInt8], sortingKeys: Bool) {
        switch value.kind {
        case .null: output.append(contentsOf: Array("null".utf8))
        case .bool(let bool): output.append(contentsOf: Array((bool ? "true" : "false").utf8))
        case .number(let literal): output.append(contentsOf: Array(literal.utf8))
        case .string(let string): writeString(string, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output, sortingKeys: sortingKeys)
            }
            output.append(UInt8(ascii: "]"))
        case .object(var members):
            if sortingKeys {
                var lastByKey: [String: JSONMember] = [:]
                for member in members { lastByKey[member.key] = member }
                members = lastByKey.values.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            }
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, to: &output, sortingKeys: sortingKeys)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                           hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
