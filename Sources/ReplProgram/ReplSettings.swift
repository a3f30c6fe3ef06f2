import Foundation

/// What the interactive REPL remembers between runs besides its history: `.pager off`, in
/// `repl_settings` beside the history file, one `name value` a line.
struct ReplSettings: Equatable {
    /// Long output goes through the pager (`.pager on`, the default).
    var pager = true

    /// `repl_settings` in the folder of `historyPath`.
    static func path(besideHistory historyPath: String) -> String {
        URL(fileURLWithPath: historyPath).deletingLastPathComponent().appending(path: "repl_settings").path
    }

    /// The settings in `path`; the defaults for what it does not say (or when it cannot be read).
    static func load(from path: String) -> ReplSettings {
        var settings = ReplSettings()
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "pager" { settings.pager = words[1] != "off" }
        }
        return settings
    }

    /// Writes them to `path`; a file that cannot be written leaves them for this run only.
    func save(to path: String) {
        try? Data("pager \(pager ? "on" : "off")\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
