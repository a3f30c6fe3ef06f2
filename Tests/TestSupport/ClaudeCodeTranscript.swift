import Bridge
import Foundation
import ToolSupport

/// A real Claude Code session (`../shared/corpora/real-transcripts/claude-code/`, Claude Code's own
/// JSONL) served as a desktop would send it: prompts, replies and thinking streamed in pieces of
/// 2–12 characters cut anywhere, each `tool_use` a tool call, each `tool_result` its outcome, in
/// either encoding of updates. It also says what a reader must find: every text and output.
public struct ClaudeCodeTranscript: Sendable {
    /// How the updates are spelled.
    public enum Encoding: String, Sendable, CaseIterable {
        /// The desktop's own: `content.content`, `tool_call: {call_id, name, arguments}`,
        /// `tool_call_update: {call_id, status, output}`.
        case desktop
        /// The standard Agent Client Protocol schema: flat, camelCase, `toolCallId`, `rawInput`,
        /// `content` as a list of blocks.
        case acp
    }

    /// One piece of the session, in order.
    public enum Part: Sendable, Equatable {
        case user(String)
        case assistant(String)
        case thinking(String)
        case toolCall(id: String, name: String, input: JSONValue)
        /// A tool's result: its text blocks joined by line feeds.
        case toolResult(id: String, output: String, failed: Bool)
        /// The title Claude Code gave the session (its `summary` records), sent as ACP's
        /// `session_info_update`.
        case title(String)
    }

    public let name: String
    public let parts: [Part]

    /// The transcripts of the corpus, by file name; empty where `../shared` is absent.
    public static func corpus() throws -> [ClaudeCodeTranscript] {
        let directory = Repository.sharedCorpora.appending(path: "real-transcripts/claude-code")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return try names.filter { $0.hasSuffix(".jsonl") }.sorted().map { name in
            try ClaudeCodeTranscript(name: name, jsonLines: Data(contentsOf: directory.appending(path: name)))
        }
    }

    /// Whether the corpus is there to read.
    public static var corpusIsPresent: Bool {
        FileManager.default.fileExists(atPath: Repository.sharedCorpora.appending(path: "real-transcripts/claude-code").path)
    }

    /// Reads Claude Code's records: `message.content` as a string or as blocks of text, thinking,
    /// tool_use and tool_result; a summary, as the session's title; other records (queue
    /// operations) say nothing here.
    public init(name: String, jsonLines: Data) throws {
        self.name = name
        var parts: [Part] = []
        for line in jsonLines.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            let record = try JSONParser.parse(Array(line))
            if record["type"]?.stringValue == "summary", let title = record["summary"]?.stringValue, !title.isEmpty {
                parts.append(.title(title))
                continue
            }
            guard let role = record["type"]?.stringValue, role == "user" || role == "assistant",
                  let content = record["message"]?["content"] else { continue }
            if let text = content.stringValue {
                if !text.isEmpty { parts.append(role == "user" ? .user(text) : .assistant(text)) }
                continue
            }
            for block in content.arrayValue ?? [] {
                switch block["type"]?.stringValue {
                case "text":
                    guard let text = block["text"]?.stringValue, !text.isEmpty else { continue }
                    parts.append(role == "user" ? .user(text) : .assistant(text))
                case "thinking":
                    guard let text = block["thinking"]?.stringValue, !text.isEmpty else { continue }
                    parts.append(.thinking(text))
                case "tool_use":
                    guard let id = block["id"]?.stringValue else { continue }
                    parts.append(.toolCall(id: id, name: block["name"]?.stringValue ?? "tool", input: block["input"] ?? .null))
                case "tool_result":
                    guard let id = block["tool_use_id"]?.stringValue else { continue }
                    let output = block["content"]?.stringValue
                        ?? (block["content"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }.joined(separator: "\n")
                    parts.append(.toolResult(id: id, output: output, failed: block["is_error"]?.boolValue ?? false))
                default:
                    continue
                }
            }
        }
        self.parts = parts
    }

    /// The session's updates as JSON objects, texts streamed in pieces cut at random (`seed`).
    public func updates(_ encoding: Encoding, seed: UInt64 = 31) -> [JSONValue] {
        var random = SplitMix64(seed: seed)
        return parts.flatMap { part -> [JSONValue] in
            switch part {
            case .user(let text): Self.pieces(of: text, using: &random).map { Self.chunk("user_message_chunk", $0, encoding) }
            case .assistant(let text): Self.pieces(of: text, using: &random).map { Self.chunk("agent_message_chunk", $0, encoding) }
            case .thinking(let text): Self.pieces(of: text, using: &random).map { Self.chunk("agent_thought_chunk", $0, encoding) }
            case .toolCall(let id, let name, let input): [Self.toolCall(id: id, name: name, input: input, encoding)]
            case .toolResult(let id, let output, let failed): [Self.toolResult(id: id, output: output, failed: failed, encoding)]
            case .title(let title): [["sessionUpdate": "session_info_update", "title": .string(title)]]
            }
        }
    }

    /// `text` cut into pieces of 2–12 Unicode scalars, anywhere (inside words, fences, grapheme
    /// clusters), as a model's text deltas come.
    public static func pieces(of text: String, using random: inout SplitMix64) -> [String] {
        var pieces: [String] = []
        var scalars = Substring(text).unicodeScalars[...]
        while !scalars.isEmpty {
            let length = Int.random(in: 2...12, using: &random)
            pieces.append(String(String.UnicodeScalarView(scalars.prefix(length))))
            scalars = scalars.dropFirst(length)
        }
        return pieces
    }

    private static func chunk(_ tag: String, _ text: String, _ encoding: Encoding) -> JSONValue {
        let block: JSONValue = ["type": "text", "text": .string(text)]
        return ["sessionUpdate": .string(tag), "content": encoding == .acp ? block : ["content": block]]
    }

    private static func toolCall(id: String, name: String, input: JSONValue, _ encoding: Encoding) -> JSONValue {
        switch encoding {
        case .desktop:
            return ["sessionUpdate": "tool_call", "tool_call": ["call_id": .string(id), "name": .string(name), "arguments": input]]
        case .acp:
            return ["sessionUpdate": "tool_call", "toolCallId": .string(id), "title": .string(name), "kind": .string(kind(of: name)),
                    "status": "pending", "rawInput": input]
        }
    }

    private static func toolResult(id: String, output: String, failed: Bool, _ encoding: Encoding) -> JSONValue {
        switch encoding {
        case .desktop:
            return ["sessionUpdate": "tool_call_update",
                    "tool_call_update": ["call_id": .string(id), "status": failed ? "error" : "completed", "output": ["stdout": .string(output)]]]
        case .acp:
            return ["sessionUpdate": "tool_call_update", "toolCallId": .string(id), "status": failed ? "failed" : "completed",
                    "content": [["type": "content", "content": ["type": "text", "text": .string(output)]]]]
        }
    }

    /// ACP's tool kind for Claude Code's tool names, as its adapters map them.
    private static func kind(of name: String) -> String {
        switch name {
        case "Read", "NotebookRead": "read"
        case "Edit", "MultiEdit", "Write", "NotebookEdit": "edit"
        case "Grep", "Glob", "LS": "search"
        case "Bash", "BashOutput", "KillShell": "execute"
        case "WebFetch", "WebSearch": "fetch"
        case "Task", "TodoWrite", "ExitPlanMode": "think"
        default: "other"
        }
    }
}
