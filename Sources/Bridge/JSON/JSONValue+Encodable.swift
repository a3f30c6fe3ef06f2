/// A JSON value inside a typed view (an update shown as it came). `JSONValueEncoder` keeps it as
/// it is; another encoder gets its numbers as integers where they are, else as doubles.
extension JSONValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        switch kind {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .number(let literal):
            var container = encoder.singleValueContainer()
            if let integer = Int64(literal) { try container.encode(integer) } else { try container.encode(Double(literal) ?? .nan) }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in members { try container.encode(member.value, forKey: MemberKey(member.key)) }
        }
    }

    /// An object's member name as a coding key.
    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
