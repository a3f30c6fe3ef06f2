import Bridge
import Secrets

/// Secrets redacted inside JSON: in each string (a key's value, an array's element) once its
/// escapes are decoded, so that a secret written with `\/` or `\u0041` is found, and the result
/// is JSON still.
enum JSONRedaction {
    /// `value` with each string redacted; `pieces` replaces strings equal to one of its keys (the
    /// chunks of a streamed message, redacted as parts of their whole) before that.
    static func redact(_ value: JSONValue, by redactor: Redactor, pieces: [String: String] = [:]) -> JSONValue {
        switch value.kind {
        case .string(let string):
            return .string(redactor.redact(pieces[string] ?? string))
        case .array(let elements):
            return .array(elements.map { redact($0, by: redactor, pieces: pieces) })
        case .object(let members):
            return .object(members.map { JSONMember($0.key, redact($0.value, by: redactor, pieces: pieces)) })
        default:
            return value
        }
    }

    /// JSON text with its strings redacted, compact; text that is not JSON redacted as text.
    static func redact(jsonText: String, by redactor: Redactor) -> String {
        guard let value = try? JSONParser.parse(jsonText) else { return redactor.redact(jsonText) }
        let redacted = redact(value, by: redactor)
        return redacted == value ? jsonText : String(decoding: JSONWriter.bytes(of: redacted), as: UTF8.self)
    }

    /// A stored update with its strings redacted: the same bytes when nothing changed.
    static func redact(update bytes: [UInt8], by redactor: Redactor, pieces: [String: String] = [:]) -> [UInt8] {
        guard let value = try? JSONParser.parse(bytes) else { return Array(redactor.redact(String(decoding: bytes, as: UTF8.self)).utf8) }
        let redacted = redact(value, by: redactor, pieces: pieces)
        return redacted == value ? bytes : JSONWriter.bytes(of: redacted)
    }
}
