/// The mirror's key for one history (a row of `histories`).
public struct HistoryKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: HistoryKey, rhs: HistoryKey) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "history \(rawValue)" }
}

/// Who named a history.
public enum HistoryIdentity: String, Sendable, Equatable {
    /// The bridge named it (`history_id`, history-cursor version 2): the same wherever it is reached.
    case bridge
    /// The mirror named it, for a bridge that names none (version 1, stock): found again by its
    /// desktop's name.
    case mirror
    /// Held by a mirror written before histories were kept apart; the first bridge to connect
    /// under its desktop's name takes it over.
    case unclaimed
}

/// One desktop history as the mirror knows it: every session belongs to one.
///
/// A `seq` means something only within its history, so each has its own cursor. A desktop that
/// was reinstalled, or whose history store was wiped, starts a new history; the old one stays in
/// the mirror, marked as gone from the desktop.
public struct HistoryRecord: Sendable, Equatable {
    public var key: HistoryKey
    public var identity: HistoryIdentity
    /// The bridge's `history_id`, or the id this mirror made for it.
    public var historyID: String
    /// The desktop's short name: `--name`, the DNS-SD instance, or the bridge's host.
    public var desktop: String
    /// Where its bridge was last reached.
    public var bridgeURL: String?
    /// The last `seq` of the history that is fully mirrored (0: nothing yet).
    public var cursor: Int64
    public var firstSeenAt: Int64
    public var lastConnectedAt: Int64?
    public var lastSyncedAt: Int64?
    /// When the mirror noticed that the desktop's history started again without this one.
    public var goneAt: Int64?
    /// Sessions of the history in the mirror.
    public var sessionCount: Int
}
