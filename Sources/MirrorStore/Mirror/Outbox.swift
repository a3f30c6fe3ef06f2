/// Where a queued prompt is on its way to the bridge.
///
/// `queued → sending → sent | failed | unconfirmed`; `failed` and `unconfirmed` wait for the user,
/// who may queue them again or drop them.
public enum OutboxState: String, Sendable, Codable, CaseIterable {
    /// Waiting to be sent.
    case queued
    /// Claimed by a sender; its answer has not arrived.
    case sending
    /// The bridge accepted it.
    case sent
    /// The bridge refused it; `lastError` says why.
    case failed
    /// Sent, but the answer was lost and the bridge cannot de-duplicate a resend.
    case unconfirmed
}

/// A prompt in the outbox.
public struct OutboxItem: Sendable, Equatable {
    public var id: Int64
    public var sessionID: String
    public var text: String
    /// Identifies the prompt to a bridge that de-duplicates (`_meta.client_message_id`).
    public var clientMessageID: String
    public var state: OutboxState
    /// How many times it was claimed for sending.
    public var attempts: Int
    public var lastError: String?
    /// The prompt's echo in the local timeline, if any.
    public var localEventID: Int64?
    public var createdAt: Int64
    public var updatedAt: Int64
    public var sentAt: Int64?
}

/// Which queued prompts a sender delivers: a bridge delivers those of its own history's sessions
/// (a prompt goes to the desktop its session lives on).
public struct OutboxScope: Sendable, Equatable {
    /// Prompts of this history's sessions; nil: of every session.
    public var history: HistoryKey?
    /// Also prompts of sessions that belong to no history yet (made offline for no desktop in
    /// particular): for the only bridge there is.
    public var includingUnassigned: Bool

    public init(history: HistoryKey?, includingUnassigned: Bool) {
        self.history = history
        self.includingUnassigned = includingUnassigned
    }

    /// Every prompt.
    public static let everything = OutboxScope(history: nil, includingUnassigned: true)

    /// The SQL condition on a session row `s`, with its two parameters at `first` and `first + 1`.
    func condition(parameter first: Int) -> String {
        "(?\(first) IS NULL OR s.history_no = ?\(first) OR (?\(first + 1) AND s.history_no IS NULL))"
    }

    var parameters: [DatabaseValue] {
        [history.map { .integer($0.rawValue) } ?? .null, .integer(includingUnassigned ? 1 : 0)]
    }
}
