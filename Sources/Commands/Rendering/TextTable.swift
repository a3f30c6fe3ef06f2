/// Rows with headers, rendered as an aligned text table or a Markdown table.
public struct TextTable: Sendable, Equatable {
    public var headers: [String]
    public var rows: [[String]]

    public init(headers: [String], rows: [[String]]) {
        self.headers = headers
        self.rows = rows
    }

    /// Aligned columns; the last column is cut to fit `width` characters (nil: no limit).
    public func rendered(width: Int? = nil) -> String {
        guard !rows.isEmpty else { return "(none)" }
        let showsHeaders = headers.contains { !$0.isEmpty }
        let cells = (showsHeaders ? [headers] : []) + rows.map { $0.map(Self.singleLine) }
        var widths = headers.indices.map { column in cells.map { Palette.visibleCount($0[column]) }.max() ?? 0 }
        if let width, let last = widths.indices.last {
            let used = widths.dropLast().reduce(0, +) + 2 * (widths.count - 1)
            widths[last] = max(8, min(widths[last], width - used))
        }
        return cells.map { row in
            row.enumerated().map { column, cell in
                // Cells may hold ANSI styles (CommandContext.palette): widths count what shows.
                let limit = widths[column]
                let shown = Palette.visibleCount(cell)
                let fitted = shown > limit ? Palette.visiblePrefix(cell, limit - 1) + "…" : cell
                return column == row.count - 1 ? fitted : fitted + String(repeating: " ", count: max(0, limit - min(shown, limit)))
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// A Markdown table.
    public var markdown: String {
        let escape = { (cell: String) in Self.singleLine(cell).replacing("|", with: "\\|") }
        var lines = ["| " + headers.map(escape).joined(separator: " | ") + " |",
                     "|" + headers.map { _ in "---" }.joined(separator: "|") + "|"]
        lines += rows.map { "| " + $0.map(escape).joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n")
    }

    private static func singleLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
