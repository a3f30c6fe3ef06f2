import Foundation
import MirrorStore

/// A connection to the mirror that followers read through, on a thread of its own: it only
/// reads, so it never holds up oa-sync (WAL), and it opens the mirror only once the file exists.
public actor MirrorReader {
    private let executor = ThreadExecutor(name: "oa-mirror-read")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public let mirrorPath: String
    private var store: MirrorStore?

    public init(mirrorPath: String) {
        self.mirrorPath = mirrorPath
    }

    /// What a follower reads next, or nil when there is nothing to read: the mirror does not
    /// exist yet, or nothing was committed since the data version `unchangedSince` (read with the
    /// page before; nil: read in any case).
    ///
    /// - Returns: the page and the data version it was read at.
    public func page(after position: FeedPosition, sessionKey: Int64?, limit: Int, unchangedSince: Int64?) throws -> (FeedPage, Int64)? {
        guard let store = try openedStore() else { return nil }
        let version = try store.dataVersion()
        if let unchangedSince, unchangedSince == version { return nil }
        return (try store.feed(after: position, sessionKey: sessionKey, limit: limit), version)
    }

    /// The position after everything committed so far (`.start` while there is no mirror).
    public func end() throws -> FeedPosition {
        try openedStore()?.feedEnd() ?? .start
    }

    /// The mirror, opened read-only on first use once its file exists and has its tables (a
    /// follower may start before oa-sync ever ran: it waits, and neither creates nor migrates it).
    private func openedStore() throws -> MirrorStore? {
        if let store { return store }
        guard FileManager.default.fileExists(atPath: mirrorPath) else { return nil }
        do {
            store = try MirrorStore(path: mirrorPath, mode: .readOnly)
        } catch MirrorStoreError.schemaTooOld {
            return nil
        }
        return store
    }
}
