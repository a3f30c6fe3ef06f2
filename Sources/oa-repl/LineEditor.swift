import CEditLine
import Foundation

/// Line editing, history and tab completion on a terminal, with libedit (as Swift's own REPL).
///
/// libedit calls back into plain C functions, which cannot capture anything: the words they
/// complete from live in `CompletionWords`, set before each line is read.
final class LineEditor {
    private let historyPath: String

    /// - Parameter historyPath: where the history is kept between sessions.
    init(historyPath: String) {
        self.historyPath = historyPath
        ceditline_set_name(strdup("oa-repl"))
        ceditline_set_completer(completeLine)
        read_history(historyPath)
        stifle_history(1000)
    }

    /// Reads one line (nil at end of input); offers `words` to tab completion.
    func readLine(prompt: String, completingFrom words: [String]) -> String? {
        CompletionWords.current = words
        guard let line = readline(prompt) else { return nil }
        defer { free(line) }
        let text = String(cString: line)
        if !text.trimmingCharacters(in: .whitespaces).isEmpty {
            add_history(line)
            write_history(historyPath)
        }
        return text
    }
}

/// The words tab completion offers.
enum CompletionWords {
    // Safe: libedit and the REPL use it from the one thread that reads lines, one after another.
    nonisolated(unsafe) static var current: [String] = []
    nonisolated(unsafe) static var matches: [String] = []
}

/// libedit's completion entry: matches for the word being typed.
private func completeLine(_ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    let prefix = text.map { String(cString: $0) } ?? ""
    CompletionWords.matches = CompletionWords.current.filter { $0.lowercased().hasPrefix(prefix.lowercased()) }
    ceditline_set_completion_over(1)
    guard let text else { return nil }
    return rl_completion_matches(text, nextMatch)
}

/// libedit's generator: the `state`-th match, as a string it frees.
private func nextMatch(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    let matches = CompletionWords.matches
    guard Int(state) < matches.count else { return nil }
    return strdup(matches[Int(state)])
}
