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
        case commands(names: [String], firstOrdinal: Int64)
        /// An update this client cannot type, shown as it came.
        case other(kind: String, json: String, firstOrdinal: Int64)
    }

    public enum Role: String, Sendable {
        case user
        case assistant
        case thinking
    }

    /// A tool call and what became of it.
    public struct ToolCallEntry: Sendable, Equatable {
        public var callID: String
        public var name: String
        /// The arguments, as compact JSON.
        public var arguments: String?
        /// The last status reported (`started`, `completed`, `error`), if any.
        public var status: String?
        public var error: String?
        /// The output, as text: its strings, or compact JSON.
        public var output: String?
        public var firstOrdinal: Int64
    }

    public var entries: [Entry]

    /// A conversation of these entries (a part of another one).
    init(entries: [Entry]) {
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
    private struct Builder {
        private var entries: [Entry] = []
        private var openMessage: (role: Role, text: String, local: Bool, firstOrdinal: Int64)?
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
                toolIndex[call.callID] = entries.count
                append(.toolCall(ToolCallEntry(
                    callID: call.callID, name: call.name, arguments: call.arguments.map { JSONWriter.bytes(of: $0) }.map { String(decoding: $0, as: UTF8.self) },
                    status: nil, error: nil, output: nil, firstOrdinal: event.ordinal
                )))
            case .toolCallUpdate(let update):
                let output = update.output.map(Conversation.outputText)
                if let index = toolIndex[update.callID], case .toolCall(var call) = entries[index] {
                    // An update of an earlier call leaves the message being merged open.
                    call.status = update.status ?? call.status
                    call.error = update.error ?? call.error
                    call.output = [call.output, output].compactMap { $0 }.joined(separator: "\n").nilIfEmpty
                    entries[index] = .toolCall(call)
                } else {
                    append(.toolCall(ToolCallEntry(callID: update.callID, name: "tool", arguments: nil, status: update.status,
                                                   error: update.error, output: output, firstOrdinal: event.ordinal)))
                }
            case .currentModeUpdate(let mode):
                append(.modeChange(mode: mode, firstOrdinal: event.ordinal))
            case .availableCommandsUpdate(let commands):
                append(.commands(names: commands.map(\.name), firstOrdinal: event.ordinal))
            case .unknown(let kind):
                append(.other(kind: kind, json: String(decoding: event.updateJSON, as: UTF8.self), firstOrdinal: event.ordinal))
            }
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
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
