-- Events stored in the order they arrive, for ingest near SQLite's own speed.
--
-- Until version 4 events were a WITHOUT ROWID table clustered by (session_id text, ordinal), with
-- unique indexes on event_id and seq and a full-text trigger per row: every event dirtied pages in
-- four B-trees and the full-text index. Now:
-- * sessions get an integer key, session_no, that events refer to;
-- * events are a rowid table keyed by event_id (ids only grow, so rows are appended), with one
--   index on (session_no, ordinal) for reading a timeline in order;
-- * seq has no index: every mirrored seq is at or below the history cursor, which commits with it,
--   so the cursor alone tells which seqs are mirrored;
-- * the full-text index is fed by the store in bulk, per transaction or after a long catch-up:
--   counters.'search_indexed' is the highest event_id whose text is indexed (every lower one is).
--
-- Runs with foreign keys off (the migration runner does that for every migration and checks them
-- before committing), as SQLite's recipe for changing a table's layout requires.

CREATE TABLE sessions_v5 (
    -- The mirror's own key for the session; events refer to it.
    session_no          INTEGER PRIMARY KEY,
    session_id          TEXT NOT NULL UNIQUE,
    -- 'server': known to the bridge; 'local': created offline, not yet known to the bridge.
    origin              TEXT NOT NULL DEFAULT 'server' CHECK (origin IN ('server', 'local')),
    title               TEXT,
    mode                TEXT,
    -- Latest event time the bridge reported for this session (or of the newest mirrored event).
    last_ts             INTEGER,
    -- The bridge's message_count: how many events it stores for the session (every chunk).
    server_event_count  INTEGER,
    -- The bridge's last_seq for the session (history-cursor bridges only).
    server_last_seq     INTEGER,
    -- How many events this mirror holds for the session.
    local_event_count   INTEGER NOT NULL DEFAULT 0,
    first_seen_at       INTEGER NOT NULL,
    last_seen_at        INTEGER NOT NULL
);

INSERT INTO sessions_v5 (session_id, origin, title, mode, last_ts, server_event_count, server_last_seq,
                         local_event_count, first_seen_at, last_seen_at)
    SELECT session_id, origin, title, mode, last_ts, server_event_count, server_last_seq, local_event_count,
           first_seen_at, last_seen_at
    FROM sessions ORDER BY first_seen_at, session_id;

-- One row per timeline event. update_json holds the update object exactly as received, byte for
-- byte; kind and text are what the bridge layer read from it.
CREATE TABLE events_v5 (
    -- The mirror's id of the event: handed out in increasing order and never reused (counters).
    event_id            INTEGER PRIMARY KEY,
    session_no          INTEGER NOT NULL REFERENCES sessions_v5 (session_no) ON DELETE CASCADE,
    -- Position within the session, increasing; never reused while the event exists.
    ordinal             INTEGER NOT NULL,
    -- The bridge's global sequence number, when it sends one (history-cursor bridges).
    seq                 INTEGER,
    -- Event time in ms, when known.
    ts                  INTEGER,
    -- The update's sessionUpdate tag, or 'unknown'.
    kind                TEXT NOT NULL,
    -- Plain text for search and display ('' when the update has none).
    text                TEXT NOT NULL DEFAULT '',
    update_json         TEXT NOT NULL,
    -- 64-bit hash that identifies the update's content (see ContentHash).
    content_hash        INTEGER NOT NULL,
    -- 1 while a live update awaits confirmation by the next timeline fetch.
    provisional         INTEGER NOT NULL DEFAULT 0 CHECK (provisional IN (0, 1)),
    -- 'server': came from the bridge; 'local': written here (our own prompts).
    origin              TEXT NOT NULL DEFAULT 'server' CHECK (origin IN ('server', 'local'))
);

INSERT INTO events_v5 (event_id, session_no, ordinal, seq, ts, kind, text, update_json, content_hash, provisional, origin)
    SELECT e.event_id, s.session_no, e.ordinal, e.seq, e.ts, e.kind, e.text, e.update_json, e.content_hash,
           e.provisional, e.origin
    FROM events e JOIN sessions_v5 s ON s.session_id = e.session_id
    ORDER BY e.event_id;

DROP TABLE events_fts;
DROP TABLE events;
DROP TABLE sessions;
ALTER TABLE sessions_v5 RENAME TO sessions;
ALTER TABLE events_v5 RENAME TO events;

CREATE INDEX sessions_by_recency ON sessions (last_ts DESC, session_id);

-- The cursor a catch-up once copied here went stale with every live update: status reads the
-- mirror's own cursor (sync_cursors) instead.
DELETE FROM sync_status WHERE key = 'history_cursor';
CREATE UNIQUE INDEX events_by_session ON events (session_no, ordinal);
-- Provisional events (live updates from a stock bridge, awaiting the refetch that confirms them)
-- are few at any time; this index finds a session's without reading its timeline.
CREATE INDEX events_provisional ON events (session_no, ordinal) WHERE provisional = 1;

-- Full-text search over the events' plain text. Rows with empty text are not indexed.
CREATE VIRTUAL TABLE events_fts USING fts5 (
    text,
    content = 'events',
    content_rowid = 'event_id',
    tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO events_fts (rowid, text) SELECT event_id, text FROM events WHERE text <> '';
INSERT INTO counters (name, value) VALUES ('search_indexed', coalesce((SELECT max(event_id) FROM events), 0))
    ON CONFLICT (name) DO UPDATE SET value = excluded.value;

-- A deleted event leaves the index only if it was indexed (events above the watermark are not).
CREATE TRIGGER events_fts_after_delete AFTER DELETE ON events
WHEN old.text <> '' AND old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed') BEGIN
    INSERT INTO events_fts (events_fts, rowid, text) VALUES ('delete', old.event_id, old.text);
END;

CREATE TRIGGER events_fts_after_update AFTER UPDATE OF text ON events
WHEN old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed') BEGIN
    INSERT INTO events_fts (events_fts, rowid, text)
        SELECT 'delete', old.event_id, old.text WHERE old.text <> '';
    INSERT INTO events_fts (rowid, text)
        SELECT new.event_id, new.text WHERE new.text <> '';
END;
