import MirrorStore
import Secrets

/// Search snippets with their secrets redacted. A snippet is a few words of an event's text, cut
/// anywhere: a secret it holds only part of is found in the whole text and its part in the
/// snippet replaced by its tag too. A snippet with something redacted loses its highlighting
/// (the markers could stand inside a secret); the others keep it.
package enum SnippetRedaction {
    /// The fewest characters of a secret's start or end that are taken for a part of it.
    static let shortestPart = 6

    /// `hits` with their snippets redacted; themselves when `redactor` is nil.
    package static func redacted(_ hits: [SearchHit], markers: SnippetMarkers?, store: MirrorStore, by redactor: Redactor?) throws -> [SearchHit] {
        guard let redactor else { return hits }
        return try hits.map { hit in
            var hit = hit
            let event = try store.timeline(sessionID: hit.sessionID, range: TimelineRange(fromOrdinal: hit.ordinal, limit: 1)).first
            hit.snippet = redact(hit.snippet, markers: markers, eventText: event?.ordinal == hit.ordinal ? event?.text : nil, by: redactor)
            return hit
        }
    }

    /// `snippet` redacted, given the text of the event it comes from.
    static func redact(_ snippet: String, markers: SnippetMarkers?, eventText: String?, by redactor: Redactor) -> String {
        let plain = markers.map { snippet.replacing($0.start, with: "").replacing($0.end, with: "") } ?? snippet
        var text = plain
        let findings = eventText.map { redactor.detector.findings(in: $0) } ?? []
        let bytes = eventText.map { Array($0.utf8) } ?? []
        for finding in findings.sorted(by: { $0.utf8Range.count > $1.utf8Range.count }) {
            let value = String(decoding: bytes[finding.utf8Range], as: UTF8.self)
            let tag = redactor.tag(for: value, kind: finding.kind)
            if text.contains(value) {
                text = text.replacing(value, with: tag)
                continue
            }
            for length in stride(from: value.count - 1, through: shortestPart, by: -1) {
                let start = String(value.prefix(length)), end = String(value.suffix(length))
                if text.contains(start) { text = text.replacing(start, with: tag); break }
                if text.contains(end) { text = text.replacing(end, with: tag); break }
            }
        }
        text = redactor.redact(text)
        return text == plain ? snippet : text
    }
}
