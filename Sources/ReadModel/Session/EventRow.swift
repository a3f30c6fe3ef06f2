import Bridge
import MirrorStore

/// A stored event as `sessions.show` with `raw` answers it (`docs/cli.md`): its update as the
/// JSON it is (as text when it is not JSON).
public struct EventRow: Sendable, Encodable {
    public var eventID: Int64
    public var sessionID: String
    public var ordinal: Int64
    public var seq: Int64?
    public var time: Timestamp?
    public var ts: Int64?
    public var kind: String
    public var text: String
    public var origin: String
    public var provisional: Bool
    public var goneFromDesktopAt: Timestamp?
    public var update: JSONValue

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id", sessionID = "session_id", ordinal, seq, time, ts, kind, text, origin, provisional
        case goneFromDesktopAt = "gone_from_desktop_at", update
    }

    public init(_ event: TimelineEvent) {
        eventID = event.eventID
        sessionID = event.sessionID
        ordinal = event.ordinal
        seq = event.seq
        time = Timestamp(milliseconds: event.timestamp)
        ts = event.timestamp
        kind = event.kind
        text = event.text
        origin = event.origin.rawValue
        provisional = event.provisional
        goneFromDesktopAt = Timestamp(milliseconds: event.goneAt)
        update = (try? JSONParser.parse(event.updateJSON)).map { JSONValue($0.kind) } ?? .string(String(decoding: event.updateJSON, as: UTF8.self))
    }

    /// The row as JSON (`JSONValueEncoder`), for answers built around it (a feed's notification).
    public var json: JSONValue {
        do {
            return try JSONValueEncoder().encode(self)
        } catch {
            // The encoder refuses only a floating-point value that is not finite, and a row holds
            // none: its update is kept as the JSON it is.
            preconditionFailure("an event row could not be encoded: \(error)")
        }
    }
}
