import Bridge

/// How the REPL and scripts print results (`.mode`, like the sqlite3 shell).
public enum OutputMode: String, Sendable, CaseIterable {
    /// Aligned columns, cut to the terminal's width.
    case table
    /// One JSON value per result, as the JSON-lines mode answers it.
    case json
    /// Markdown tables.
    case markdown

    /// `result` printed in this mode.
    public func render(_ result: CommandResult, width: Int?) -> String? {
        switch self {
        case .json:
            return String(decoding: JSONWriter.bytes(of: result.json), as: UTF8.self)
        case .table:
            return noted(result.table?.rendered(width: width) ?? result.text, result.note)
        case .markdown:
            return noted(result.table?.markdown ?? result.text, result.note)
        }
    }

    private func noted(_ body: String?, _ note: String?) -> String? {
        guard let note else { return body }
        return [body, note].compactMap { $0 }.joined(separator: "\n")
    }
}
