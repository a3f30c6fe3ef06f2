import Bridge
import MirrorStore
import ReadModel

/// The conversation view of `show`, written as the events arrive: a streamed chunk continues the
/// message it belongs to on screen rather than starting a block of its own, a tool call is shown
/// when made and again with its result, and events that a refetch took back are said to be so
/// before the bridge's copy follows. Following every session, each line starts with the
/// session's short id. Headings are coloured as `show` colours them when `palette` has colour.
public struct FollowRenderer {
    /// The message being streamed in a session, with its chunks so far: when a refetch takes
    /// some back, what stands is shown again.
    private struct OpenMessage {
        var role: Conversation.Role
        var local: Bool
        var firstOrdinal: Int64
        var chunks: [(eventID: Int64, text: String)]
    }

    private let tagsSessions: Bool
    private let palette: Palette
    /// Each session's message still being streamed.
    private var openMessages: [String: OpenMessage] = [:]
    /// The session whose message the last line written continues, when it ended mid-line.
    private var lineOwner: String?
    /// Tool names by session and call id, for updates that name only the call.
    private var toolNames = RecentMap<String, String>(capacity: 4096)
    /// Ordinals of recent events shown, by event id: to say which ones a refetch took back.
    private var shownOrdinals = RecentMap<Int64, Int64>(capacity: 4096)

    /// - Parameters:
    ///   - tagsSessions: start each line with the session's short id (following every session).
    ///   - palette: the styles of the headings (`.plain`, the default: none).
    public init(tagsSessions: Bool, palette: Palette = .plain) {
        self.tagsSessions = tagsSessions
        self.palette = palette
    }

    /// The text for `items`, to write as it is (it may end mid-line, in a streamed message).
    public mutating func render(_ items: [FeedItem]) -> String {
        var output = ""
        var index = items.startIndex
        while index < items.endIndex {
            switch items[index] {
            case .appended(let event):
                render(event, into: &output)
                index += 1
            case .removed(_, let sessionID):
                var removed: [Int64] = []
                while index < items.endIndex, case .removed(let eventID, sessionID) = items[index] {
                    removed.append(eventID)
                    index += 1
                }
                takeBack(removed, session: sessionID, into: &output)
            case .confirmed:
                // Shown as it came; confirmed, it stays as it is.
                index += 1
            case .sessionMerged(let sessionID, let into):
                openMessages[sessionID] = nil
                block("~ this session, made here, is now part of the bridge's \(into) (follow \(Formatting.short(into)))",
                      session: sessionID, into: &output)
                index += 1
            case .outboxChanged(let outboxID, let sessionID, let state):
                block("~ prompt \(outboxID): \(state)", session: sessionID, into: &output)
                index += 1
            }
        }
        return output
    }

    /// What ends the output: a newline when the last line was left open.
    public mutating func finish() -> String {
        defer { lineOwner = nil }
        return lineOwner == nil ? "" : "\n"
    }

    private mutating func render(_ event: TimelineEvent, into output: inout String) {
        shownOrdinals.set(event.ordinal, for: event.eventID)
        let update = SessionUpdate(rawBytes: event.updateJSON)
        let session = event.sessionID
        switch update.variant {
        case .userMessageChunk(let block), .agentMessageChunk(let block), .agentThoughtChunk(let block):
            let role: Conversation.Role = switch UpdateKind(tag: event.kind) {
            case .userMessageChunk: .user
            case .agentThoughtChunk: .thinking
            default: .assistant
            }
            let local = event.origin == .local
            let text = block.plainText
            if let open = openMessages[session], open.role == role, open.local == local {
                if lineOwner != session {
                    let heading = "[\(open.firstOrdinal)] \(ConversationText.label(role, local: local)) (continued):"
                    startLine(heading, role: role, session: session, into: &output)
                }
            } else {
                openMessages[session] = OpenMessage(role: role, local: local, firstOrdinal: event.ordinal, chunks: [])
                startLine("[\(event.ordinal)] \(ConversationText.label(role, local: local)):", role: role, session: session, into: &output)
            }
            openMessages[session]?.chunks.append((event.eventID, text))
            output += continued(text, session: session)
        case .toolCall(let call):
            toolNames.set(call.name, for: "\(session)\u{0}\(call.callID)")
            entries(of: event, into: &output)
        case .toolCallUpdate(let call):
            let key = "\(session)\u{0}\(call.callID)"
            // An ACP update that renames its call shows (and keeps) the new title.
            if let title = call.title { toolNames.set(title, for: key) }
            entries(of: event, named: call.title == nil ? toolNames[key] : nil, into: &output)
        default:
            entries(of: event, into: &output)
        }
    }

    /// Says which events shown a refetch took back; when they were chunks of the message being
    /// streamed, shows that message again as it now stands, open for the bridge's copy to continue.
    private mutating func takeBack(_ removed: [Int64], session: String, into output: inout String) {
        let ordinals = removed.map { shownOrdinals[$0].map { "[\($0)]" } ?? "an earlier event" }
        block("~ no longer in the timeline: \(ordinals.joined(separator: ", ")) (a corrected copy, if any, follows)", session: session, into: &output)
        guard var open = openMessages[session] else { return }
        let gone = Set(removed)
        guard open.chunks.contains(where: { gone.contains($0.eventID) }) else {
            openMessages[session] = nil
            return
        }
        open.chunks.removeAll { gone.contains($0.eventID) }
        guard !open.chunks.isEmpty else {
            openMessages[session] = nil
            return
        }
        openMessages[session] = open
        startLine("[\(open.firstOrdinal)] \(ConversationText.label(open.role, local: open.local)) (corrected):", role: open.role,
                  session: session, into: &output)
        output += continued(open.chunks.map(\.text).joined(), session: session)
    }

    /// The event as `show` shows it on its own (a tool call update under its call's name).
    private mutating func entries(of event: TimelineEvent, named toolName: String? = nil, into output: inout String) {
        openMessages[event.sessionID] = nil
        for entry in Conversation(events: [event]).entries {
            var entry = entry
            if case .toolCall(var call) = entry, let toolName {
                call.name = toolName
                entry = .toolCall(call)
            }
            block(ConversationText.render(entry, palette: palette), session: event.sessionID, into: &output)
        }
    }

    /// Writes whole lines of `text`, after ending a line left open.
    private mutating func block(_ text: String, session: String, into output: inout String) {
        closeLine(into: &output)
        let prefix = linePrefix(session)
        output += prefix + text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + prefix) + "\n"
    }

    /// Writes a message's heading, in its role's style, and leaves a line open for its text.
    private mutating func startLine(_ heading: String, role: Conversation.Role, session: String, into output: inout String) {
        closeLine(into: &output)
        let prefix = linePrefix(session)
        output += prefix + palette.apply(palette.style(of: role), to: heading) + "\n" + prefix + "  "
        lineOwner = session
    }

    /// A chunk's text, continuing the open line: its line breaks indented as the message's.
    private func continued(_ text: String, session: String) -> String {
        guard text.contains("\n") else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + linePrefix(session) + "  ")
    }

    private mutating func closeLine(into output: inout String) {
        if lineOwner != nil { output += "\n" }
        lineOwner = nil
    }

    private func linePrefix(_ session: String) -> String {
        tagsSessions ? Formatting.short(session) + " " : ""
    }
}
