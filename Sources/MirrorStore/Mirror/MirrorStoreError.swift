/// Why a mirror could not be opened or an operation on it was refused.
///
/// Failures inside SQLite itself (a full disk, a locked file) are thrown as `SQLiteError`. The
/// descriptions say what is wrong and what kind of fix helps; how to apply it with a given
/// program (its options, its commands) is for the program to add.
public enum MirrorStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file exists but is not a SQLite database.
    case notADatabase(path: String, underlying: SQLiteError)
    /// The file is a SQLite database, but not an OpenAgents mirror.
    case notAMirror(path: String, reason: String)
    /// The mirror was written by a newer version of this program.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// A read-only open found a mirror that needs migrating first.
    case schemaTooOld(path: String, found: Int, required: Int)
    /// A read-only open found no file.
    case mirrorNotFound(path: String)
    /// No outbox item has this id.
    case unknownOutboxItem(id: Int64)
    /// The outbox item is not in a state that allows the change.
    case invalidOutboxTransition(id: Int64, from: OutboxState, to: OutboxState)
    /// The outbox item is being sent and cannot be dropped until its answer arrives.
    case outboxItemInFlight(id: Int64)
    /// No session has this id.
    case unknownSession(id: String)
    /// No history has this key or id.
    case unknownHistory(String)
    /// Events with seqs, or a cursor, were written without the history they belong to.
    case historyRequired
    /// A migration left the mirror inconsistent and was rolled back.
    case migrationFailed(path: String, version: Int, reason: String)
    /// A checkpoint could not copy the whole write-ahead log into the file (another connection
    /// was reading from it or checkpointing): nothing is lost, the log still holds it.
    case checkpointIncomplete(path: String)

    public var description: String {
        switch self {
        case .notADatabase(let path, let underlying):
            return "\(path) is not a SQLite database (\(underlying.message)); use a mirror file or a new path"
        case .notAMirror(let path, let reason):
            return "\(path) is not an OpenAgents mirror: \(reason); use a mirror file or a new path"
        case .schemaTooNew(let path, let found, let supported):
            return "\(path) was written by a newer OpenAgents Mirror (schema version \(found); this build knows "
                + "versions up to \(supported)): upgrade this program, or use another mirror file"
        case .schemaTooOld(let path, let found, let required):
            return "\(path) has schema version \(found) and this build needs \(required): a read-write open upgrades it"
        case .mirrorNotFound(let path):
            return "no mirror at \(path): it is created by the first sync"
        case .unknownOutboxItem(let id):
            return "no outbox item with id \(id)"
        case .invalidOutboxTransition(let id, let from, let to):
            return "outbox item \(id) is \(from.rawValue) and cannot become \(to.rawValue)"
        case .outboxItemInFlight(let id):
            return "outbox item \(id) is being sent: wait for its answer (if the sync sending it stopped, the next sync settles it), then retry or drop it"
        case .unknownSession(let id):
            return "no session with id \(id) in the mirror"
        case .unknownHistory(let id):
            return "no history \(id) in the mirror"
        case .historyRequired:
            return "events with seqs belong to a history, and none was given"
        case .migrationFailed(let path, let version, let reason):
            return "\(path) could not be upgraded to schema version \(version) (\(reason)); the file is unchanged"
        case .checkpointIncomplete(let path):
            return "\(path)-wal could not be folded into \(path) while another program was using the mirror; "
                + "nothing is lost: the log is kept, and the next checkpoint folds it"
        }
    }
}
