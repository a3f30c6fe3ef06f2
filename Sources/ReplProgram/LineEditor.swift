import CEditLine
import Commands
import Foundation

/// Line editing, history and tab completion on a terminal, with libedit (as Swift's own REPL).
///
/// libedit calls back into plain C functions, which cannot capture anything: the ids they
/// complete from live in `CompletionState`, set before each line is read.
final class LineEditor {
    private let historyPath: String

    /// - Parameter historyPath: where the history is kept between sessions.
    init(historyPath: String) {
        self.historyPath = historyPath
        ceditline_set_name(strdup("oa-repl"))
        ceditline_set_completer(completeLine)
        ceditline_break_words_at_spaces()
        read_history(historyPath)
        stifle_history(1000)
    }

    /// Reads one line (nil at end of input); Tab completes from the catalogue and `known`.
    func readLine(prompt: String, completing known: CompletionIDs) -> String? {
        CompletionState.known = known
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

/// The ids tab completion offers.
enum CompletionState {
    // Safe: libedit and the REPL use it from the one thread that reads lines, one after another.
    nonisolated(unsafe) static var known = CompletionIDs()
}

/// libedit's completion entry: what replaces the word being typed, then the list to show, in a
/// NULL-terminated array of strings that libedit frees (nil: nothing to offer, and no file names).
private func completeLine(_ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    ceditline_set_completion_over(1)
    let word = text.map { String(cString: $0) } ?? ""
    let completion = LineCompletion(line: lineBeforeCursor(endingWith: word), known: CompletionState.known)
    guard !completion.candidates.isEmpty else { return nil }
    let strings = [completion.replacement] + completion.candidates
    guard let memory = malloc(MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (strings.count + 1)) else { return nil }
    let array = memory.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: strings.count + 1)
    for (index, string) in strings.enumerated() { array[index] = strdup(string) }
    array[strings.count] = nil
    return array
}

/// The line up to the cursor; just `word` when libedit's buffer does not end with it there.
private func lineBeforeCursor(endingWith word: String) -> String {
    guard let buffer = ceditline_line_buffer() else { return word }
    let bytes = UnsafeRawBufferPointer(start: buffer, count: strlen(buffer))
    let point = Int(ceditline_point())
    guard (0...bytes.count).contains(point) else { return word }
    let line = String(decoding: bytes.prefix(point), as: UTF8.self)
    return line.hasSuffix(word) ? line : word
}
