-- Sessions, their timelines and the vendor-CLI threads, as mirrored from the desktop bridge.
-- Times are milliseconds since the Unix epoch: *_ts and created/updated_at as the bridge reports
-- them, *_seen_at by this machine's clock.

CREATE TABLE sessions (
    session_id          TEXT PRIMARY KEY NOT NULL,
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

CREATE INDEX sessions_by_recency ON sessions (last_ts DESC, session_id);

-- One row per timeline event, in the session's order (ordinal). update_json holds the update
-- object exactly as received, byte for byte; kind and text are what the bridge layer read from it.
-- Clustered by (session_id, ordinal), so that a timeline is read from neighbouring pages.
CREATE TABLE events (
    session_id          TEXT NOT NULL
                        REFERENCES sessions (session_id) ON UPDATE CASCADE ON DELETE CASCADE,
    -- Position within the session, increasing; never reused while the event exists.
    ordinal             INTEGER NOT NULL,
    -- The mirror's id of the event, unique across sessions (the full-text index's rowid).
    event_id            INTEGER NOT NULL UNIQUE,
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
    origin              TEXT NOT NULL DEFAULT 'server' CHECK (origin IN ('server', 'local')),
    PRIMARY KEY (session_id, ordinal)
) WITHOUT ROWID;

CREATE UNIQUE INDEX events_by_seq ON events (seq) WHERE seq IS NOT NULL;

-- Counters that only grow. 'event_id': the last event id handed out, so that an id, once
-- seen, never names another event.
CREATE TABLE counters (
    name                TEXT PRIMARY KEY NOT NULL,
    value               INTEGER NOT NULL
) WITHOUT ROWID;

-- The items of threads/list (vendor CLI transcripts: a different id space from sessions).
CREATE TABLE threads (
    thread_id           TEXT PRIMARY KEY NOT NULL,
    title               TEXT,
    source              TEXT,
    created_at          INTEGER,
    updated_at          INTEGER,
    last_message_ts     INTEGER,
    message_count       INTEGER,
    -- The item exactly as received.
    item_json           TEXT NOT NULL,
    first_seen_at       INTEGER NOT NULL,
    last_seen_at        INTEGER NOT NULL
);

CREATE INDEX threads_by_recency ON threads (updated_at DESC, thread_id);
