/// Event ids grouped into few ranges, for reading one session's matches from the full-text index
/// by rowid range (which it seeks) rather than testing every match of the whole mirror.
enum EventIDRanges {
    /// How many runs of neighbouring ids `ids` (ascending) lie in.
    static func runCount(_ ids: [Int64]) -> Int {
        guard !ids.isEmpty else { return 0 }
        return 1 + ids.indices.dropLast().count { ids[$0 + 1] > ids[$0] + 1 }
    }

    /// Ranges covering every id of `ids` (ascending), at most `maximum` of them, newest first.
    ///
    /// Neighbouring ids form one range; when there are more than `maximum` ranges, the smallest
    /// gaps between them are closed first, so the ranges hold as few other ids as they can.
    static func covering(_ ids: [Int64], maximum: Int) -> [ClosedRange<Int64>] {
        guard let first = ids.first, let last = ids.last else { return [] }
        guard maximum > 1 else { return [first...last] }
        // Every gap between neighbouring ids: where it starts (index of the id before it), its width.
        var gaps: [(index: Int, width: Int64)] = []
        for index in ids.indices.dropLast() where ids[index + 1] > ids[index] + 1 {
            gaps.append((index, ids[index + 1] - ids[index]))
        }
        // Keep the widest gaps open as range boundaries.
        let open = gaps.sorted { $0.width != $1.width ? $0.width > $1.width : $0.index > $1.index }
            .prefix(maximum - 1).map(\.index).sorted()
        var ranges: [ClosedRange<Int64>] = []
        var start = first
        for index in open {
            ranges.append(start...ids[index])
            start = ids[index + 1]
        }
        ranges.append(start...last)
        return ranges.reversed()
    }
}
