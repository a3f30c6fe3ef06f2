-- The client's own state: sync cursors and watermarks, connection status, and the outbox of
-- prompts queued here for the bridge.

-- One row per scope: 'changes' (the global history cursor: the last applied seq) and
-- 'session:<id>' (the (last_ts, message_count) watermark a stock timeline was fetched at).
CREATE TABLE sync_cursors (
    scope               TEXT PRIMARY KEY NOT NULL,
    seq                 INTEGER,
    last_ts             INTEGER,
    message_count       INTEGER,
    updated_at          INTEGER NOT NULL
);

-- Small key/value facts about syncing, written by oa-sync and read by anyone:
-- bridge_url, connection_state, last_success_at, last_error, …
CREATE TABLE sync_status (
    key                 TEXT PRIMARY KEY NOT NULL,
    value               TEXT NOT NULL,
    updated_at          INTEGER NOT NULL
);

-- Prompts queued for the bridge, delivered per session in outbox_id order.
-- queued -> sending -> sent | failed | unconfirmed; failed and unconfirmed wait for the user.
CREATE TABLE outbox (
    outbox_id           INTEGER PRIMARY KEY,
    session_id          TEXT NOT NULL REFERENCES sessions (session_id) ON UPDATE CASCADE,
    text                TEXT NOT NULL,
    client_message_id   TEXT NOT NULL UNIQUE,
    state               TEXT NOT NULL DEFAULT 'queued'
                        CHECK (state IN ('queued', 'sending', 'sent', 'failed', 'unconfirmed')),
    attempts            INTEGER NOT NULL DEFAULT 0,
    last_error          TEXT,
    -- The prompt's echo in the local timeline, if one was written.
    local_event_id      INTEGER REFERENCES events (event_id) ON DELETE SET NULL,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    sent_at             INTEGER
);

CREATE INDEX outbox_by_state ON outbox (state, outbox_id);
CREATE INDEX outbox_by_session ON outbox (session_id, outbox_id);
CREATE INDEX outbox_by_local_event ON outbox (local_event_id) WHERE local_event_id IS NOT NULL;
