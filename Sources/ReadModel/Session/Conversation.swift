import Bridge
import MirrorStore

/// A timeline read as a conversation: consecutive chunks of one kind merged into one message,
/// each tool call joined with its updates, everything else kept in place.
public struct Conversation: Sendable, Equatable {
    /// One entry of the conversation.
    public enum Entry: Sendable, Equatable {
        /// A user or assistant message, or the agent's thinking; `local` for prompts written here.
        case message(role: Role, text: String, local: Bool, firstOrdinal: Int64)
        case plan(entries: [PlanEntry], firstOrdinal: Int64)
        case toolCall(ToolCallEntry)
        case modeChange(mode: String, firstOrdinal: Int64)
        /// The session's title as the agent set it (ACP's `session_info_update`).
        case sessionTitle(title: String, firstOrdinal: Int64)
        case commands(names: [String], firstOrdinal: Int64)
        /// An update this client cannot type, shown as it came.
        case other(kind: String, json: String, firstOrdinal: Int64)
    }


    public enum Role: String, Sendable {
        case user
        case assistant
        case thinking
    }

    /// A tool call and what became of it, whichever encoding the bridge sent it in.
    public struct ToolCallEntry: Sendable, Equatable {
        public var callID: String
        public var name: String
        /// ACP's category of the tool (`read`, `edit`, `execute`, …), when sent.
        public var kind: String?
        /// The arguments, as compact JSON.
        public var arguments: String?
        /// The last status reported (`started`, `completed`, `error`; ACP's `pending`,
        /// `in_progress`, `failed`), if any.
        public var status: String?
        public var error: String?
        /// The output, as text: its strings, or compact JSON.
        public var output: String?
        /// The files it changes, as ACP sends them.
        public var diffs: [FileDiff] = []
        public var firstOrdinal: Int64

        /// Whether the call failed, in either encoding's words.
        public var failed: Bool { error != nil || status == "failed" || status == "error" }
    }

    public var entries: [Entry]

    /// A conversation of these entries (a part of another one).
    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// Builds the conversation of a timeline (events in order).
    public init(events: [TimelineEvent]) {
        var builder = Builder()
        for event in events { builder.add(event) }
        self.entries = builder.finish()
    }

    /// Accumulates entries; the message being merged is kept apart so that each chunk is appended
    /// in place (merging by `text + chunk` copied the whole message for every chunk).
    ///
    /// A reader that shows a long session as it is read takes the entries of the turns that have
    /// ended (`takeEnded`); an update of a call taken already then stands as an entry of its own.
    struct Builder {
        private var entries: [Entry] = []
        /// How many entries were taken before `entries[0]`.
        private var taken = 0
        private var openMessage: (role: Role, text: String, local: Bool, firstOrdinal: Int64)?
        /// Where each tool call stands among all the entries, taken or not.
        private var toolIndex: [String: Int] = [:]

        mutating func add(_ event: TimelineEvent) {
            let update = SessionUpdate(rawBytes: event.updateJSON)
            switch update.variant {
            case .userMessageChunk(let block), .agentMessageChunk(let block), .agentThoughtChunk(let block):
                let role: Role = switch UpdateKind(tag: event.kind) {
                case .userMessageChunk: .user
                case .agentThoughtChunk: .thinking
                default: .assistant
                }
                let local = event.origin == .local
                if let open = openMessage, open.role == role, open.local == local {
                    openMessage?.text.append(block.plainText)
                } else {
                    closeMessage()
                    openMessage = (role, block.plainText, local, event.ordinal)
                }
            case .plan(let plan):
                append(.plan(entries: plan, firstOrdinal: event.ordinal))
            case .toolCall(let call):
                closeMessage()
                toolIndex[call.callID] = taken + entries.count
                var entry = ToolCallEntry(callID: call.callID, name: call.name, kind: call.kind, arguments: call.arguments.map(Conversation.compactJSON),
                                          status: call.status, error: nil, output: nil, firstOrdinal: event.ordinal)
                entry.take(content: call.content, rawOutput: call.rawOutput)
                append(.toolCall(entry))
            case .toolCallUpdate(let update):
                if let index = toolIndex[update.callID].map({ $0 - taken }), index >= 0, case .toolCall(var call) = entries[index] {
                    // An update of an earlier call leaves the message being merged open.
                    call.apply(update)
                    entries[index] = .toolCall(call)
                } else {
                    var call = ToolCallEntry(callID: update.callID, name: "tool", firstOrdinal: event.ordinal)
                    call.apply(update)
                    append(.toolCall(call))
                }
            case .currentModeUpdate(let mode):
                append(.modeChange(mode: mode, firstOrdinal: event.ordinal))
            case .sessionInfoUpdate(let title):
                // Session information without a title (a time, metadata) says nothing to a reader.
                guard let title else { break }
                append(.sessionTitle(title: title, firstOrdinal: event.ordinal))
            case .availableCommandsUpdate(let commands):
                append(.commands(names: commands.map(\.name), firstOrdinal: event.ordinal))
            case .unknown(let kind):
                append(.other(kind: kind, json: String(decoding: event.updateJSON, as: UTF8.self), firstOrdinal: event.ordinal))
            }
        }

        /// Takes the entries of the prompt turns that have ended: those before the last message
        /// from the person. An agent reports a turn's tool calls within the turn (ACP's prompt
        /// turn ends once every call is reported, completed or cancelled), so later events do not
        /// change them.
        mutating func takeEnded() -> [Entry] {
            let end = entries.lastIndex { entry in
                if case .message(.user, _, _, _) = entry { true } else { false }
            } ?? 0
            let ended = Array(entries[..<end])
            entries.removeFirst(end)
            taken += end
            return ended
        }

        mutating func finish() -> [Entry] {
            closeMessage()
            return entries
        }

        private mutating func append(_ entry: Entry) {
            closeMessage()
            entries.append(entry)
        }

        private mutating func closeMessage() {
            guard let open = openMessage else { return }
            entries.append(.message(role: open.role, text: open.text, local: open.local, firstOrdinal: open.firstOrdinal))
            openMessage = nil
        }
    }

    /// `json` as compact JSON text.
    fileprivate static func compactJSON(_ json: JSONValue) -> String {
        String(decoding: JSONWriter.bytes(of: json), as: UTF8.self)
    }

    /// A tool's output as text: `stdout`/`stderr` and other strings joined by lines; other JSON as it is.
    fileprivate static func outputText(_ output: JSONValue) -> String {
        if let text = output.stringValue { return text }
        let strings = collectStrings(output)
        return strings.isEmpty ? String(decoding: JSONWriter.bytes(of: output), as: UTF8.self) : strings.joined(separator: "\n")
    }

    private static func collectStrings(_ value: JSONValue) -> [String] {
        switch value.kind {
        case .string(let string): [string]
        case .array(let elements): elements.flatMap(collectStrings)
        case .object(let members): members.flatMap { collectStrings($0.value) }
        default: []
        }
    }
}

extension String {
    /// The string, or nil when it is empty.
    package var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension Conversation.Entry {
    /// The ordinal of its first event: where it is in the timeline, and its anchor.
    public var firstOrdinal: Int64 {
        switch self {
        case .message(_, _, _, let ordinal), .plan(_, let ordinal), .modeChange(_, let ordinal), .sessionTitle(_, let ordinal),
             .commands(_, let ordinal), .other(_, _, let ordinal):
            ordinal
        case .toolCall(let call):
            call.firstOrdinal
        }
    }
}

extension Conversation.ToolCallEntry {
    init(callID: String, name: String, firstOrdinal: Int64) {
        self.init(callID: callID, name: name, kind: nil, arguments: nil, status: nil, error: nil, output: nil, firstOrdinal: firstOrdinal)
    }

    /// Takes what an update says: the desktop's output is added to what came before; what ACP
    /// sends replaces what it had said (a title, a kind, `rawInput`, the content; `rawOutput` is the
    /// output only without content).
    mutating func apply(_ update: ToolCallUpdate) {
        status = update.status ?? status
        error = update.error ?? error
        if let title = update.title { name = title }
        kind = update.kind ?? kind
        if let changed = update.arguments { arguments = Conversation.compactJSON(changed) }
        if let added = update.output.map(Conversation.outputText) {
            output = [output, added].compactMap { $0 }.joined(separator: "\n").nilIfEmpty
        }
        if let content = update.content {
            output = nil
            diffs = []
            take(content: content, rawOutput: update.rawOutput)
        } else if let rawOutput = update.rawOutput, output == nil {
            output = Conversation.outputText(rawOutput)
        }
    }

    /// Sets the output and diffs from ACP content: its diffs apart, the rest as text (nil when
    /// empty, as an empty output of the desktop's); `rawOutput` when there is no text.
    mutating func take(content: [ToolCallContent], rawOutput: JSONValue?) {
        var texts: [String] = []
        for item in content {
            if case .diff(let diff) = item { diffs.append(diff) } else { texts.append(item.plainText) }
        }
        if texts.isEmpty, let rawOutput { texts.append(Conversation.outputText(rawOutput)) }
        output = texts.joined(separator: "\n").nilIfEmpty
    }
}
