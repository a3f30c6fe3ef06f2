import MirrorStore
import Secrets

/// Redaction for live feeds (`follow`, `events.subscribe`): the events of each batch the feed
/// hands over are redacted together (`EventRedaction`), so a secret split across chunks committed
/// together is caught; tags are numbered per batch. What it does not promise: a secret whose
/// chunks are committed in different batches shows as parts, each too short to be recognised
/// (`show` and the exports, which merge the whole message, redact it).
public struct FeedRedaction: Sendable {
    /// The detector, or nil when nothing is redacted.
    let detector: SecretDetector?

    /// The redaction `policy` asks for.
    public init(_ policy: RedactionPolicy) {
        detector = switch policy {
        case .redacted(let detector): detector
        case .none: nil
        }
    }

    /// `items` with their events redacted.
    public func redacted(_ items: [FeedItem]) -> [FeedItem] {
        guard let detector else { return items }
        let events = items.compactMap { item in if case .appended(let event) = item { event } else { nil } }
        var redacted = EventRedaction.redacted(events, by: Redactor(detector: detector)).makeIterator()
        return items.map { item in
            guard case .appended = item, let event = redacted.next() else { return item }
            return .appended(event)
        }
    }
}
