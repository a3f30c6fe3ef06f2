import Foundation
import ToolSupport

/// Where the repository and its neighbours are, found from this file's path.
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let schemaDirectory = root.appending(path: "schema")
    /// A copy of `../shared/fixtures/stock`, so the tests need nothing outside the repository.
    public static let stockFixtures = root.appending(path: "Tests/Fixtures/stock")
    /// `../shared/corpora`: real material that is not ours to copy into the repository. Tests that
    /// read it are skipped where it is absent (a clone elsewhere).
    public static let sharedCorpora = root.deletingLastPathComponent().appending(path: "shared/corpora")
}

/// The directory holding the package's built executables (beside the test bundle), with the
/// links `oa-sync` and `oa-repl` to `oa` made in it the first time it is asked for.
public enum BuildProducts {
    public static let directory: URL = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable)
        while url.pathComponents.count > 1, url.pathExtension != "xctest" {
            url.deleteLastPathComponent()
        }
        let directory = url.deletingLastPathComponent()
        do {
            try ProgramLinks.make(in: directory)
        } catch {
            // The tests that run oa-sync or oa-repl then fail for want of it, after this line.
            FileHandle.standardError.write(Data("TestSupport: \(error)\n".utf8))
        }
        return directory
    }()

    public static func executable(_ name: String) -> URL {
        directory.appending(path: name)
    }
}

