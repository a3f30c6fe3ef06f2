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

    /// Removes the directory when it is a temporary one.
    public func removeIfTemporary() {
        if isTemporary { try? FileManager.default.removeItem(at: url) }
    }
}
