import Commands
import MirrorStore
import ReadModel

/// A part of a session's conversation as Markdown (the export's rendering), from one entry on,
/// cut near a number of characters, with notes on what comes before and after and how to read it.
struct SessionMarkdown: Sendable {
    var sessionID: String
    var markdown: String
    /// The ordinal to pass as `at` (with `context: 0`) to read on, when the text stops before the
    /// session's end.
    var nextOrdinal: Int64?
    /// Entries shown.
    var entryCount: Int

    /// Reads entries from the one starting at `start`, as many events at a time as needed, until
    /// their Markdown reaches `maxCharacters` or the session ends. An entry longer than the
    /// budget on its own is shown cut, so that the text always moves on. The entries come
    /// redacted from `views`, before the text is cut.
    static func read(
        views: MirrorViews, session: SessionSummary, from start: Int64, earlier: (count: Int, lastOrdinal: Int64)?, maxCharacters: Int
    ) throws -> SessionMarkdown {
        let id = session.sessionID
        var span = 256
        while true {
            let part = try views.conversationPart(of: session, from: start, limit: span)
            var header = ["# " + part.title, "",
                          "- Session: `\(id)`", "- Mode: \(session.mode ?? "unknown")",
                          "- Last activity: \(Formatting.iso8601(session.lastTS) ?? "unknown")", "- Events: \(session.localEventCount)"]
            if let earlier {
                header += ["", "_\(earlier.count) earlier event(s) not shown: read_session with at: \(earlier.lastOrdinal) reads back from there._"]
            }
            // The last entry read may go on past the events read, unless they reach the end; past
            // the largest span it is shown as far as read (a message streamed in thousands of chunks).
            let capped = span >= ConversationWindow.maximumSpan
            let whole = part.reachesEnd || capped ? part.entries[...] : part.entries.dropLast()
            var text = header.joined(separator: "\n") + "\n"
            var characters = text.count
            for (index, entry) in whole.enumerated() {
                let block = "\n" + MarkdownExport.render(entry).joined(separator: "\n") + "\n"
                let length = block.count
                if characters + length > maxCharacters {
                    guard index > 0 else {
                        // One entry over the budget: as much of it as fits; reading on starts at
                        // the event where the budget ran out.
                        let room = max(0, maxCharacters - characters)
                        text += String(block.prefix(room)) + "\n\n[… cut here]\n"
                        return finish(text, id: id, next: ordinal(where: room, runsOutIn: part.eventLengths, after: entry.firstOrdinal), entries: 1)
                    }
                    return finish(text, id: id, next: entry.firstOrdinal, entries: index)
                }
                text += block
                characters += length
            }
            if part.reachesEnd { return finish(text, id: id, next: nil, entries: whole.count) }
            // Every whole entry read fits: read more events.
            span *= 4
        }
    }

    /// The ordinal of the first event after `start` at which the events' texts pass `characters`
    /// (nil when they never do: the session's end was shown).
    private static func ordinal(where characters: Int, runsOutIn events: [(ordinal: Int64, characters: Int)], after start: Int64) -> Int64? {
        var total = 0
        for event in events where event.ordinal >= start {
            total += event.characters
            if total > characters { return max(event.ordinal, start + 1) }
        }
        return nil
    }

    private static func finish(_ text: String, id: String, next: Int64?, entries: Int) -> SessionMarkdown {
        var text = text
        if let next {
            text += "\n---\n_Cut here to keep this short. To read on, call read_session with session_id \"\(id)\", at: \(next), context: 0._\n"
        } else {
            text += "\n---\n_End of the session._\n"
        }
        return SessionMarkdown(sessionID: id, markdown: text, nextOrdinal: next, entryCount: entries)
    }
}
