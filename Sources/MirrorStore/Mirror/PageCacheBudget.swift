/// How much memory SQLite's page cache of a connection may keep (`PRAGMA cache_size`), by what
/// the connection is doing. SQLite keeps every page it touches until the cache is full, so a
/// connection's cache grows to its budget however little it needs: a writer following live
/// updates for hours fills a catch-up's budget with pages written or read once.
public enum PageCacheBudget: Sendable, Equatable {
    /// A catch-up, or a reader: the leaf pages that 1,000 sessions' timelines append to at once
    /// (32 MiB).
    case catchUp
    /// Following live updates: the pages the appends of a few sessions at a time, their entries
    /// and the index's merges touch (4 MiB).
    case live

    /// The budget, in KiB of memory.
    public var kibibytes: Int {
        switch self {
        case .catchUp: 32 * 1024
        case .live: 4 * 1024
        }
    }
}
