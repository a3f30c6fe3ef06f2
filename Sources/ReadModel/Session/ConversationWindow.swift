import Bridge
import MirrorStore

/// The part of a session's conversation around one event: the entry (message, tool call, …) the
/// event belongs to and `context` entries before and after it, read without reading the whole
/// timeline, and how many events are left out on either side.
public struct ConversationWindow: Sendable {
    /// The entries shown, in order.
    public var entries: [Conversation.Entry]
    /// The stored events from the first entry shown up to the entry after the last one shown.
    public var events: [TimelineEvent]
    /// Events before the first one shown, and the ordinal of the last of them.
    public var earlier: (count: Int, lastOrdinal: Int64)?
    /// Events after the last one shown, and the ordinal of the first of them.
    public var later: (count: Int, firstOrdinal: Int64)?

    /// Entries before and after the one holding the event when no number is given.
    public static let defaultContext = 3

    /// The most events read on each side of the event: a message streamed in thousands of chunks
    /// is shown as far as that reaches, so that the cost stays bounded.
    public static let maximumSpan = 4096

    /// The window around ordinal `at` of the session `sessionID`.
    ///
    /// Reads events on both sides of `at`, four times as many each time, until the window holds
    /// `context` whole entries on each side of the event's (or reaches an end of the timeline, or
    /// `limit` events on each side). Nil when the session has no event at `at` or after it.
    package static func read(store: MirrorStore, sessionID: String, at ordinal: Int64, context: Int,
                             span limit: Int = maximumSpan) throws -> ConversationWindow? {
        var span = min(limit, max(64, (2 * context + 1) * 16))
        while true {
            let before = try store.timeline(sessionID: sessionID, before: ordinal, limit: span)
            let after = try store.timeline(sessionID: sessionID, range: TimelineRange(fromOrdinal: ordinal, limit: span + 1))
            guard let target = after.first else { return nil }
            let reachesStart = before.count < span
            let reachesEnd = after.count <= span
            let events = before + after
            let conversation = Conversation(events: events)
            let index = entryIndex(of: target, in: conversation, prefix: before + [target])
            // The first and last entries read may be cut off by the window: they only count when it reaches that end.
            let wholeBefore = reachesStart ? index : index - 1
            let wholeAfter = reachesEnd ? conversation.entries.count - 1 - index : conversation.entries.count - 2 - index
            // Past the largest span, entries cut at the window's edges are shown as far as read.
            if (wholeBefore >= context || reachesStart) && (wholeAfter >= context || reachesEnd) || span >= limit {
                let first = max(0, index - context)
                let last = min(conversation.entries.count - 1, index + context)
                return try window(store: store, sessionID: sessionID, entries: conversation.entries, shown: first...last, events: events,
                                  lastRead: reachesEnd ? nil : after.last?.ordinal)
            }
            span = min(span * 4, limit)
        }
    }

    /// The index of the entry that holds `event`: the one a tool call's update joins, else the
    /// entry the events up to it end with.
    private static func entryIndex(of event: TimelineEvent, in conversation: Conversation, prefix: [TimelineEvent]) -> Int {
        if case .toolCallUpdate(let update) = SessionUpdate(rawBytes: event.updateJSON).variant,
           let index = conversation.entries.lastIndex(where: { entry in
               if case .toolCall(let call) = entry, call.callID == update.callID, call.firstOrdinal <= event.ordinal { return true }
               return false
           }) {
            return index
        }
        return max(0, Conversation(events: prefix).entries.count - 1)
    }

    private static func window(
        store: MirrorStore, sessionID: String, entries: [Conversation.Entry], shown: ClosedRange<Int>, events: [TimelineEvent],
        lastRead: Int64?
    ) throws -> ConversationWindow {
        let start = entries[shown.lowerBound].firstOrdinal
        // The entry after the last one shown, else (an entry cut by the window) the event after the last one read.
        let end = shown.upperBound + 1 < entries.count ? entries[shown.upperBound + 1].firstOrdinal : lastRead.map { $0 + 1 } ?? Int64.max
        let counts = try store.eventCounts(sessionID: sessionID, before: start, from: end)
        let earlierOrdinal = events.last { $0.ordinal < start }?.ordinal ?? start - 1
        return ConversationWindow(
            entries: Array(entries[shown]),
            events: events.filter { $0.ordinal >= start && $0.ordinal < end },
            earlier: counts.before > 0 ? (counts.before, earlierOrdinal) : nil,
            later: counts.after > 0 ? (counts.after, end) : nil
        )
    }
}
