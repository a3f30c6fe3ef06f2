/// A JSON value, as parsed from bytes or built in code.
///
/// Parsed values remember where they came from (`sourceRange`, byte offsets into the parsed
/// buffer), so that a caller can keep any part of a frame exactly as it was received. Numbers keep
/// their literal text, so no digit is lost or reformatted. Objects keep their members in order,
/// duplicates included; lookups take the last.
public struct JSONValue: Sendable, CustomStringConvertible {
    /// What the value is.
    public enum Kind: Sendable, Equatable {
        case null
        case bool(Bool)
        /// The number's literal, as written (`-12`, `1.5e3`).
        case number(String)
        case string(String)
        case array([JSONValue])
        case object([JSONMember])
    }

    public var kind: Kind
    /// Byte offsets of the value in the buffer it was parsed from; nil for values built in code.
    public var sourceRange: Range<Int>?

    public init(_ kind: Kind, sourceRange: Range<Int>? = nil) {
        self.kind = kind
        self.sourceRange = sourceRange
    }

    public static let null = JSONValue(.null)

    public static func bool(_ value: Bool) -> JSONValue { JSONValue(.bool(value)) }
    public static func string(_ value: String) -> JSONValue { JSONValue(.string(value)) }
    public static func number(_ value: Int64) -> JSONValue { JSONValue(.number(String(value))) }
    public static func number(_ value: Int) -> JSONValue { JSONValue(.number(String(value))) }
    public static func array(_ values: [JSONValue]) -> JSONValue { JSONValue(.array(values)) }
    public static func object(_ members: [JSONMember]) -> JSONValue { JSONValue(.object(members)) }

    /// Compact JSON text of the value.
    public var description: String { String(decoding: JSONWriter.bytes(of: self), as: UTF8.self) }
}

/// One `"key": value` of an object.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue: Equatable {
    /// Values are equal when their contents are; where they were parsed from does not matter.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.kind == rhs.kind
    }
}

// MARK: - Reading

extension JSONValue {
    /// The member `key` of an object (the last one, if repeated); nil for other values.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = kind else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The element at `index` of an array; nil for other values or out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = kind, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var stringValue: String? {
        if case .string(let string) = kind { return string }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let bool) = kind { return bool }
        return nil
    }

    /// The number as a 64-bit integer, when it is one (`12`, `12.0` and `1.2e1` are).
    public var int64Value: Int64? {
        guard case .number(let literal) = kind else { return nil }
        if let integer = Int64(literal) { return integer }
        guard let double = Double(literal), double.rounded() == double, abs(double) < 9.2e18 else { return nil }
        return Int64(double)
    }

    public var doubleValue: Double? {
        guard case .number(let literal) = kind else { return nil }
        return Double(literal)
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = kind { return elements }
        return nil
    }

    public var objectValue: [JSONMember]? {
        if case .object(let members) = kind { return members }
        return nil
    }

    public var isNull: Bool { kind == .null }
}

// MARK: - Literals

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self.init(.string(value)) }
    public init(integerLiteral value: Int64) { self.init(.number(String(value))) }
    public init(booleanLiteral value: Bool) { self.init(.bool(value)) }
    public init(arrayLiteral elements: JSONValue...) { self.init(.array(elements)) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(.object(elements.map { JSONMember($0.0, $0.1) }))
    }
    public init(nilLiteral: ()) { self.init(.null) }
}
