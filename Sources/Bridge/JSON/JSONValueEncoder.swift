/// Encodes an `Encodable` value as a `JSONValue`, its members in the order they are encoded (a
/// synthesized conformance encodes them in the order of its `CodingKeys`), so that a typed view
/// gives the documented JSON member for member. An optional that is nil is written as `null`, not
/// left out: every documented member is there in every answer.
///
/// Integers and floating-point numbers are written as Swift prints them; a value that is not
/// finite cannot be encoded (`EncodingError.invalidValue`).
public struct JSONValueEncoder {
    public init() {}

    public func encode(_ value: some Encodable) throws -> JSONValue {
        let root = Node()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        return root.value
    }
}

/// A value being encoded: a container stays open while its members are added. Members and
/// elements are kept in arrays of their own, appended to in place: kept inside an enum's
/// payload, each append copied the array (an answer of 20,000 entries took seconds).
private final class Node {
    enum Kind {
        case value
        case object
        case array
    }

    private var kind = Kind.value
    private var scalar = JSONValue(.null)
    private var members: [(String, Node)] = []
    private var elements: [Node] = []

    var value: JSONValue {
        switch kind {
        case .value: scalar
        case .object: JSONValue(.object(members.map { JSONMember($0.0, $0.1.value) }))
        case .array: JSONValue(.array(elements.map(\.value)))
        }
    }

    /// Makes it the scalar `value` (a container it was is dropped).
    func set(_ value: JSONValue) {
        kind = .value
        scalar = value
        members = []
        elements = []
    }

    /// The node of member `key` of this object (made one if it was not yet a container).
    func member(_ key: String) -> Node {
        becomeObject()
        if let found = members.first(where: { $0.0 == key }) { return found.1 }
        let node = Node()
        members.append((key, node))
        return node
    }

    /// A new element at the end of this array (made one if it was not yet a container).
    func appended() -> Node {
        becomeArray()
        let node = Node()
        elements.append(node)
        return node
    }

    func becomeObject() {
        guard kind != .object else { return }
        set(JSONValue(.null))
        kind = .object
    }

    func becomeArray() {
        guard kind != .array else { return }
        set(JSONValue(.null))
        kind = .array
    }

    var count: Int {
        kind == .array ? elements.count : 0
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

/// Writes scalars into a node; anything else through its own `encode(to:)`.
private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(JSONValue(.null)) }
    mutating func encode(_ value: Bool) throws { node.set(JSONValue(.bool(value))) }
    mutating func encode(_ value: String) throws { node.set(JSONValue(.string(value))) }
    mutating func encode(_ value: Double) throws { try number(value, finite: value.isFinite) }
    mutating func encode(_ value: Float) throws { try number(value, finite: value.isFinite) }
    mutating func encode(_ value: Int) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: Int8) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: Int16) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: Int32) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: Int64) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: UInt) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: UInt8) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: UInt16) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: UInt32) throws { node.set(JSONValue(.number(String(value)))) }
    mutating func encode(_ value: UInt64) throws { node.set(JSONValue(.number(String(value)))) }

    mutating func encode(_ value: some Encodable) throws {
        // JSON as it came (an update shown raw) is kept as it is, its numbers as written.
        if let json = value as? JSONValue {
            node.set(json)
            return
        }
        try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
    }

    private func number(_ value: some LosslessStringConvertible, finite: Bool) throws {
        guard finite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: codingPath, debugDescription: "not a finite number"))
        }
        node.set(JSONValue(.number(String(value))))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    private func single(_ key: Key) -> SingleValueContainer {
        SingleValueContainer(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { var container = single(key); try container.encodeNil() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { var container = single(key); try container.encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { var container = single(key); try container.encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { var container = single(key); try container.encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { var container = single(key); try container.encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { var container = single(key); try container.encode(value) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws { var container = single(key); try container.encode(value) }

    /// A nil optional is written as `null`, not left out: a member documented is always there.
    /// (The protocol's own versions, which a synthesized conformance calls for each type, leave it
    /// out: each is replaced here.)
    private mutating func present(_ value: (some Encodable)?, _ key: Key) throws {
        var container = single(key)
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }

    mutating func encodeIfPresent(_ value: (some Encodable)?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = node.member(key.stringValue)
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.becomeArray()
        return UnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private struct Index: CodingKey {
        var stringValue: String { String(intValue ?? 0) }
        var intValue: Int?
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    private func next() -> SingleValueContainer {
        SingleValueContainer(node: node.appended(), codingPath: codingPath + [Index(count)])
    }

    mutating func encodeNil() throws { var container = next(); try container.encodeNil() }
    mutating func encode(_ value: Bool) throws { var container = next(); try container.encode(value) }
    mutating func encode(_ value: String) throws { var container = next(); try container.encode(value) }
    mutating func encode(_ value: Int64) throws { var container = next(); try container.encode(value) }
    mutating func encode(_ value: some Encodable) throws { var container = next(); try container.encode(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = node.appended()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = node.appended()
        child.becomeArray()
        return UnkeyedContainer(node: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appended(), codingPath: codingPath) }
}
