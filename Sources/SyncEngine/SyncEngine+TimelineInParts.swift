import Bridge
import MirrorStore

/// A stock timeline over the message limit, mirrored in parts: its items are committed as they
/// arrive, in transactions bounded by bytes and events, never held whole.
extension SyncEngine {
    /// Merges a timeline read in parts (`MirrorStore.beginTimelineMerge`): items are committed in
    /// transactions of at most `eventsPerTransaction` events or about `bytesPerTransaction` bytes
    /// while the rest arrives; the merge ends, with `watermark`, once the last item came. When the
    /// answer breaks off (the connection lost, an item undecodable or over the limit), what came is
    /// committed and the error thrown: the session keeps its watermark, so it is fetched again.
    ///
    /// - Returns: what the merge did, and the mode the last mode-setting item sets.
    func mergeInParts(_ sessionID: String, _ parts: TimelineParts, fetchedAfterLiveEvents: Bool, watermark: SessionWatermark?,
                      _ link: BridgeLink) async throws -> (outcome: TailReplacement, mode: String?) {
        defer { parts.stop() }
        var merge = try store.beginTimelineMerge(sessionID: sessionID, history: machines[link.id].history,
                                                 fetchedAfterLiveEvents: fetchedAfterLiveEvents, indexing: indexing.mode(at: clock.now))
        var batch: [NewEvent] = []
        var bytes = 0
        var mode: String?
        func commit() throws {
            guard !batch.isEmpty else { return }
            try store.mergeTimelinePart(batch, into: &merge)
            batch.removeAll(keepingCapacity: true)
            bytes = 0
        }
        do {
            while true {
                let items = try await parts.next(upTo: 1024)
                guard !items.isEmpty else { break }
                for item in items {
                    mode = EventMapping.mode(of: item.update) ?? mode
                    let event = EventMapping.event(item)
                    bytes += event.updateJSON.count + event.text.utf8.count
                    batch.append(event)
                    if batch.count >= link.configuration.eventsPerTransaction || bytes >= link.configuration.bytesPerTransaction {
                        try commit()
                    }
                }
            }
        } catch {
            try commit()
            logger.info("a timeline read in parts broke off; what came is kept", metadata: [
                "session_id": "\(sessionID)", "events_merged": "\(merge.outcome.kept + merge.outcome.confirmed + merge.outcome.inserted)",
                "reason": "\(error)",
            ])
            throw error
        }
        try commit()
        return (try store.finishTimelineMerge(merge, watermark: watermark), mode)
    }
}
