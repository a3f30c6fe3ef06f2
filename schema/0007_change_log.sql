-- What a reader that follows the mirror live (another process: `oa-repl follow`, a JSON-lines
-- subscription) cannot tell from event ids alone. Events only ever get higher ids, so the events
-- committed since a reader last looked are those above the highest id it saw. Two other changes
-- are logged here, by triggers, in the transaction that makes them:
-- * 'event_removed': an event was deleted (a stock bridge's refetch replaced a provisional tail, a
--   queued prompt was dropped with its echo);
-- * 'event_confirmed': a provisional event (a stock bridge's live update) was confirmed by a refetch;
-- * 'outbox': a queued prompt was added, changed state, or was dropped (state 'dropped');
-- * 'session_merged': a session made offline was merged into the bridge's session of the same
--   conversation (written by the store, which alone knows where it went).
-- Appends are not logged: the catch-up writes millions of events, and their ids say it all.
CREATE TABLE change_log (
    -- Increasing in commit order, never reused (AUTOINCREMENT: even after old rows are pruned).
    change_id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind                TEXT NOT NULL CHECK (kind IN ('event_removed', 'event_confirmed', 'outbox', 'session_merged')),
    session_no          INTEGER,
    -- The removed or confirmed event.
    event_id            INTEGER,
    outbox_id           INTEGER,
    state               TEXT,
    -- A merged session: its id (it is gone) and the session its events went to.
    merged_session_id   TEXT,
    into_session_no     INTEGER,
    -- The highest event id handed out when the change was made: events up to it came before the
    -- change in commit order, events above it after (a reader merges the two in that order).
    after_event_id      INTEGER NOT NULL,
    -- ms since the Unix epoch, for pruning.
    changed_at          INTEGER NOT NULL
);

-- A prompt's id names it in the change log and to followers: it must never name another prompt
-- later. The outbox's ids were plain rowids, which SQLite hands out again once the highest is
-- deleted (a dropped prompt); AUTOINCREMENT never does.
CREATE TABLE outbox_v7 (
    outbox_id           INTEGER PRIMARY KEY AUTOINCREMENT,
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

INSERT INTO outbox_v7 SELECT outbox_id, session_id, text, client_message_id, state, attempts, last_error, local_event_id,
                             created_at, updated_at, sent_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v7 RENAME TO outbox;
CREATE INDEX outbox_by_state ON outbox (state, outbox_id);
CREATE INDEX outbox_by_session ON outbox (session_id, outbox_id);
CREATE INDEX outbox_by_local_event ON outbox (local_event_id) WHERE local_event_id IS NOT NULL;

CREATE TRIGGER change_log_event_removed AFTER DELETE ON events BEGIN
    INSERT INTO change_log (kind, session_no, event_id, after_event_id, changed_at)
    VALUES ('event_removed', old.session_no, old.event_id,
            coalesce((SELECT value FROM counters WHERE name = 'event_id'), 0),
            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

CREATE TRIGGER change_log_event_confirmed AFTER UPDATE OF provisional ON events
WHEN old.provisional = 1 AND new.provisional = 0 BEGIN
    INSERT INTO change_log (kind, session_no, event_id, after_event_id, changed_at)
    VALUES ('event_confirmed', new.session_no, new.event_id,
            coalesce((SELECT value FROM counters WHERE name = 'event_id'), 0),
            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

CREATE TRIGGER change_log_outbox_added AFTER INSERT ON outbox BEGIN
    INSERT INTO change_log (kind, session_no, outbox_id, state, after_event_id, changed_at)
    VALUES ('outbox', (SELECT session_no FROM sessions WHERE session_id = new.session_id), new.outbox_id, new.state,
            coalesce((SELECT value FROM counters WHERE name = 'event_id'), 0),
            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

CREATE TRIGGER change_log_outbox_state AFTER UPDATE OF state ON outbox WHEN old.state <> new.state BEGIN
    INSERT INTO change_log (kind, session_no, outbox_id, state, after_event_id, changed_at)
    VALUES ('outbox', (SELECT session_no FROM sessions WHERE session_id = new.session_id), new.outbox_id, new.state,
            coalesce((SELECT value FROM counters WHERE name = 'event_id'), 0),
            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

CREATE TRIGGER change_log_outbox_dropped AFTER DELETE ON outbox BEGIN
    INSERT INTO change_log (kind, session_no, outbox_id, state, after_event_id, changed_at)
    VALUES ('outbox', (SELECT session_no FROM sessions WHERE session_id = old.session_id), old.outbox_id, 'dropped',
            coalesce((SELECT value FROM counters WHERE name = 'event_id'), 0),
            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;
