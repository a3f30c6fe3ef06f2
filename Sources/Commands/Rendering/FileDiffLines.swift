import Bridge

extension FileDiff {
    /// Lines of context kept around the change.
    static let contextLines = 3

    /// The change as a unified diff (`--- a/path`, `+++ b/path`, one hunk from the first line
    /// that differs to the last, with `contextLines` of the lines around them): lines are split
    /// at line feeds and compared byte for byte (a carriage return stays on its line; a line
    /// without its line feed differs from one with it, and is marked `\ No newline at end of
    /// file`). A file the change creates is `--- /dev/null`; texts that do not differ give the
    /// headers alone.
    public var unifiedLines: [String] {
        let old = oldText.map(Self.lines) ?? []
        let new = Self.lines(newText)
        let headers = [oldText == nil ? "--- /dev/null" : "--- a/\(path)", "+++ b/\(path)"]
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
            suffix += 1
        }
        guard prefix < old.count || prefix < new.count else { return headers }
        let before = min(prefix, Self.contextLines)
        let after = min(suffix, Self.contextLines)
        let removed = old[prefix..<(old.count - suffix)]
        let added = new[prefix..<(new.count - suffix)]
        let first = prefix - before + 1
        let hunk = "@@ -\(Self.range(first: first, count: before + removed.count + after)) +\(Self.range(first: first, count: before + added.count + after)) @@"
        return headers + [hunk]
            + old[(prefix - before)..<prefix].flatMap { $0.marked(" ") }
            + removed.flatMap { $0.marked("-") }
            + added.flatMap { $0.marked("+") }
            + old[(old.count - suffix)..<(old.count - suffix + after)].flatMap { $0.marked(" ") }
    }

    /// A hunk's range as unified diffs write it: an empty one starts at the line before.
    private static func range(first: Int, count: Int) -> String {
        "\(count == 0 ? first - 1 : first),\(count)"
    }

    /// One line of a text: its bytes, and whether a line feed ends it (only the last may lack one).
    private struct Line: Equatable {
        var bytes: ArraySlice<UInt8>
        var endsWithLineFeed: Bool

        func marked(_ mark: String) -> [String] {
            [mark + String(decoding: bytes, as: UTF8.self)] + (endsWithLineFeed ? [] : ["\\ No newline at end of file"])
        }
    }

    private static func lines(_ text: String) -> [Line] {
        let bytes = Array(text.utf8)
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Line(bytes: $0, endsWithLineFeed: true) }
        // After a final line feed nothing follows; else the last line has none.
        if lines.last?.bytes.isEmpty == true { lines.removeLast() } else if !lines.isEmpty { lines[lines.count - 1].endsWithLineFeed = false }
        return lines
    }
}
