import Foundation
import MirrorStore
import Synchronization

/// Where the repository and its neighbours are, found from this file's path.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let schemaDirectory = root.appending(path: "schema")
    /// A copy of `../shared/fixtures/stock`, so the tests need nothing outside the repository.
    static let stockFixtures = root.appending(path: "Tests/Fixtures/stock")
}

/// The directory holding the package's built executables (beside the test bundle).
enum BuildProducts {
    static let directory: URL = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable)
        while url.pathComponents.count > 1, url.pathExtension != "xctest" {
            url.deleteLastPathComponent()
        }
        return url.deletingLastPathComponent()
    }()

    static func executable(_ name: String) -> URL {
        directory.appending(path: name)
    }
}

/// A clock the tests move by hand.
final class ManualClock: Sendable {
    private let milliseconds = Mutex(Int64(1_731_000_000_000))

    var mirrorClock: MirrorClock {
        MirrorClock { self.milliseconds.withLock { $0 } }
    }

    func advance(by delta: Int64) {
        milliseconds.withLock { $0 += delta }
    }
}

/// A synthetic agent message event.
func messageEvent(_ session: String, seq: Int64? = nil, text: String, provisional: Bool = false) -> NewEvent {
    let json = #"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"\#(text)"}}}"#
    return NewEvent(
        sessionID: session,
        seq: seq,
        timestamp: seq.map { 1_731_000_000_000 + $0 },
        kind: "agent_message_chunk",
        text: text,
        updateJSON: Array(json.utf8),
        provisional: provisional
    )
}
