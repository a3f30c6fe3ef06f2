/// One `session/update` payload (the `update` object), kept exactly as received.
///
/// Nothing about an update is rejected: an update of an unknown kind or shape is kept with its
/// bytes and read generically (`summary`, `variant` = `.unknown`).
public struct SessionUpdate: Sendable, Equatable {
    /// The update object's bytes exactly as received.
    public let rawBytes: [UInt8]
    /// The update object parsed, or its summary alone when it was read without its tree
    /// (`HistoryPageReading`): the tree is then parsed from `rawBytes` when asked for.
    private let reading: Reading

    private enum Reading: Sendable {
        case parsed(JSONValue)
        case summarized(UpdateSummary)
    }

    public init(rawBytes: [UInt8], json: JSONValue) {
        self.rawBytes = rawBytes
        self.reading = .parsed(json)
    }

    /// An update built from bytes alone (parsed here; unparsable bytes give `null`).
    public init(rawBytes: [UInt8]) {
        self.init(rawBytes: rawBytes, json: (try? JSONParser.parse(rawBytes)) ?? .null)
    }

    /// An update read without its tree, whose summary is known.
    init(rawBytes: [UInt8], summary: UpdateSummary) {
        self.rawBytes = rawBytes
        self.reading = .summarized(summary)
    }

    /// The update object, parsed.
    public var json: JSONValue {
        switch reading {
        case .parsed(let json): json
        case .summarized: (try? JSONParser.parse(rawBytes)) ?? .null
        }
    }

    /// True when the update was read without its tree (its summary known, its tree parsed if asked).
    var isReadWithoutTree: Bool {
        if case .summarized = reading { return true }
        return false
    }

    /// The update's kind and plain text.
    public var summary: UpdateSummary {
        switch reading {
        case .parsed(let json): UpdateSummary(of: json)
        case .summarized(let summary): summary
        }
    }

    /// The update, typed.
    public var variant: SessionUpdateVariant { SessionUpdateVariant(json) }

    /// Canonical JSON of the update: equal for the same content whatever the key order or spacing.
    public var canonicalBytes: [UInt8] { JSONWriter.canonicalBytes(of: json) }

    /// Updates are equal when their bytes are: the tree and the summary are read from them.
    public static func == (lhs: SessionUpdate, rhs: SessionUpdate) -> Bool {
        lhs.rawBytes == rhs.rawBytes
    }
}

/// The `sessionUpdate` variants of the bridge, read from either encoding (the desktop's, and the
/// standard ACP one: flatter, camelCase), and everything else.
public enum SessionUpdateVariant: Sendable, Equatable {
    case userMessageChunk(ContentBlock)
    case agentMessageChunk(ContentBlock)
    case agentThoughtChunk(ContentBlock)
    case plan([PlanEntry])
    case toolCall(ToolCall)
    case toolCallUpdate(ToolCallUpdate)
    case availableCommandsUpdate([AvailableCommand])
    case currentModeUpdate(modeID: String)
    /// The session's title, when ACP's `session_info_update` sends one (nil: none said).
    case sessionInfoUpdate(title: String?)
    /// An update of another kind or shape, with the kind it claims (or `unknown`).
    case unknown(kind: String)

    /// Reads an update object; never fails.
    public init(_ update: JSONValue) {
        self.init(TaggedUpdate(update))
    }

    /// Reads an update whose tag is already found.
    init(_ tagged: TaggedUpdate) {
        let body = tagged.body
        switch UpdateKind(tag: tagged.tag) {
        case .userMessageChunk: self = .userMessageChunk(ContentBlock(chunkContent: body))
        case .agentMessageChunk: self = .agentMessageChunk(ContentBlock(chunkContent: body))
        case .agentThoughtChunk: self = .agentThoughtChunk(ContentBlock(chunkContent: body))
        case .plan: self = .plan(PlanEntry.entries(in: body))
        case .toolCall:
            guard let call = ToolCall(body[UpdateKind.toolCall.rawValue] ?? body) else { self = .unknown(kind: tagged.tag); return }
            self = .toolCall(call)
        case .toolCallUpdate:
            guard let update = ToolCallUpdate(body[UpdateKind.toolCallUpdate.rawValue] ?? body) else { self = .unknown(kind: tagged.tag); return }
            self = .toolCallUpdate(update)
        case .availableCommandsUpdate:
            let commands = body["available_commands"]?.arrayValue ?? body["availableCommands"]?.arrayValue ?? []
            self = .availableCommandsUpdate(commands.compactMap(AvailableCommand.init))
        case .currentModeUpdate:
            guard let mode = body["current_mode_id"]?.stringValue ?? body["currentModeId"]?.stringValue else {
                self = .unknown(kind: tagged.tag)
                return
            }
            self = .currentModeUpdate(modeID: mode)
        case .sessionInfoUpdate:
            self = .sessionInfoUpdate(title: body["title"]?.stringValue)
        case .unknown:
            self = .unknown(kind: tagged.tag)
        }
    }
}

/// An update's tag and the object holding its fields, in either the current shape
/// (`{"sessionUpdate":"plan","plan":…}`) or the older externally tagged one (`{"plan":{…}}`).
struct TaggedUpdate {
    /// The `sessionUpdate` tag as sent (any string), the key of the older shape, or `unknown`.
    let tag: String
    let body: JSONValue

    init(_ update: JSONValue) {
        if let tag = update["sessionUpdate"]?.stringValue {
            self.tag = tag
            self.body = update
        } else if let members = update.objectValue, members.count == 1, let only = members.first,
                  let kind = UpdateKind(rawValue: only.key), kind != .unknown {
            self.tag = kind.rawValue
            // The old shape nests the variant's fields one level down; read them as the new shape would.
            self.body = JSONValue.object([JSONMember(only.key, only.value)] + (only.value.objectValue ?? []))
        } else {
            self.tag = UpdateKind.unknown.rawValue
            self.body = update
        }
    }
}
