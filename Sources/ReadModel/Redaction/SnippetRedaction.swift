import Foundation
import MirrorStore
import Secrets

/// Search snippets with their secrets redacted. A snippet is some words of an entry's text (a
/// message's chunks joined, or an event's text): a secret it holds only part of is found in the
/// entry's whole text and its part in the snippet replaced by its tag too. A snippet with
/// something redacted loses its highlighting (the markers could stand inside a secret); the
/// others keep it. Used by `MirrorViews` alone.
enum SnippetRedaction {
    /// The fewest characters of a secret's start or end that are taken for a part of it.
    static let shortestPart = 6
    /// What may stand between a part of a secret and the snippet's edge.
    private static let edge: Set<Character> = [" ", "\n", "\t", "…"]

    /// `hits` with their snippets redacted; themselves when `redactor` is nil.
    static func redacted(_ hits: [SearchHit], markers: SnippetMarkers?, store: MirrorStore, by redactor: Redactor?) throws -> [SearchHit] {
        guard let redactor else { return hits }
        return try hits.map { hit in
            var redacted = hit
            redacted.snippet = redact(hit.snippet, markers: markers, eventText: try store.entryText(entryID: hit.eventID), by: redactor)
            return redacted
        }
    }

    /// `snippet` redacted, given the text of the entry it comes from.
    static func redact(_ snippet: String, markers: SnippetMarkers?, eventText: String?, by redactor: Redactor) -> String {
        let plain = markers.map { snippet.replacing($0.start, with: "").replacing($0.end, with: "") } ?? snippet
        var text = plain
        let findings = eventText.map { redactor.detector.findings(in: $0) } ?? []
        let bytes = eventText.map { Array($0.utf8) } ?? []
        for finding in findings.sorted(by: { $0.utf8Range.count > $1.utf8Range.count }) {
            let value = String(decoding: bytes[finding.utf8Range], as: UTF8.self)
            if text.contains(value) {
                text = text.replacing(value, with: redactor.tag(for: value, kind: finding.kind))
                continue
            }
            // A part: the secret's start ending the snippet, or its end starting it.
            for length in stride(from: value.count - 1, through: shortestPart, by: -1) {
                if let range = text.range(of: String(value.prefix(length)), options: .backwards),
                   text[range.upperBound...].allSatisfy(edge.contains) {
                    text.replaceSubrange(range, with: redactor.tag(for: value, kind: finding.kind))
                    break
                }
                if let range = text.range(of: String(value.suffix(length))), text[..<range.lowerBound].allSatisfy(edge.contains) {
                    text.replaceSubrange(range, with: redactor.tag(for: value, kind: finding.kind))
                    break
                }
            }
        }
        text = redactor.redact(text)
        return text == plain ? snippet : text
    }
}
