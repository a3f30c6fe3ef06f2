/// A JSON-RPC request id, compared as a string.
///
/// The stock bridge echoes an id that looks like an integer as a JSON number (`"42"` → `42`,
/// `"007"` → `7`); reading a numeric id as its literal text keeps answers matchable, and this
/// client only sends ids that do not look like integers (`hist-17`).
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Reads an id from a frame: strings as they are, numbers as their literal; nil for others.
    init?(json: JSONValue) {
        switch json.kind {
        case .string(let string): rawValue = string
        case .number(let literal): rawValue = json.int64Value.map(String.init) ?? literal
        default: return nil
        }
    }

    public var description: String { rawValue }
}
