import Bridge

extension FileDiff {
    /// Lines of context kept around the change.
    static let contextLines = 3

    /// The change as a unified diff (`--- a/path`, `+++ b/path`, one hunk): the texts' common
    /// first and last lines left out but for `contextLines` around the lines that differ. A file
    /// the change creates is `--- /dev/null`; texts that do not differ give the headers alone.
    public var unifiedLines: [String] {
        let old = oldText.map(Self.lines) ?? []
        let new = Self.lines(newText)
        var headers = [oldText == nil ? "--- /dev/null" : "--- a/\(path)", "+++ b/\(path)"]
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
            suffix += 1
        }
        guard prefix < old.count || prefix < new.count, old != new else { return headers }
        let before = min(prefix, Self.contextLines)
        let after = min(suffix, Self.contextLines)
        let removed = old[prefix..<(old.count - suffix)]
        let added = new[prefix..<(new.count - suffix)]
        let oldCount = before + removed.count + after
        let newCount = before + added.count + after
        headers.append("@@ -\(Self.range(first: prefix - before + 1, count: oldCount)) +\(Self.range(first: prefix - before + 1, count: newCount)) @@")
        return headers
            + old[(prefix - before)..<prefix].map { " " + $0 }
            + removed.map { "-" + $0 }
            + added.map { "+" + $0 }
            + old[(old.count - suffix)..<(old.count - suffix + after)].map { " " + $0 }
    }

    /// A hunk's range as unified diffs write it: an empty one starts at the line before.
    private static func range(first: Int, count: Int) -> String {
        "\(count == 0 ? first - 1 : first),\(count)"
    }

    /// The lines of `text`; a final line feed ends the last line rather than starting another.
    private static func lines(_ text: String) -> [Substring] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}
