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

/// A tool the agent called.
public struct ToolCall: Sendable, Equatable {
    public var callID: String
    public var name: String
    /// The call's arguments as sent (any JSON).
    public var arguments: JSONValue?

    init?(_ json: JSONValue) {
        guard let callID = json["call_id"]?.stringValue ?? json["id"]?.stringValue else { return nil }
        self.callID = callID
        self.name = json["name"]?.stringValue ?? json["title"]?.stringValue ?? "tool"
        self.arguments = json["arguments"]
    }
}

/// The progress or outcome of a tool call.
public struct ToolCallUpdate: Sendable, Equatable {
    public var callID: String
    /// `started`, `completed` or `error`.
    public var status: String?
    /// The error, when the bridge sent it as a string.
    public var error: String?
    /// The call's output as sent (any JSON).
    public var output: JSONValue?

    init?(_ json: JSONValue) {
        guard let callID = json["call_id"]?.stringValue ?? json["id"]?.stringValue else { return nil }
        self.callID = callID
        self.status = json["status"]?.stringValue
        self.error = json["error"]?.stringValue
        self.output = json["output"]
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
