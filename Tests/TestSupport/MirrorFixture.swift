import Foundation
import MirrorStore
import Synchronization

/// A mirror made for a test, in a directory of its own that goes with it: the one way tests make
/// one (`mirror.sqlite`, on a clock the test moves by hand).
public struct MirrorFixture {
    public let directory: TemporaryDirectory
    public let clock: ManualClock
    public let store: MirrorStore

    /// The mirror's file.
    public var path: String { directory.path("mirror.sqlite") }

    public init() throws {
        directory = try TemporaryDirectory()
        clock = ManualClock()
        store = try MirrorStore(path: directory.path("mirror.sqlite"), clock: clock.mirrorClock)
    }
}

/// A clock the tests move by hand.
public final class ManualClock: Sendable {
    private let milliseconds = Mutex(Int64(1_731_000_000_000))

    public init() {}

    public var mirrorClock: MirrorClock {
        MirrorClock { self.milliseconds.withLock { $0 } }
    }

    public func advance(by delta: Int64) {
        milliseconds.withLock { $0 += delta }
    }
}
