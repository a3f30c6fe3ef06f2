/// A value as SQLite stores it.
public enum DatabaseValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Text whose bytes are stored exactly as given, without UTF-8 validation or repair.
    case textBytes([UInt8])
    case blob([UInt8])
}

/// A Swift value that can be bound to a statement parameter.
public protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}
