import Bridge
import ToolSupport

/// The stock desktop bridge's encoding habits.
enum StockEncoding {
    /// The id the stock bridge echoes: a string that looks like an integer comes back as a number
    /// (`"42"` → `42`, `"007"` → `7`); any other non-string, non-integer id comes back as `1`.
    static func echoedID(_ id: JSONValue) -> JSONValue {
        switch id.kind {
        case .string(let string):
            if let integer = Int64(string) { return .number(integer) }
            return id
        case .number:
            return id.int64Value.map { .number($0) } ?? .number(1)
        default:
            return .number(1)
        }
    }

    /// True when the stock server can still decode this stored update into its types; rows it
    /// cannot decode (older shapes) are silently left out of timelines.
    static func isDecodable(_ update: JSONValue) -> Bool {
        guard let tag = update["sessionUpdate"]?.stringValue else { return false }
        switch UpdateKind(tag: tag) {
        case .userMessageChunk, .agentMessageChunk, .agentThoughtChunk:
            guard let block = update["content"]?["content"], let type = block["type"]?.stringValue else { return false }
            switch type {
            case "text": return block["text"]?.stringValue != nil
            case "image", "audio": return block["data"]?.stringValue != nil && block["mimeType"]?.stringValue != nil
            case "resource_link": return block["uri"]?.stringValue != nil
            case "resource": return block["resource"] != nil
            default: return false
            }
        case .plan:
            return update[UpdateKind.plan.rawValue]?["entries"]?.arrayValue != nil
        case .toolCall:
            return update[UpdateKind.toolCall.rawValue]?["call_id"]?.stringValue != nil
        case .toolCallUpdate:
            return update[UpdateKind.toolCallUpdate.rawValue]?["call_id"]?.stringValue != nil
        case .availableCommandsUpdate:
            return update["available_commands"]?.arrayValue != nil
        case .currentModeUpdate:
            return update["current_mode_id"]?.stringValue != nil
        case .sessionInfoUpdate, .unknown:
            // The stock desktop's types have no session information.
            return false
        }
    }

    /// Re-encodes a value as the desktop's JSONEncoder does: same content, keys in an order that
    /// differs from one encoding to the next.
    static func reencoded(_ value: JSONValue, using random: inout SplitMix64) -> JSONValue {
        switch value.kind {
        case .object(let members):
            return .object(members.map { JSONMember($0.key, reencoded($0.value, using: &random)) }.shuffled(using: &random))
        case .array(let elements):
            return .array(elements.map { reencoded($0, using: &random) })
        default:
            return JSONValue(value.kind)
        }
    }
}
