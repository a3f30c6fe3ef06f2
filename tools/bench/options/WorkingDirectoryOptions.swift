import ArgumentParser
import Foundation

/// `--directory`: where a benchmark writes its mirrors, copies and logs.
public struct WorkingDirectoryOptions: ParsableArguments {
    @Option(help: "Working directory, kept afterwards (default: a new temporary one, removed afterwards).")
    public var directory: String?

    public init() {}

    /// `--directory`, made if missing, else a new temporary directory named after `program`.
    public func make(for program: String) throws -> WorkingDirectory {
        let url = directory.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appending(path: "\(program)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return WorkingDirectory(url: url, isTemporary: directory == nil)
    }
}

/// A benchmark's working directory.
public struct WorkingDirectory: Sendable {
    public let url: URL
    /// True when no `--directory` was given: the directory goes when the benchmark ends.
    public let isTemporary: Bool

    /// The path of the SQLite database `name` here, with whatever an earlier run left under that
    /// name removed (the database, its WAL, shared memory, journal and lock): with `--directory`
    /// kept, a run would otherwise start from the mirror the last one made, and time nothing.
    public func freshDatabase(_ name: String) -> String {
        let path = url.appending(path: name).path
        for suffix in ["", "-wal", "-shm", "-journal", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }

    /// Removes the directory when it is a temporary one.
    public func removeIfTemporary() {
        if isTemporary { try? FileManager.default.removeItem(at: url) }
    }
}
