/// One numbered file of `schema/`, compiled into the binary.
public struct Migration: Sendable, Equatable {
    /// The version the mirror has once this migration ran (1, 2, 3…).
    public let version: Int
    /// The file's name in `schema/`.
    public let name: String
    /// The file's SQL, exactly.
    public let sql: String

    /// Every migration, in order. The last one's version is the schema version this build writes.
    public static let all: [Migration] = EmbeddedSchema.migrations.map {
        Migration(version: $0.version, name: $0.name, sql: $0.sql)
    }

    /// The schema version this build writes and understands.
    public static var latestVersion: Int { all.last?.version ?? 0 }
}
