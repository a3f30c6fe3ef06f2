import Foundation
import Bridge
import MirrorStore

/// A session's title, by one rule for every view: the title its desktop's session list gives (a
/// person may have set it), else the last one its agent gave (ACP's `session_info_update`), else
/// the first line of its first prompt that is not only a wrapper the agent's tooling added
/// (`<ide_selection>…`, `<command-name>…`, "Caveat: The messages below were generated…"). Tables cut
/// it to their column (`cut(_:to:)`); detail views show it whole.
package enum SessionTitle {
    /// The title of `session`, reading its agent's titles and its first events from `store`; nil
    /// when it has none of the three.
    package static func of(_ session: SessionSummary, store: MirrorStore) throws -> String? {
        if let title = session.title?.nilIfEmpty { return title }
        if let title = try store.agentTitle(sessionID: session.sessionID)?.nilIfEmpty { return title }
        // The person's first messages, each read whole from its entry: no other event is read (a
        // list of sessions asks this for each row). Once the session's opening is derived into
        // entries, they are the answer, a prompt or none.
        let user = UpdateKind.userMessageChunk.rawValue
        for span in try store.promptSpans(sessionID: session.sessionID, limit: promptEntryLimit) {
            let events = try store.timeline(sessionID: session.sessionID, range: TimelineRange(fromOrdinal: span.first, throughOrdinal: span.last))
            if let prompt = firstPrompt(of: Conversation(events: events.filter { $0.kind == user })) { return prompt }
        }
        if try store.hasEntries(sessionID: session.sessionID) { return nil }
        // Not derived yet: the opening of the session, read further only when it holds wrappers alone.
        for limit in promptSearchLimits {
            let events = try store.timeline(sessionID: session.sessionID, range: TimelineRange(limit: limit))
            if let prompt = firstPrompt(of: Conversation(events: events)) { return prompt }
            if events.count < limit { break }
        }
        return nil
    }

    /// How many of a session's first messages of the person are read for its first prompt.
    private static let promptEntryLimit = 32

    /// How many of a session's first events are read for its first prompt, at each try.
    private static let promptSearchLimits = [50, 400]

    /// The title of `session` whose conversation (whole, or its start) is at hand.
    package static func of(_ session: SessionSummary, conversation: Conversation) -> String? {
        if let title = session.title?.nilIfEmpty { return title }
        let agentTitle = conversation.entries.last { if case .sessionTitle = $0 { true } else { false } }
        if case .sessionTitle(let title, _) = agentTitle, !title.isEmpty { return title }
        return firstPrompt(of: conversation)
    }

    /// The title, else `Session <id>`: for headings, which need one.
    package static func heading(_ session: SessionSummary, conversation: Conversation) -> String {
        of(session, conversation: conversation) ?? "Session \(session.sessionID)"
    }

    /// The first line of the first user message that is more than wrappers.
    static func firstPrompt(of conversation: Conversation) -> String? {
        for case .message(.user, let text, _, _) in conversation.entries {
            if let line = promptLine(text) { return line }
        }
        return nil
    }

    /// The first line of what a prompt says once its wrappers are taken out (`<tag>…</tag>`
    /// blocks, the caveat of local commands), if anything is left.
    static func promptLine(_ text: String) -> String? {
        var rest = Substring(text)
        var said: [Substring] = []
        while let open = rest.firstIndex(of: "<") {
            said.append(rest[..<open])
            guard let name = wrapperName(rest[open...]), let close = rest.range(of: "</\(name)>") else {
                said.append(rest[open...])
                rest = ""
                break
            }
            rest = rest[close.upperBound...]
        }
        said.append(rest)
        return said.joined().split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix(localCommandCaveat) }
    }

    /// The name of the tag `text` starts with, if it is a wrapper's: `<name>`, the name of lowercase
    /// letters, digits, `-` and `_`, with a `-` or `_` in it (`ide_selection`, `command-name`): not
    /// HTML's `<b>` in what a person wrote.
    private static func wrapperName(_ text: Substring) -> String? {
        guard let end = text.firstIndex(of: ">") else { return nil }
        let name = text[text.index(after: text.startIndex)..<end]
        guard name.contains(where: { $0 == "-" || $0 == "_" }),
              name.allSatisfy({ ($0.isLetter && $0.isLowercase) || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
        return String(name)
    }

    private static let localCommandCaveat = "Caveat: The messages below were generated by the user while running local commands"

    /// `title` cut to `width` characters, its end marked by `…`, on one line.
    package static func cut(_ title: String, to width: Int) -> String {
        let line = title.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > width ? String(line.prefix(width - 1)) + "…" : line
    }

    /// The width `sessions` gives titles.
    package static let columnWidth = 60
}
