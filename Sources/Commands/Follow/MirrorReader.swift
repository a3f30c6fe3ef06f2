import Foundation
import MirrorStore
import Primitives

/// A connection to the mirror that followers read through, on a thread of its own: it only
/// reads, so it never holds up oa-sync (WAL), and it opens the mirror only once the file exists.
public actor MirrorReader {
    private let executor = ThreadExecutor(name: "oa-mirror-read")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The mirror's file.
    public let mirrorPath: String
    private var store: MirrorStore?
    /// The file the store was opened on (device and inode): another file at the path later is
    /// another mirror, whose ids mean other events.
    private var openedFile: (device: UInt64, inode: UInt64)?

    /// A reader of the mirror at `mirrorPath`, opened on first use.
    public init(mirrorPath: String) {
        self.mirrorPath = mirrorPath
    }

    /// What a follower reads next, or nil when there is nothing to read: the mirror does not
    /// exist yet, or nothing was committed since the data version `unchangedSince` (read with the
    /// page before; nil: read in any case).
    ///
    /// - Returns: the page and the data version it was read at.
    /// - Throws: `CommandError.store` when the file at the path is no longer the one opened (the
    ///   mirror was removed, or replaced by another).
    public func page(after position: FeedPosition, sessionKey: Int64?, desktop: String? = nil, limit: Int,
                     unchangedSince: Int64?) throws -> (FeedPage, Int64)? {
        guard let store = try openedStore() else { return nil }
        if let openedFile, Self.identity(of: mirrorPath).map({ $0 != openedFile }) ?? true {
            throw CommandError.store("\(mirrorPath) was removed or replaced while being followed (follow it again)")
        }
        let version = try store.dataVersion()
        if let unchangedSince, unchangedSince == version { return nil }
        return (try store.feed(after: position, sessionKey: sessionKey, desktop: desktop, limit: limit), version)
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
        let identity = Self.identity(of: mirrorPath)
        do {
            store = try MirrorStore(path: mirrorPath, mode: .readOnly)
        } catch MirrorStoreError.schemaTooOld {
            return nil
        }
        openedFile = identity
        return store
    }

    /// The device and inode of the file at `path` (links followed), if there is one.
    private static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
