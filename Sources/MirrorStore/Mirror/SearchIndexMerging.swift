/// How the full-text index merges the segments that indexing adds (each transaction that indexes
/// events adds at least one; a search reads every segment).
public enum SearchIndexMerging: Sendable {
    /// A little with every transaction that indexes (FTS5's defaults: `automerge` 4, and a
    /// level merged whole once it holds 16 segments): for live commits, each of which stays short.
    case asItGrows
    /// Not with the transactions that index, until a level holds 64 segments (`automerge` 0,
    /// `crisismerge` 64); one `mergeSearchIndex()` at the end merges them all. For a long
    /// catch-up, where merging as the index grows rewrites the same entries several times (a
    /// tenth of the initial sync of 1M events: docs/benchmarks.md).
    case deferred
}
