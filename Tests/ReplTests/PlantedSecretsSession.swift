import Bridge
import Foundation
import MirrorStore
import TestSupport

/// A mirror holding one session full of planted secrets (`PlantedSecrets`): in its title, in a
/// user message, in a tool call's arguments and output (JSON strings with escapes), in thinking,
/// and in an assistant message streamed so that each secret is split across two chunks.
enum PlantedSecretsSession {
    static let sessionID = "5EC2E7A1-0024-4C5D-8E9F-00000000AB24"

    static var secrets: [PlantedSecret] { PlantedSecrets.all }

    /// What must never show unless asked: each value, and each half of it (a chunk holds one).
    static func leaks(in text: String) -> [String] {
        secrets.flatMap { secret -> [String] in
            let half = secret.value.count / 2
            let parts = [secret.value, String(secret.value.prefix(half)), String(secret.value.suffix(secret.value.count - half))]
            return parts.contains(where: text.contains) ? [secret.kind] : []
        }
    }

    static func mirror(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("secrets.sqlite")
        let store = try MirrorStore(path: path)
        let aws = secrets[0].value
        try store.upsertSessions([SessionRecord(sessionID: sessionID, title: "Rotate the leaked key \(aws)", mode: "claude-code",
                                                lastTS: 1_730_000_100_000)])
        var time: Int64 = 1_730_000_000_000
        var events: [NewEvent] = []
        func add(_ json: JSONValue, kind: String, text: String = "") {
            time += 1_000
            events.append(NewEvent(sessionID: sessionID, timestamp: time, kind: kind, text: text, updateJSON: JSONWriter.bytes(of: json)))
        }
        func chunk(_ kind: String, _ text: String) {
            add(["sessionUpdate": .string(kind), "content": ["content": ["type": "text", "text": .string(text)]]], kind: kind, text: text)
        }
        let lines = secrets.map(\.line).joined(separator: "\n")
        chunk("user_message_chunk", "These leaked, please rotate them:\n" + lines)
        chunk("agent_thought_chunk", "The deploy key is in the output:\n" + secrets[10].line)
        let github = secrets[1].value
        add(["sessionUpdate": "tool_call", "tool_call": ["call_id": "call-1", "name": "Bash",
                                                         "arguments": ["command": .string("curl -H \"Authorization: token \(github)\" https://api.github.com/user"),
                                                                       "env": ["NPM_TOKEN": .string(secrets[8].value)]]]],
            kind: "tool_call")
        add(["sessionUpdate": "tool_call_update", "tool_call_update": ["call_id": "call-1", "status": "completed",
                                                                       "output": ["stdout": .string("$ env\n" + lines + "\n")]]],
            kind: "tool_call_update")
        // Each secret split in its middle across two chunks of one streamed message.
        for secret in secrets {
            let line = secret.line
            let start = line.range(of: secret.value)?.lowerBound ?? line.startIndex
            let cut = line.index(start, offsetBy: secret.value.count / 2)
            chunk("agent_message_chunk", "Found " + String(line[..<cut]))
            chunk("agent_message_chunk", String(line[cut...]) + "\n")
        }
        try store.appendEvents(events)
        return path
    }
}
