import Bridge
import Foundation
import Primitives
import Synchronization

/// A desktop bridge held in memory, for the sync engine's in-process tests: no socket, no
/// simulator, every step under the test's control. It keeps a history (with seqs, and a history
/// id for version 2 of the history-cursor extension), speaks the stock flavour or the cursor one,
/// records the prompts it receives, and can forget (prune, delete a session), be reinstalled
/// (a new history, seqs from 1 again) and drop its connections. Each connection the engine opens
/// (`ScriptedConnector`) has its own bounded notification buffer, to which the desktop announces
/// what it stores.
public actor ScriptedDesktop {
    /// What the desktop speaks.
    public enum Flavor: Sendable, Equatable {
        /// The stock bridge: recent sessions and whole timelines, no seq.
        case stock
        /// The history-cursor extension of this version (2 names the history).
        case cursor(version: Int)
    }

    /// One stored event.
    public struct Event: Sendable, Equatable {
        public var seq: Int64
        public var sessionID: String
        public var ts: Int64
        public var update: SessionUpdate
    }

    public let flavor: Flavor
    /// The history's id (version 2), new at each reinstall.
    public private(set) var historyID = UUID().uuidString.lowercased()
    /// The stored events, in seq order.
    public private(set) var events: [Event] = []
    /// The prompts received: session, text, client message id.
    public private(set) var prompts: [(sessionID: String, text: String, clientMessageID: String?)] = []
    /// The `since` of every `history.changes` asked for.
    public private(set) var changesAskedSince: [Int64] = []
    /// The `max_bytes` of every `history.changes` asked for (nil: none was sent).
    public private(set) var changesAskedMaxBytes: [Int?] = []
    /// The bytes of the updates of every `history.changes` page answered, and of its last one.
    public private(set) var changesAnsweredBytes: [(page: Int, last: Int)] = []
    /// Whether the cursor flavour offers the page byte budget (`history_max_bytes`) and honours it.
    public private(set) var offersMaxBytes = false
    /// Connections opened so far.
    public private(set) var connectionsOpened = 0
    /// When set, a prompt is received, but every connection drops before its answer is sent.
    public private(set) var dropsBeforeAnsweringPrompts = false
    /// The certificate a `wss://` desktop presents (nil: plain `ws://`).
    public private(set) var certificate: CertificatePin?
    private var nextSeq: Int64 = 1
    private var clock: Int64 = 1_731_000_000_000
    private var open: [Int: ScriptedConnection] = [:]
    private let notificationLimit: Int

    public init(flavor: Flavor, notificationLimit: Int = 64, offersMaxBytes: Bool = false) {
        self.flavor = flavor
        self.notificationLimit = notificationLimit
        self.offersMaxBytes = offersMaxBytes
    }

    public var capabilities: BridgeCapabilities {
        switch flavor {
        case .stock: BridgeCapabilities(protocolVersion: "0.2.2")
        case .cursor(let version):
            BridgeCapabilities(protocolVersion: "0.2.2", historyCursor: version, historyID: version >= 2 ? historyID : nil, pipelining: true,
                               historyMaxBytes: offersMaxBytes)
        }
    }

    // MARK: What the test does

    /// Stores an agent message chunk of `text` in `session`, and announces it to every open
    /// connection unless `announced` is false (a notification lost on the way).
    @discardableResult
    public func store(session: String, text: String, announced: Bool = true) async -> Event {
        clock += 1
        let json = #"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"\#(text)"}}}"#
        let event = Event(seq: nextSeq, sessionID: session, ts: clock, update: SessionUpdate(rawBytes: Array(json.utf8)))
        nextSeq += 1
        events.append(event)
        if announced { await announce(event) }
        return event
    }

    /// Sends `event`'s notification to every open connection (waiting while a buffer is full).
    public func announce(_ event: Event) async {
        let isCursor = flavor != .stock
        let notification = SessionUpdateNotification(sessionID: event.sessionID, update: event.update,
                                                      seq: isCursor ? event.seq : nil, ts: isCursor ? event.ts : nil)
        for connection in open.values.sorted(by: { $0.id < $1.id }) {
            _ = await connection.notifications.send(.sessionUpdate(notification))
        }
    }

    /// Forgets the session's `count` oldest events (an app pruning old transcripts).
    public func prune(session: String, oldest count: Int) {
        let doomed = Set(events.filter { $0.sessionID == session }.prefix(count).map(\.seq))
        events.removeAll { doomed.contains($0.seq) }
    }

    /// Forgets a session and its events.
    public func delete(session: String) {
        events.removeAll { $0.sessionID == session }
    }

    /// A reinstall: a new, empty history (another id; seqs from 1 again), connections dropped.
    public func reinstall() {
        historyID = UUID().uuidString.lowercased()
        events = []
        nextSeq = 1
        dropConnections()
    }

    /// Whether prompts lose their answer (the connection that sent one drops once it is taken).
    public func dropBeforeAnsweringPrompts(_ drops: Bool) {
        dropsBeforeAnsweringPrompts = drops
    }

    /// Presents `pin`'s certificate from now on (a desktop whose certificate was made anew).
    public func present(certificate pin: CertificatePin?) {
        certificate = pin
    }

    /// Connection attempts, refused or not.
    public private(set) var connectionAttempts = 0
    /// It refuses connections, as a desktop that is off does.
    public private(set) var refusesConnections = false

    /// Refuses every connection attempt from now on (or accepts them again).
    public func refuseConnections(_ refuses: Bool) {
        refusesConnections = refuses
    }

    /// Ends every open connection at once: their requests fail, their notifications end.
    public func dropConnections() {
        for connection in open.values { connection.end(reason: "dropped by the scripted desktop") }
        open = [:]
    }

    // MARK: Connections

    /// Opens a connection, or fails as a `wss://` client does when the certificate presented is
    /// not the pin it must match (before anything is sent).
    func connect(url: String, pin: CertificatePin?) throws -> ScriptedConnection {
        connectionAttempts += 1
        if refusesConnections { throw BridgeError.connectionFailed(url: url, reason: "connection refused") }
        if let pin, let certificate, pin != certificate {
            throw BridgeError.certificateMismatch(url: url, expected: pin, presented: certificate)
        }
        connectionsOpened += 1
        let connection = ScriptedConnection(id: connectionsOpened, desktop: self, notificationLimit: notificationLimit,
                                            certificate: certificate, pinned: pin != nil)
        open[connection.id] = connection
        return connection
    }

    func disconnect(_ connection: ScriptedConnection) {
        connection.end(reason: "closed by the client")
        open.removeValue(forKey: connection.id)
    }

    // MARK: Requests

    func recentSessions() -> [RecentSession] {
        sessionSummaries().sorted { ($0.lastTS, $0.sessionID) > ($1.lastTS, $1.sessionID) }.prefix(10)
            .map { RecentSession(sessionID: $0.sessionID, lastTS: $0.lastTS, messageCount: $0.count) }
    }

    func timeline(session: String) -> [TimelineItem] {
        events.filter { $0.sessionID == session }.map { TimelineItem(sessionID: $0.sessionID, update: $0.update) }
    }

    func changes(since: Int64, limit: Int, maxBytes: Int?) throws -> HistoryChangesPage {
        guard flavor != .stock else { throw BridgeError.connectionClosed(reason: "a stock desktop does not answer history.changes") }
        changesAskedSince.append(since)
        changesAskedMaxBytes.append(maxBytes)
        var items: [HistoryChange] = []
        var bytes = 0
        for event in events.drop(while: { $0.seq <= since }).prefix(limit) {
            items.append(HistoryChange(seq: event.seq, sessionID: event.sessionID, ts: event.ts, update: event.update))
            bytes += event.update.rawBytes.count
            if offersMaxBytes, let maxBytes, bytes >= maxBytes { break }
        }
        changesAnsweredBytes.append((bytes, items.last?.update.rawBytes.count ?? 0))
        let next = items.last?.seq ?? since
        return HistoryChangesPage(items: items, next: next, hasMore: next < (events.last?.seq ?? 0))
    }

    func sessions() -> HistorySessionsPage {
        HistorySessionsPage(items: sessionSummaries().map {
            HistorySession(sessionID: $0.sessionID, lastTS: $0.lastTS, messageCount: $0.count, lastSeq: $0.lastSeq, title: nil, mode: nil)
        }, next: nil)
    }

    func newSession() async -> String {
        let id = "made-" + UUID().uuidString.lowercased()
        await store(session: id, text: "")
        return id
    }

    func prompt(sessionID: String, text: String, clientMessageID: String?, from connection: ScriptedConnection) throws -> PromptAccepted {
        guard !text.isEmpty else {
            throw BridgeError.server(method: BridgeMethod.sessionPrompt, error: JSONRPCError(code: -32602, message: "Empty prompt"))
        }
        let duplicate = clientMessageID.map { id in prompts.contains { $0.clientMessageID == id } } ?? false
        if !duplicate { prompts.append((sessionID, text, clientMessageID)) }
        if dropsBeforeAnsweringPrompts {
            connection.end(reason: "dropped before the answer to the prompt")
            open.removeValue(forKey: connection.id)
            throw BridgeError.connectionClosed(reason: "dropped before the answer to the prompt")
        }
        return PromptAccepted(status: "started", duplicate: duplicate)
    }

    private func sessionSummaries() -> [(sessionID: String, lastTS: Int64, count: Int64, lastSeq: Int64)] {
        Dictionary(grouping: events, by: \.sessionID).map { id, stored in
            (id, stored.map(\.ts).max() ?? 0, Int64(stored.count), stored.map(\.seq).max() ?? 0)
        }.sorted { $0.sessionID < $1.sessionID }
    }
}

/// One connection to a `ScriptedDesktop`: its notifications, and requests that fail once it ended.
final class ScriptedConnection: BridgeConnection {
    let id: Int
    let desktop: ScriptedDesktop
    let notifications: BoundedBuffer<BridgeNotification>
    let certificatePin: CertificatePin?
    let certificateWasPinned: Bool
    private let endReason = Mutex<String?>(nil)

    init(id: Int, desktop: ScriptedDesktop, notificationLimit: Int, certificate: CertificatePin?, pinned: Bool) {
        self.id = id
        self.desktop = desktop
        notifications = BoundedBuffer(elementLimit: notificationLimit)
        certificatePin = certificate
        certificateWasPinned = pinned
    }

    func end(reason: String) {
        endReason.withLock { $0 = $0 ?? reason }
        notifications.finish()
    }

    var capabilities: BridgeCapabilities { get async { await desktop.capabilities } }
    var closeError: BridgeError? { get async { endReason.withLock { $0 }.map { .connectionClosed(reason: $0) } } }

    /// Fails with the reason the connection ended, if it did.
    private func checkOpen() throws {
        if let reason = endReason.withLock({ $0 }) { throw BridgeError.connectionClosed(reason: reason) }
    }

    func recentSessions() async throws -> [RecentSession] {
        try checkOpen()
        return await desktop.recentSessions()
    }

    func sessionTimeline(sessionID: String, limit: Int?, timeout: Duration?) async throws -> [TimelineItem] {
        try checkOpen()
        return await desktop.timeline(session: sessionID)
    }

    func threads(topK: Int?) async throws -> [ThreadItem] {
        try checkOpen()
        return []
    }

    func historyChanges(since: Int64, limit: Int, maxBytes: Int?, timeout: Duration?) async throws -> HistoryChangesPage {
        try checkOpen()
        return try await desktop.changes(since: since, limit: limit, maxBytes: maxBytes)
    }

    func historySessions(after cursor: String?, limit: Int) async throws -> HistorySessionsPage {
        try checkOpen()
        return await desktop.sessions()
    }

    func newSession() async throws -> String {
        try checkOpen()
        return await desktop.newSession()
    }

    func prompt(sessionID: String, text: String, clientMessageID: String?) async throws -> PromptAccepted {
        try checkOpen()
        return try await desktop.prompt(sessionID: sessionID, text: text, clientMessageID: clientMessageID, from: self)
    }

    func close() async {
        await desktop.disconnect(self)
    }
}

/// Opens a new connection to the scripted desktop on every attempt of the engine, and closes it
/// when the attempt's scope ends.
public struct ScriptedConnector: BridgeConnector {
    public let desktop: ScriptedDesktop

    public init(desktop: ScriptedDesktop) {
        self.desktop = desktop
    }

    public func withConnection<T: Sendable>(
        isRetry: Bool,
        pin: CertificatePin?,
        onOpen: @Sendable () async -> Void,
        _ body: @Sendable (any BridgeConnection) async throws -> T
    ) async throws -> T {
        let connection = try await desktop.connect(url: "scripted:", pin: pin)
        await onOpen()
        do {
            let result = try await body(connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }
}
