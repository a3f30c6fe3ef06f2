import Foundation

/// The one-writer lock of a mirror: an exclusive `flock` on `<mirror>.lock`, held while a process
/// syncs into the mirror. A second `oa-sync` on the same mirror is refused; readers need no lock.
/// The kernel releases the lock when the process ends, however it ends.
public final class MirrorLock {
    public let path: String
    private let descriptor: Int32

    /// Takes the lock, or fails at once with `MirrorLockError.held` when another process holds it.
    public init(mirrorPath: String) throws {
        path = mirrorPath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MirrorLockError.unavailable(path: path, reason: String(cString: strerror(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            throw MirrorLockError.held(mirrorPath: mirrorPath, holder: holder.flatMap(Int32.init))
        }
        self.descriptor = descriptor
        ftruncate(descriptor, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(descriptor, $0, strlen($0)) }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// Why the mirror's lock could not be taken.
public enum MirrorLockError: Error, Equatable, CustomStringConvertible {
    /// Another process is syncing into this mirror.
    case held(mirrorPath: String, holder: Int32?)
    /// The lock file cannot be opened.
    case unavailable(path: String, reason: String)

    public var description: String {
        switch self {
        case .held(let mirrorPath, let holder):
            "another oa-sync\(holder.map { " (pid \($0))" } ?? "") is already syncing into \(mirrorPath); "
                + "stop it first, or use another --db"
        case .unavailable(let path, let reason):
            "cannot open the lock file \(path): \(reason)"
        }
    }
}
