import Bridge
import MirrorStore
import Secrets

/// Stored events with their secrets redacted, for the views that show events one by one (`export
/// --format json`, `show --raw`): each event's update has its strings redacted (`JSONRedaction`),
/// its search text too; and the chunks of one streamed message (consecutive chunk events of one
/// kind and origin, as `Conversation` merges them) are redacted as parts of their merged text
/// first, so that a secret split across two chunks is caught: its tag stands in the chunk where
/// it starts, and its rest is left out of the next.
///
/// What this does not promise: a secret split across messages, across events that are not
/// consecutive in the view (`show --raw --at` shows a window: a chunk outside it is not seen), or
/// spelled differently in an update's other strings than in its chunk text.
enum EventRedaction {
    /// `events` redacted; themselves when `redactor` is nil.
    static func redacted(_ events: [TimelineEvent], by redactor: Redactor?) -> [TimelineEvent] {
        guard let redactor else { return events }
        var result: [TimelineEvent] = []
        result.reserveCapacity(events.count)
        var run: [(event: TimelineEvent, text: String)] = []
        func flush() {
            guard !run.isEmpty else { return }
            let texts = redactor.redact(pieces: run.map(\.text))
            for (entry, text) in zip(run, texts) { result.append(redacted(entry.event, chunk: (entry.text, text), by: redactor)) }
            run = []
        }
        for event in events {
            if let text = chunkText(event) {
                if let last = run.last?.event, last.kind != event.kind || last.origin != event.origin { flush() }
                run.append((event, text))
            } else {
                flush()
                result.append(redacted(event, chunk: nil, by: redactor))
            }
        }
        flush()
        return result
    }

    /// The text of a message or thought chunk; nil for other events.
    static func chunkText(_ event: TimelineEvent) -> String? {
        switch SessionUpdate(rawBytes: event.updateJSON).variant {
        case .userMessageChunk(let block), .agentMessageChunk(let block), .agentThoughtChunk(let block): block.plainText
        default: nil
        }
    }

    private static func redacted(_ event: TimelineEvent, chunk: (original: String, redacted: String)?, by redactor: Redactor) -> TimelineEvent {
        var event = event
        let pieces = chunk.map { [$0.original: $0.redacted] } ?? [:]
        event.updateJSON = JSONRedaction.redact(update: event.updateJSON, by: redactor, pieces: pieces)
        event.text = redactor.redact(pieces[event.text] ?? event.text)
        return event
    }
}
