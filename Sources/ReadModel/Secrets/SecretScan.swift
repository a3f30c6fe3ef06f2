import Bridge
import MirrorStore
import Secrets

/// Finds the secrets of the events the mirror has not yet scanned (those after the watermark, or
/// every event when the rules changed) and keeps their findings, a batch of events at a time:
/// the `secrets` report is then as fast as a query. Each event's update is scanned string by
/// string, its escapes decoded; the chunks of one message within a batch are scanned as their
/// merged text instead, a finding there kept for the chunk where it starts. A secret split across
/// chunks that fall in two batches may be missed by the report (the views still redact it).
enum SecretScan {
    static let batchSize = 2000
    /// The kinds of the chunks of a streamed message.
    static let chunkKinds = Set([UpdateKind.userMessageChunk, .agentMessageChunk, .agentThoughtChunk].map(\.rawValue))

    /// Brings the findings of `store` up to date with `detector`'s rules.
    static func update(store: MirrorStore, detector: SecretDetector) throws {
        let state = try store.secretScanState()
        var watermark = state?.rulesDigest == detector.rulesDigest ? state?.scannedThrough ?? 0 : 0
        if state != nil, watermark == 0 { try store.recordSecretScan([], through: 0, rulesDigest: detector.rulesDigest) }
        while true {
            let events = try store.events(afterEventID: watermark, limit: batchSize)
            guard let last = events.last else { break }
            try store.recordSecretScan(findings(in: events, detector: detector), through: last.eventID, rulesDigest: detector.rulesDigest)
            watermark = last.eventID
        }
    }

    /// The findings of a batch of events.
    static func findings(in events: [TimelineEvent], detector: SecretDetector) -> [SecretFindingRecord] {
        var found = Set<SecretFindingRecord>()
        var run: [(eventID: Int64, text: String)] = []
        var runKey: (session: String, kind: String)?
        func flush() {
            defer { run = [] }
            guard !run.isEmpty else { return }
            let whole = run.map(\.text).joined()
            var starts: [(offset: Int, eventID: Int64)] = []
            var offset = 0
            for piece in run {
                starts.append((offset, piece.eventID))
                offset += piece.text.utf8.count
            }
            for finding in detector.findings(in: whole) {
                let owner = starts.last { $0.offset <= finding.utf8Range.lowerBound }?.eventID ?? run[0].eventID
                found.insert(SecretFindingRecord(eventID: owner, kind: finding.kind, fingerprint: finding.fingerprint.text))
            }
        }
        for event in events {
            // A chunk is scanned as part of its message's merged text only: alone, the part of
            // a secret it holds could be found as another secret. Its text is its stored text.
            if chunkKinds.contains(event.kind) {
                if let key = runKey, key.session != event.sessionID || key.kind != event.kind { flush() }
                runKey = (event.sessionID, event.kind)
                run.append((event.eventID, event.text))
                continue
            }
            flush()
            runKey = nil
            // Most events hold no rule's keyword: their update is not even parsed. One with a
            // \u escape is, since the escape could spell a keyword.
            let raw = String(decoding: event.updateJSON, as: UTF8.self)
            let scanned = detector.mayHoldSecrets(raw) || raw.contains("\\u") ? strings(of: event) : []
            for text in scanned {
                for finding in detector.findings(in: text) {
                    found.insert(SecretFindingRecord(eventID: event.eventID, kind: finding.kind, fingerprint: finding.fingerprint.text))
                }
            }
        }
        flush()
        return found.sorted { ($0.eventID, $0.fingerprint) < ($1.eventID, $1.fingerprint) }
    }

    /// The strings of an event's update (its text when the update is not JSON).
    private static func strings(of event: TimelineEvent) -> [String] {
        guard let value = try? JSONParser.parse(event.updateJSON) else { return [event.text] }
        var strings: [String] = []
        func collect(_ value: JSONValue) {
            switch value.kind {
            case .string(let string): strings.append(string)
            case .array(let elements): elements.forEach(collect)
            case .object(let members): members.forEach { collect($0.value) }
            default: break
            }
        }
        collect(value)
        return strings
    }
}
