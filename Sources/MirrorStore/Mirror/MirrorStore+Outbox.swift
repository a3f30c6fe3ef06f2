extension MirrorStore {
    /// Queues a prompt. The prompt is durable when this returns: it needs no bridge.
    ///
    /// - Parameters:
    ///   - localEcho: an event showing the prompt in the session's timeline (marked local), written
    ///     in the same transaction; the caller builds it, the store does not know the wire format.
    /// - Throws: `MirrorStoreError.unknownSession` when the session is not mirrored.
    @discardableResult
    public func enqueuePrompt(
        sessionID: String,
        text: String,
        clientMessageID: String,
        localEcho: NewEvent? = nil
    ) throws -> OutboxItem {
        try write {
            let now = clock.now()
            guard try session(id: sessionID) != nil else { throw MirrorStoreError.unknownSession(id: sessionID) }
            var localEventID: Int64?
            if var echo = localEcho {
                echo.sessionID = sessionID
                echo.origin = .local
                let sessionNo = try sessionNumber(of: sessionID)
                // Written as given: an echo is never a duplicate of a mirrored event.
                localEventID = try insert(EventBatch([echo]), rows: [0], indexing: .withCommit) { _ in sessionNo }.firstEventID
                try database.run(
                    """
                    UPDATE sessions SET local_event_count = local_event_count + 1,
                        last_ts = CASE WHEN ?2 > coalesce(last_ts, -1) THEN ?2 ELSE last_ts END
                    WHERE session_no = ?1
                    """,
                    [sessionNo, echo.timestamp ?? now]
                )
            }
            try database.run(
                """
                INSERT INTO outbox (session_id, text, client_message_id, local_event_id, created_at, updated_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                """,
                [sessionID, text, clientMessageID, localEventID, now]
            )
            return try requireOutboxItem(id: database.lastInsertRowID)
        }
    }

    /// Claims the next prompt to send and marks it `sending`.
    ///
    /// Prompts of one session go in the order they were queued: a session's prompt waits while an
    /// earlier one of the same session is sending, failed or unconfirmed. Prompts of a session made
    /// offline wait until it has the bridge's id (`sessionsAwaitingCreation`, `remapSession`).
    /// Only prompts of `scope` are claimed.
    public func claimNextOutboxItem(scope: OutboxScope = .everything) throws -> OutboxItem? {
        try write {
            let next = try database.scalarInt64(
                """
                SELECT o.outbox_id FROM outbox o JOIN sessions s ON s.session_id = o.session_id
                WHERE o.state = 'queued' AND s.origin = 'server' AND \(scope.condition(parameter: 1))
                  AND NOT EXISTS (
                    SELECT 1 FROM outbox earlier
                    WHERE earlier.session_id = o.session_id AND earlier.outbox_id < o.outbox_id
                      AND earlier.state IN ('sending', 'failed', 'unconfirmed'))
                ORDER BY o.outbox_id LIMIT 1
                """,
                scope.parameters
            )
            guard let next else { return nil }
            return try transition(next, from: [.queued], to: .sending, countAttempt: true)
        }
    }

    /// Sessions made offline that have prompts queued: each must be created on the bridge
    /// (`session/new`) and remapped before its prompts can be claimed. Oldest first; those of
    /// `scope` only.
    public func sessionsAwaitingCreation(scope: OutboxScope = .everything) throws -> [String] {
        try database.query(
            """
            SELECT s.session_id FROM sessions s
            WHERE s.origin = 'local' AND \(scope.condition(parameter: 1))
              AND EXISTS (SELECT 1 FROM outbox o WHERE o.session_id = s.session_id AND o.state = 'queued')
            ORDER BY s.first_seen_at, s.session_id
            """,
            scope.parameters
        ) { $0.string(0) }
    }

    /// Settles prompts left `sending` by a process that stopped before their answer came: back to
    /// `queued` when the bridge de-duplicates re-sends (`client_message_id`), otherwise
    /// `unconfirmed`, for the user to decide. Returns the items changed.
    @discardableResult
    public func settleInterruptedSends(canResendSafely: Bool, scope: OutboxScope = .everything) throws -> [OutboxItem] {
        try write {
            let inScope = Set(try database.query(
                "SELECT o.outbox_id FROM outbox o JOIN sessions s ON s.session_id = o.session_id WHERE o.state = 'sending' AND \(scope.condition(parameter: 1))",
                scope.parameters
            ) { $0.int64(0) })
            let interrupted = try outboxItems(in: [.sending]).filter { inScope.contains($0.id) }
            return try interrupted.map { item in
                canResendSafely
                    ? try transition(item.id, from: [.sending], to: .queued)
                    : try transition(item.id, from: [.sending], to: .unconfirmed,
                                     error: "the answer was lost when the connection or the program stopped")
            }
        }
    }

    /// The bridge accepted the prompt.
    @discardableResult
    public func markOutboxSent(id: Int64) throws -> OutboxItem {
        try write { try transition(id, from: [.sending], to: .sent) }
    }

    /// The bridge refused the prompt with `error`.
    @discardableResult
    public func markOutboxFailed(id: Int64, error: String) throws -> OutboxItem {
        try write { try transition(id, from: [.sending], to: .failed, error: error) }
    }

    /// The prompt's fate is unknown and it cannot be re-sent safely: it waits for the user.
    @discardableResult
    public func markOutboxUnconfirmed(id: Int64, reason: String) throws -> OutboxItem {
        try write { try transition(id, from: [.sending], to: .unconfirmed, error: reason) }
    }

    /// The user's retry of a failed or unconfirmed prompt: back in the queue.
    ///
    /// - Throws: `MirrorStoreError.outboxItemInFlight` while the prompt is being sent (a retry
    ///   then could send it twice); `invalidOutboxTransition` when it is queued or sent.
    @discardableResult
    public func requeueOutboxItem(id: Int64) throws -> OutboxItem {
        try write {
            guard try requireOutboxItem(id: id).state != .sending else { throw MirrorStoreError.outboxItemInFlight(id: id) }
            return try transition(id, from: [.failed, .unconfirmed], to: .queued)
        }
    }

    /// The sender lost the answer to a prompt it may re-send safely (the bridge de-duplicates
    /// by `client_message_id`): back in the queue.
    @discardableResult
    public func returnToQueue(id: Int64) throws -> OutboxItem {
        try write { try transition(id, from: [.sending], to: .queued) }
    }

    /// Removes a prompt that is not being sent, and its local echo.
    public func dropOutboxItem(id: Int64) throws {
        try write {
            let item = try requireOutboxItem(id: id)
            guard item.state != .sending else { throw MirrorStoreError.outboxItemInFlight(id: id) }
            try database.run("DELETE FROM outbox WHERE outbox_id = ?", [id])
            if let eventID = item.localEventID, item.state != .sent {
                if let sessionNo = try database.scalarInt64(
                    "SELECT session_no FROM events WHERE event_id = ? AND origin = 'local'", [eventID]) {
                    try deleteEvents([eventID], ofSession: sessionNo)
                }
                try database.run(
                    """
                    UPDATE sessions SET local_event_count = (SELECT count(*) FROM events WHERE session_no = sessions.session_no)
                    WHERE session_id = ?1
                    """,
                    [item.sessionID]
                )
            }
        }
    }

    /// Outbox items, oldest first; only those in `states` when given.
    public func outboxItems(in states: Set<OutboxState>? = nil) throws -> [OutboxItem] {
        let items = try database.query("SELECT \(Self.outboxColumns) FROM outbox ORDER BY outbox_id", [], Self.outboxItem)
        guard let states else { return items }
        return items.filter { states.contains($0.state) }
    }

    /// The outbox item with this id.
    public func outboxItem(id: Int64) throws -> OutboxItem? {
        try database.queryFirst("SELECT \(Self.outboxColumns) FROM outbox WHERE outbox_id = ?", [id], Self.outboxItem)
    }

    private func requireOutboxItem(id: Int64) throws -> OutboxItem {
        guard let item = try outboxItem(id: id) else { throw MirrorStoreError.unknownOutboxItem(id: id) }
        return item
    }

    private func transition(
        _ id: Int64,
        from allowed: Set<OutboxState>,
        to state: OutboxState,
        error: String? = nil,
        countAttempt: Bool = false
    ) throws -> OutboxItem {
        let item = try requireOutboxItem(id: id)
        guard allowed.contains(item.state) else {
            throw MirrorStoreError.invalidOutboxTransition(id: id, from: item.state, to: state)
        }
        let now = clock.now()
        try database.run(
            """
            UPDATE outbox SET state = ?2, attempts = attempts + ?3, last_error = coalesce(?4, last_error),
                updated_at = ?5, sent_at = CASE WHEN ?2 = 'sent' THEN ?5 ELSE sent_at END
            WHERE outbox_id = ?1
            """,
            [id, state.rawValue, countAttempt ? 1 : 0, error, now]
        )
        return try requireOutboxItem(id: id)
    }

    static let outboxColumns = """
        outbox_id, session_id, text, client_message_id, state, attempts, last_error, local_event_id,
        created_at, updated_at, sent_at
        """

    static func outboxItem(_ row: Row) -> OutboxItem {
        OutboxItem(
            id: row.int64(0),
            sessionID: row.string(1),
            text: row.string(2),
            clientMessageID: row.string(3),
            state: OutboxState(rawValue: row.string(4)) ?? .failed,
            attempts: row.int(5),
            lastError: row.optionalString(6),
            localEventID: row.optionalInt64(7),
            createdAt: row.int64(8),
            updatedAt: row.int64(9),
            sentAt: row.optionalInt64(10)
        )
    }
}
