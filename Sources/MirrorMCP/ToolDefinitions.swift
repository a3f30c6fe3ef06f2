import MCP

/// The tools, as `tools/list` describes them to a model: what each is for, when to use it, and
/// its arguments' JSON schema.
enum ToolDefinitions {
    static let searchSessions = Tool(
        name: "search_sessions",
        description: """
            Full-text search over every mirrored coding-agent session: the user's prompts, the agent's replies and \
            thinking, tool calls (and, when asked, their output). A hit is a whole message (its streamed pieces joined) \
            or a tool call, plan or other update; the same text restated (a plan at each update) is one hit that says how \
            often it recurs. Returns the best hits, most relevant first, each with its session (short and full id, \
            title), its ordinals in the session (first and last), kind, time, and a snippet of whole words with the \
            matched words in [brackets]. Every word must occur (any order, any case); "a phrase" in quotes, OR between \
            alternatives, -word to exclude one, parentheses to group, * at a word's end for a prefix, and in:user, \
            in:assistant, in:thinking, in:tool or in:output to look only there (tool output is searched only with \
            in:output); since:2024-11-07 and until:… narrow it to a time. Any text is a valid query. \
            To read a hit in context, call read_session with its session_id and at set to its ordinal.
            """,
        inputSchema: schema(
            properties: [
                "query": ["type": "string", "description": "What to look for, e.g. \"flaky reconnect\", \"\\\"backoff with jitter\\\" -test\", \"pars* in:assistant\"."],
                "limit": ["type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many hits (default 10)."],
                "session_id": ["type": "string", "description": "Only search this session: its full id or a unique prefix (from list_sessions)."],
            ],
            required: ["query"]
        ),
        annotations: .init(title: "Search sessions", readOnlyHint: true, openWorldHint: false)
    )

    static let listSessions = Tool(
        name: "list_sessions",
        description: """
            Lists the mirrored coding-agent sessions, most recent activity first: id (short and full), title (or the \
            first prompt when untitled), agent mode, last activity time and number of events. With query, only the \
            sessions whose title contains it or whose events match it as a search_sessions query. Page with offset.
            """,
        inputSchema: schema(
            properties: [
                "limit": ["type": "integer", "minimum": 1, "maximum": 200, "description": "At most this many sessions (default 20)."],
                "offset": ["type": "integer", "minimum": 0, "description": "Skip this many first (default 0)."],
                "query": ["type": "string", "description": "Only sessions whose title contains this, or whose events match these words."],
            ],
            required: []
        ),
        annotations: .init(title: "List sessions", readOnlyHint: true, openWorldHint: false)
    )

    static let readSession = Tool(
        name: "read_session",
        description: """
            Reads a session's conversation as Markdown: user and assistant messages, thinking, plans, tool calls with \
            their arguments and output. Without at, from the start; with at (an ordinal from search_sessions), from \
            context entries before the one holding that event. The text stops near max_chars and then says how to \
            read on (call again with the at it gives); a long session is read in parts, never whole.
            """,
        inputSchema: schema(
            properties: [
                "session_id": ["type": "string", "description": "The session: its full id or a unique prefix (8 characters usually suffice)."],
                "at": ["type": "integer", "minimum": 0, "description": "Start around the event with this ordinal (a search hit's ordinal)."],
                "context": ["type": "integer", "minimum": 0, "maximum": 50,
                            "description": "With at: how many entries (messages, tool calls) before the event's entry to include (default 3)."],
                "max_chars": ["type": "integer", "minimum": 1000, "maximum": 200_000,
                              "description": "Stop near this many characters (default 20000)."],
            ],
            required: ["session_id"]
        ),
        annotations: .init(title: "Read a session", readOnlyHint: true, openWorldHint: false)
    )

    static let enqueuePrompt = Tool(
        name: "enqueue_prompt",
        description: """
            Queues a prompt for the coding agent: in an existing session (its id or a unique prefix), or in a new \
            session with session_id "new". It is delivered by oa-sync when the desktop is reachable (works offline); \
            returns the queued prompt's id and state. Only use it when the user asked for this text to be sent to the agent.
            """,
        inputSchema: schema(
            properties: [
                "session_id": ["type": "string", "description": "The session's full id or a unique prefix, or \"new\" for a new session."],
                "text": ["type": "string", "description": "The prompt, exactly as the agent should receive it."],
            ],
            required: ["session_id", "text"]
        ),
        annotations: .init(title: "Queue a prompt", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true)
    )

    /// The tools listed: `enqueue_prompt` only when prompts are allowed.
    static func all(allowingPrompts: Bool) -> [Tool] {
        [searchSessions, listSessions, readSession] + (allowingPrompts ? [enqueuePrompt] : [])
    }

    private static func schema(properties: [String: Value], required: [String]) -> Value {
        ["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }), "additionalProperties": false]
    }
}
