@testable import Bridge
import Foundation
import MirrorStore
import SyncEngine
import TestSupport
import Testing

/// The sync engine against a bridge scripted in this process, through the `BridgeConnection`
/// protocol: no socket, no simulator, every step under the test's control.
@Suite("Sync engine in-process")
struct InProcessEngineTests {
    @Test("catch-up, then a live burst through a small buffer: the bound holds, nothing is lost, order is kept")
    func burstThroughSmallBuffer() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let bridge = ScriptedBridge(notificationLimit: 8)
        for index in 0..<2_000 { await bridge.store(session: "S\(index % 3)", text: "history \(index)") }
        let engine = try SyncEngine(
            mirrorPath: mirror,
            configuration: SyncConfiguration(bridgeURL: "scripted:", changesPageSize: 300, eventsPerTransaction: 700,
                                             outboxPollInterval: .milliseconds(20), liveBatchLimit: 64),
            connector: ScriptedConnector(bridge: bridge)
        )
        let reader = try MirrorStore(path: mirror, mode: .readOnly)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            let caughtUp = try await eventually { try reader.historyCursor() == 2_000 }
            #expect(caughtUp)

            // A burst far larger than the buffer: each send waits while 8 are waiting.
            var mostWaiting = 0
            for index in 0..<5_000 {
                let change = await bridge.store(session: "S\(index % 3)", text: "live \(index)")
                #expect(await bridge.notifications.send(.sessionUpdate(change.notification)))
                mostWaiting = max(mostWaiting, bridge.notifications.count)
            }
            #expect(mostWaiting <= 8)

            // A lost notification: the next one's seq shows the gap, and the engine pages over it.
            _ = await bridge.store(session: "S0", text: "never announced")
            let announced = await bridge.store(session: "S0", text: "announced after a gap")
            #expect(await bridge.notifications.send(.sessionUpdate(announced.notification)))
            let pagedOverTheGap = try await eventually { try reader.historyCursor() == 7_002 }
            #expect(pagedOverTheGap)
            #expect(await bridge.changesAskedSince.contains(7_000))
            // Indexing for search, put off during the burst, catches up once it is over.
            let indexed = try await eventually { try reader.searchIndexedUpTo() == 7_002 }
            #expect(indexed)
            group.cancelAll()
        }
        await engine.finish()

        let mirrored = try reader.database.query(
            "SELECT e.seq, s.session_id, e.update_json FROM events e JOIN sessions s USING (session_no) ORDER BY e.seq"
        ) { ($0.int64(0), $0.string(1), $0.bytes(2)) }
        let history = await bridge.history
        #expect(mirrored.count == history.count)
        #expect(mirrored.map(\.0) == history.map(\.seq), "each event once, in the bridge's order")
        #expect(mirrored.map(\.1) == history.map(\.sessionID))
        #expect(mirrored.map(\.2) == history.map(\.update.rawBytes))
        #expect(try reader.search("announced").count == 2, "live events are searchable")
    }
}

/// A history-cursor bridge held in memory. The test stores events and sends their notifications.
actor ScriptedBridge: BridgeConnection {
    nonisolated let notifications: BoundedBuffer<BridgeNotification>
    private(set) var history: [HistoryChange] = []
    /// The `since` of every `history.changes` asked for.
    private(set) var changesAskedSince: [Int64] = []
    private var closed = false

    init(notificationLimit: Int) {
        notifications = BoundedBuffer(elementLimit: notificationLimit)
    }

    var capabilities: BridgeCapabilities { BridgeCapabilities(protocolVersion: "0.2.2", historyCursor: 1, pipelining: true) }
    var closeError: BridgeError? { closed ? .connectionClosed(reason: "closed by the test") : nil }

    /// Stores an agent message chunk with the next seq.
    @discardableResult
    func store(session: String, text: String) -> HistoryChange {
        let json = #"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"\#(text)"}}}"#
        let seq = Int64(history.count + 1)
        let change = HistoryChange(seq: seq, sessionID: session, ts: 1_731_000_000_000 + seq, update: SessionUpdate(rawBytes: Array(json.utf8)))
        history.append(change)
        return change
    }

    func historyChanges(since: Int64, limit: Int, timeout: Duration?) -> HistoryChangesPage {
        changesAskedSince.append(since)
        let items = Array(history.drop { $0.seq <= since }.prefix(limit))
        return HistoryChangesPage(items: items, next: items.last?.seq ?? since, hasMore: (items.last?.seq ?? since) < history.count)
    }

    func historySessions(after cursor: String?, limit: Int) -> HistorySessionsPage {
        let sessions = Dictionary(grouping: history, by: \.sessionID).map { id, changes in
            HistorySession(sessionID: id, lastTS: changes.last?.ts, messageCount: Int64(changes.count), lastSeq: changes.last?.seq,
                           title: nil, mode: nil)
        }
        return HistorySessionsPage(items: sessions.sorted { $0.sessionID < $1.sessionID }, next: nil)
    }

    func recentSessions() -> [RecentSession] { [] }
    func sessionTimeline(sessionID: String, limit: Int?, timeout: Duration?) -> [TimelineItem] { [] }
    func threads(topK: Int?) -> [ThreadItem] { [] }

    func newSession() throws -> String {
        throw BridgeError.server(method: BridgeMethod.sessionNew, error: JSONRPCError(code: -32601, message: "not scripted"))
    }

    func prompt(sessionID: String, text: String, clientMessageID: String?) throws -> PromptAccepted {
        throw BridgeError.server(method: BridgeMethod.sessionPrompt, error: JSONRPCError(code: -32601, message: "not scripted"))
    }

    func close() {
        closed = true
        notifications.finish()
    }
}

/// Hands the engine the scripted bridge on every attempt, and closes it when the attempt's scope ends.
struct ScriptedConnector: BridgeConnector {
    let bridge: ScriptedBridge

    func withConnection<T: Sendable>(
        isRetry: Bool,
        pin: CertificatePin?,
        onOpen: @Sendable () async -> Void,
        _ body: @Sendable (any BridgeConnection) async throws -> T
    ) async throws -> T {
        await onOpen()
        do {
            let result = try await body(bridge)
            await bridge.close()
            return result
        } catch {
            await bridge.close()
            throw error
        }
    }
}

extension HistoryChange {
    /// The `session/update` a history-cursor bridge sends for this change.
    var notification: SessionUpdateNotification {
        SessionUpdateNotification(sessionID: sessionID, update: update, seq: seq, ts: ts)
    }
}
