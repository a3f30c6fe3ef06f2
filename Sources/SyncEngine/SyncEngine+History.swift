import Bridge
import Foundation
import MirrorStore

/// Which history a connection's bridge holds (protocol Part 2, version 2): a `seq` means something
/// only within its history, so every connection first finds the history it continues, or starts one.
extension SyncEngine {
    /// Finds the history of the bridge on `client`, or records a new one; notes the connection.
    ///
    /// - A bridge that names its history (`history_id`) continues the history of that id, wherever
    ///   it is reached and under whatever name.
    /// - One that names none continues the newest history of its desktop's name, unless its
    ///   history started again (`historyContinues`): then that history is marked gone from the
    ///   desktop, a new one starts from seq 0, and the user is told once.
    /// - What a mirror written before histories were kept apart holds is taken over by the first
    ///   bridge reached at its address, when that bridge's history agrees with its cursor (else it
    ///   is kept as that desktop's earlier history, gone from it).
    func resolveHistory(_ client: any BridgeConnection, _ link: BridgeLink) async throws -> HistoryKey {
        let capabilities = await client.capabilities
        let desktop = link.desktop
        let url = link.configuration.bridgeURL
        if let bridgeID = capabilities.historyID {
            if let known = try store.history(withID: bridgeID) {
                try store.noteConnected(known.key, desktop: desktop, bridgeURL: url)
                return known.key
            }
            if let unclaimed = try unclaimedHistory(reachedAt: url) {
                if try await historyContinues(from: unclaimed.cursor, client) {
                    _ = try store.claimHistory(unclaimed.key, identity: .bridge, historyID: bridgeID, desktop: desktop, bridgeURL: url)
                    try store.noteConnected(unclaimed.key, desktop: desktop, bridgeURL: url)
                    return unclaimed.key
                }
                try retire(unclaimed, desktop: desktop)
            }
            let created = try store.createHistory(identity: .bridge, historyID: bridgeID, desktop: desktop, bridgeURL: url)
            logger.info("a history new to this mirror", metadata: ["desktop": "\(desktop)", "history_id": "\(bridgeID)"])
            return created.key
        }
        var current = try store.currentHistory(ofDesktop: desktop)
        if current == nil, let unclaimed = try unclaimedHistory(reachedAt: url) {
            current = try store.claimHistory(unclaimed.key, identity: .mirror, historyID: Self.mirrorHistoryID(),
                                             desktop: desktop, bridgeURL: url)
        }
        if let history = current {
            guard capabilities.hasHistoryCursor, !(try await historyContinues(from: history.cursor, client)) else {
                try store.noteConnected(history.key, desktop: desktop, bridgeURL: url)
                return history.key
            }
            try retire(history, desktop: desktop)
        }
        return try store.createHistory(identity: .mirror, historyID: Self.mirrorHistoryID(), desktop: desktop, bridgeURL: url).key
    }

    /// The unclaimed history of a mirror written before histories were kept apart, if the bridge
    /// at `url` is the one it was synced with (or it does not say which).
    private func unclaimedHistory(reachedAt url: String) throws -> HistoryRecord? {
        guard let unclaimed = try store.unclaimedHistory(), unclaimed.bridgeURL == nil || unclaimed.bridgeURL == url else {
            return nil
        }
        return unclaimed
    }

    /// Marks `history` as no longer on its desktop (which started a new one), and says so once.
    private func retire(_ history: HistoryRecord, desktop: String) throws {
        if history.identity == .unclaimed {
            _ = try store.claimHistory(history.key, identity: .mirror, historyID: Self.mirrorHistoryID(), desktop: desktop,
                                       bridgeURL: history.bridgeURL)
        }
        try store.markHistoryGone(history.key)
        logger.notice("""
            the desktop's history started again (reinstalled, or its history wiped): the sessions mirrored from the earlier \
            one stay, marked gone from the desktop; the new history is mirrored from its start
            """,
                      metadata: ["desktop": "\(desktop)", "earlier_sessions": "\(history.sessionCount)", "earlier_cursor": "\(history.cursor)"])
        observer(desktop, .historyStartedAgain(desktop: desktop, earlierSessions: history.sessionCount))
    }

    /// Whether the bridge's history is the one a mirror cursor of `cursor` was kept for (protocol
    /// Part 2): it is not when the bridge lists a session this mirror has never seen whose
    /// `last_seq` is at or below the cursor (the mirror would hold it), or when it has nothing past
    /// the cursor and every session it lists ends below it, none of them known here.
    func historyContinues(from cursor: Int64, _ client: any BridgeConnection) async throws -> Bool {
        guard cursor > 0 else { return true }
        let listed = try await listSessions(client)
        for session in listed {
            guard let lastSeq = session.serverLastSeq, lastSeq > 0, lastSeq <= cursor else { continue }
            if try store.session(id: session.sessionID) == nil { return false }
        }
        let page = try await client.historyChanges(since: cursor, limit: 1, maxBytes: nil, timeout: nil)
        guard page.items.isEmpty && !page.hasMore && page.next <= cursor else { return true }
        for session in listed where (session.serverLastSeq ?? 0) > 0 {
            if (session.serverLastSeq ?? 0) >= cursor { return true }
            if try store.session(id: session.sessionID) != nil { return true }
        }
        return false
    }

    /// Every session a history-cursor bridge lists (`tinyvex/history.sessions`, page by page).
    func listSessions(_ client: any BridgeConnection) async throws -> [SessionRecord] {
        var records: [SessionRecord] = []
        var after: String?
        repeat {
            let page = try await client.historySessions(after: after, limit: 1000)
            records += page.items.map(EventMapping.sessionRecord)
            after = page.next
        } while after != nil
        return records
    }

    /// An id for a history whose bridge names none.
    static func mirrorHistoryID() -> String {
        "mirror:" + UUID().uuidString.lowercased()
    }
}
