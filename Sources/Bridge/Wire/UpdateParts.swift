/// One step of a plan.
public struct PlanEntry: Sendable, Equatable {
    public var content: String
    /// `high`, `medium`, `low`, when given.
    public var priority: String?
    /// `pending`, `in_progress`, `completed`, when given.
    public var status: String?

    public init(content: String, priority: String? = nil, status: String? = nil) {
        self.content = content
        self.priority = priority
        self.status = status
    }

    /// The entries of a plan update: `plan.entries` (current) or `plan.steps` (older rows, strings).
    static func entries(in body: JSONValue) -> [PlanEntry] {
        let plan = body[UpdateKind.plan.rawValue] ?? body
        if let entries = plan["entries"]?.arrayValue {
            return entries.map { entry in
                PlanEntry(
                    content: entry["content"]?.stringValue ?? entry.stringValue ?? UpdateSummary.strings(in: entry).joined(separator: " "),
                    priority: entry["priority"]?.stringValue,
                    status: entry["status"]?.stringValue
                )
            }
        }
        return (plan["steps"]?.arrayValue ?? []).map { step in
            PlanEntry(content: step.stringValue ?? step["content"]?.stringValue ?? UpdateSummary.strings(in: step).joined(separator: " "))
        }
    }
}

/// A tool the agent called, read from either encoding: the desktop's (`tool_call: {call_id, name,
/// arguments}`) or the standard ACP one (`toolCallId`, `title`, `kind`, `status`, `rawInput`,
/// `content`, `rawOutput`, flat in the update).
public struct ToolCall: Sendable, Equatable {
    public var callID: String
    public var name: String
    /// ACP's category of the tool (`read`, `edit`, `execute`, …), when sent.
    public var kind: String?
    /// ACP's status at the call (`pending`, `in_progress`, …), when sent.
    public var status: String?
    /// The call's arguments as sent (any JSON): `arguments`, or ACP's `rawInput`.
    public var arguments: JSONValue?
    /// What the call holds already (ACP: a diff it proposes, text), in order.
    public var content: [ToolCallContent]
    /// ACP's `rawOutput`, when sent.
    public var rawOutput: JSONValue?

    init?(_ json: JSONValue) {
        guard let callID = ToolCallContent.callID(in: json) else { return nil }
        self.callID = callID
        self.name = json["name"]?.stringValue ?? json["title"]?.stringValue ?? "tool"
        self.kind = json["kind"]?.stringValue
        self.status = json["status"]?.stringValue
        self.arguments = json["arguments"] ?? json["rawInput"]
        self.content = ToolCallContent.list(in: json)
        self.rawOutput = json["rawOutput"]
    }
}

/// The progress or outcome of a tool call, read from either encoding (`ToolCall`). An ACP update
/// carries only what changed; its `content`, when sent, replaces the call's.
public struct ToolCallUpdate: Sendable, Equatable {
    public var callID: String
    /// `started`, `completed` or `error` (the desktop); `pending`, `in_progress`, `completed` or
    /// `failed` (ACP).
    public var status: String?
    /// The error, when the bridge sent it as a string.
    public var error: String?
    /// The call's output as sent by the desktop (any JSON).
    public var output: JSONValue?
    /// ACP's content of the call, when sent (nil: unchanged).
    public var content: [ToolCallContent]?
    /// ACP's `rawOutput`, when sent.
    public var rawOutput: JSONValue?
    /// ACP's title, kind and `rawInput`, when they changed.
    public var title: String?
    public var kind: String?
    public var arguments: JSONValue?

    init?(_ json: JSONValue) {
        guard let callID = ToolCallContent.callID(in: json) else { return nil }
        self.callID = callID
        self.status = json["status"]?.stringValue
        self.error = json["error"]?.stringValue
        self.output = json["output"]
        self.content = json["content"]?.arrayValue == nil ? nil : ToolCallContent.list(in: json)
        self.rawOutput = json["rawOutput"]
        self.title = json["title"]?.stringValue
        self.kind = json["kind"]?.stringValue
        self.arguments = json["rawInput"]
    }
}

/// One item of an ACP tool call's `content`, tagged by `type`.
public enum ToolCallContent: Sendable, Equatable {
    /// `{"type":"content","content":<content block>}`: text, an image, a resource.
    case content(ContentBlock)
    /// `{"type":"diff","path","oldText","newText"}`: a change to a file (no old text: a new file).
    case diff(FileDiff)
    /// `{"type":"terminal","terminalId"}`: output the client shows from a terminal.
    case terminal(id: String)
    /// An item of another type or shape, kept as it is.
    case unknown(JSONValue)

    init(_ item: JSONValue) {
        switch item["type"]?.stringValue {
        case "content":
            self = .content(ContentBlock(item["content"] ?? .null))
        case "diff":
            guard let path = item["path"]?.stringValue, let newText = item["newText"]?.stringValue else { self = .unknown(item); return }
            self = .diff(FileDiff(path: path, oldText: item["oldText"]?.stringValue, newText: newText))
        case "terminal":
            guard let id = item["terminalId"]?.stringValue else { self = .unknown(item); return }
            self = .terminal(id: id)
        default:
            self = .unknown(item)
        }
    }

    /// The items of `json["content"]` (none when it is not a list).
    static func list(in json: JSONValue) -> [ToolCallContent] {
        (json["content"]?.arrayValue ?? []).map(ToolCallContent.init)
    }

    /// The call's id in either encoding: `call_id`, ACP's `toolCallId`, or `id`.
    static func callID(in json: JSONValue) -> String? {
        json["call_id"]?.stringValue ?? json["toolCallId"]?.stringValue ?? json["id"]?.stringValue
    }

    /// The item as plain text, for search and for an output read as text: a block's text, the
    /// diff's new text, a terminal named.
    public var plainText: String {
        switch self {
        case .content(let block): block.plainText
        case .diff(let diff): diff.newText
        case .terminal(let id): "[terminal \(id)]"
        case .unknown(let json): UpdateSummary.strings(in: json).joined(separator: " ")
        }
    }
}

/// A change a tool made or proposes to one file, as ACP sends it: the texts before and after.
public struct FileDiff: Sendable, Equatable {
    public var path: String
    /// The file's text before; nil for a file the change creates.
    public var oldText: String?
    public var newText: String

    public init(path: String, oldText: String?, newText: String) {
        self.path = path
        self.oldText = oldText
        self.newText = newText
    }
}

/// A slash command the agent offers.
public struct AvailableCommand: Sendable, Equatable {
    public var name: String
    public var description: String?

    init?(_ json: JSONValue) {
        guard let name = json["name"]?.stringValue else { return nil }
        self.name = name
        self.description = json["description"]?.stringValue
    }
}
