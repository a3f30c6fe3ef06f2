import Bridge

/// How many events the next `tinyvex/history.changes` page asks for, adapted to the bytes pages
/// hold: a page aims at `targetBytes` (a quarter of the message limit, at most 1 MiB), so pages
/// get smaller after a large one and larger again (doubling at most, page by page) after small
/// ones, within `range`. A page the client refused as over the message limit is asked for again
/// smaller (`shrink`), down to one event.
struct PageSizer: Sendable, Equatable {
    /// The sizes a page may have (the bridge serves at most 5,000 events a page).
    static let range = 1...5000

    /// The most bytes a page aims at, whatever the limit. A page is decoded whole into a tree of
    /// values several times its size before it is packed, so this bounds the catch-up's memory:
    /// pages of 4 MiB peaked at 164 MiB on 100,000 events of 1 KB, pages of 1 MiB at 118 MiB, and
    /// the realistic history went no slower (docs/benchmarks.md). Requests are pipelined, so
    /// smaller pages cost no round trips.
    static let largestTarget = 1 << 20

    /// The bytes a page aims at.
    let targetBytes: Int

    /// The byte budget a page is asked with when the bridge can stop a page by size (`max_bytes`):
    /// twice the target, so that the sizer's guess ends most pages and the budget only those that
    /// meet a run of events far larger than the ones before (a page cut short drops the page asked
    /// ahead of it, which would start where this one did not reach).
    var byteBudget: Int { 2 * targetBytes }
    /// The events the next page asks for.
    private(set) var size: Int

    /// - Parameters:
    ///   - start: the first page's size (clamped to `range`).
    ///   - messageLimit: the client's message limit, in bytes.
    init(start: Int, messageLimit: Int) {
        targetBytes = max(1, min(Self.largestTarget, messageLimit / 4))
        size = Self.clamp(start)
    }

    /// Adapts the next size to a page of `events` events that came in `bytes` bytes.
    mutating func observe(events: Int, bytes: Int) {
        guard events > 0, bytes > 0 else { return }
        let bytesPerEvent = max(1, (bytes + events - 1) / events)
        size = Self.clamp(min(targetBytes / bytesPerEvent, size * 2))
    }

    /// After a page of `requested` events was refused as over the limit (`size`: its bytes, at
    /// least, when known): the next, smaller size; nil when the page held one event already.
    mutating func shrink(afterRefusing requested: Int, size bytes: Int?) -> Int? {
        guard requested > 1 else { return nil }
        var next = requested / 2
        if let bytes, bytes > 0 { next = min(next, requested * targetBytes / bytes) }
        size = Self.clamp(next)
        return size
    }

    private static func clamp(_ size: Int) -> Int {
        min(max(size, range.lowerBound), range.upperBound)
    }
}
