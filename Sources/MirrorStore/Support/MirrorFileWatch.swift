#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Primitives
import Synchronization

/// Tells a reader in another process when the mirror may have changed, without polling: every
/// commit appends to the mirror's write-ahead log (`<mirror>-wal`), a checkpoint truncates it, and
/// a new or migrated mirror creates its files; on Linux, inotify watches the directory that holds
/// them and reports those writes. The reader then asks SQLite what changed (`PRAGMA data_version`
/// first, which costs nothing when nothing did).
///
/// Where inotify is not available (another system, or the user's inotify limits reached), `wait`
/// returns after its timeout instead: the reader still sees every change, only later.
public final class MirrorFileWatch: Sendable {
    /// What ended a wait.
    public enum Wakeup: Sendable, Equatable {
        /// One of the mirror's files was written, created, replaced or removed.
        case changed
        /// The timeout passed with no change reported.
        case timedOut
        /// `stop()` was called: no more waits.
        case stopped
    }

    /// The inotify descriptor, or -1 without inotify.
    private let notifications: Int32
    /// The two ends of the pipe that `stop()` writes to, to end a wait at once.
    private let stopReader: Int32
    private let stopWriter: Int32
    /// The names in the directory that matter: the mirror, its write-ahead log and its rollback journal.
    private let names: Set<String>
    /// Set by `stop()`: seen by every wait, even without the pipe.
    private let stopped = Atomic(false)

    /// True when changes are reported as they happen (inotify), false when only timeouts wake a wait.
    public var reportsChanges: Bool { notifications >= 0 }

    /// Watches the directory of the mirror at `mirrorPath` (which need not exist yet); a symbolic
    /// link is followed, as SQLite follows it to write the log beside the file it names.
    public init(mirrorPath: String) {
        let mirrorPath = Self.resolvingLinks(mirrorPath)
        let slash = mirrorPath.lastIndex(of: "/")
        let directory = slash.map { $0 == mirrorPath.startIndex ? "/" : String(mirrorPath[..<$0]) } ?? "."
        let name = slash.map { String(mirrorPath[mirrorPath.index(after: $0)...]) } ?? mirrorPath
        names = [name, name + "-wal", name + "-journal"]
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        }
        stopReader = ends[0]
        stopWriter = ends[1]
        notifications = Self.watch(directory: directory)
    }

    deinit {
        for descriptor in [notifications, stopReader, stopWriter] where descriptor >= 0 { close(descriptor) }
    }

    /// Blocks the calling thread until the mirror's files change, `timeout` passes, or `stop()`.
    /// Changes that happened since the last wait are reported at once.
    public func wait(timeout: Duration) -> Wakeup {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if stopped.load(ordering: .acquiring) { return .stopped }
            let left = clock.now.duration(to: deadline)
            // Without the stop pipe, a stop is seen within 100 ms.
            let cap: Int64 = stopReader >= 0 ? .max : 100
            let milliseconds = left <= .zero ? 0 : Int32(clamping: min(cap, left.milliseconds + 1))
            var descriptors = [pollfd(fd: stopReader, events: Int16(POLLIN), revents: 0)]
            if notifications >= 0 { descriptors.append(pollfd(fd: notifications, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .timedOut
            }
            if descriptors[0].revents != 0 { return .stopped }
            if ready == 0 {
                if clock.now < deadline { continue }
                return .timedOut
            }
            if descriptors.count > 1, descriptors[1].revents != 0, readNotifications() { return .changed }
            if clock.now >= deadline { return .timedOut }
        }
    }

    /// Ends the current wait and every later one with `.stopped`.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        if stopWriter >= 0 { _ = write(stopWriter, &byte, 1) }
    }

    /// Reads every waiting notification; true when one was about the mirror's files (or some were lost).
    private func readNotifications() -> Bool {
        #if canImport(Glibc)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(notifications, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = bytes[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 || names.contains(String(decoding: nameBytes, as: UTF8.self)) {
                        relevant = true
                    }
                    offset += header + length
                }
            }
        }
        #else
        return true
        #endif
    }

    /// `path` with every symbolic link followed, or as it is when it cannot be (it does not exist yet).
    private static func resolvingLinks(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// An inotify descriptor watching `directory` for writes and for files appearing or going,
    /// or -1 when that is not possible.
    private static func watch(directory: String) -> Int32 {
        #if canImport(Glibc)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return -1 }
        let events = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_CLOSE_WRITE)
        guard inotify_add_watch(descriptor, directory, events) >= 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
        #else
        return -1
        #endif
    }
}
