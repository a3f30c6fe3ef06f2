import Bridge
import MirrorStore

/// Turns what the bridge sends into what the mirror stores: the update's exact bytes, its kind (the
/// tag as sent, so that a kind this version does not know is kept) and text as `UpdateSummary`
/// reads them, and a content hash.
///
/// Timeline items of a stock bridge are re-encoded on every fetch (any key order), so their hash
/// is taken over the canonical JSON; elsewhere the seq identifies an event, and the hash is of the
/// bytes received.
enum EventMapping {
    /// Packs history changes for the store (hashed as received, with their seqs), with the modes
    /// they set, after the events already in `batch`.
    static func append(_ changes: [HistoryChange], to batch: inout EventBatch) {
        for change in changes {
            let summary = change.update.summary
            batch.append(sessionID: change.sessionID, seq: change.seq, timestamp: change.ts, kind: summary.tag, text: summary.text,
                         updateJSON: change.update.rawBytes,
                         mode: summary.kind == .currentModeUpdate ? mode(of: change.update) : nil)
        }
    }

    static func event(_ item: TimelineItem) -> NewEvent {
        let summary = item.update.summary
        return NewEvent(sessionID: item.sessionID, kind: summary.tag, text: summary.text, updateJSON: item.update.rawBytes,
                        contentHash: ContentHash(of: item.update.canonicalBytes))
    }

    /// A live update: with a seq from a history-cursor bridge; provisional from a stock one (whose
    /// seq, should one come, is not the mirror's business), until the next timeline fetch confirms
    /// it (hashed like a fetched item, so that it can).
    static func event(_ notification: SessionUpdateNotification, fromHistoryCursorBridge: Bool) -> NewEvent {
        let summary = notification.update.summary
        let seq = fromHistoryCursorBridge ? notification.seq : nil
        let provisional = seq == nil
        return NewEvent(
            sessionID: notification.sessionID, seq: seq, timestamp: notification.ts, kind: summary.tag,
            text: summary.text, updateJSON: notification.update.rawBytes,
            contentHash: provisional ? ContentHash(of: notification.update.canonicalBytes) : nil,
            provisional: provisional
        )
    }

    /// The `session/update`s among `notifications`, packed for the store (as
    /// `event(_:fromHistoryCursorBridge:)` maps each), with the modes they set.
    static func batch(_ notifications: [BridgeNotification], fromHistoryCursorBridge: Bool) -> EventBatch {
        var batch = EventBatch(reservingRows: notifications.count)
        for notification in notifications {
            guard case .sessionUpdate(let update) = notification else { continue }
            let event = event(update, fromHistoryCursorBridge: fromHistoryCursorBridge)
            batch.append(event, mode: event.kind == UpdateKind.currentModeUpdate.rawValue ? mode(of: update.update) : nil)
        }
        return batch
    }

    static func sessionRecord(_ session: HistorySession) -> SessionRecord {
        SessionRecord(sessionID: session.sessionID, title: session.title, mode: session.mode, lastTS: session.lastTS,
                      serverEventCount: session.messageCount, serverLastSeq: session.lastSeq)
    }

    static func threadRecord(_ thread: ThreadItem) -> ThreadRecord {
        ThreadRecord(threadID: thread.id, title: thread.title, source: thread.source, createdAt: thread.createdAt,
                     updatedAt: thread.updatedAt, lastMessageTS: thread.lastMessageTS, messageCount: thread.messageCount,
                     itemJSON: thread.rawBytes)
    }

    /// The mode a `current_mode_update` sets, if the update is one.
    static func mode(of update: SessionUpdate) -> String? {
        if case .currentModeUpdate(let mode) = update.variant { return mode }
        return nil
    }
}
