-- The conversation as search reads it: entries derived from the events, indexed whole.
--
-- A desktop streams a reply in chunks of a few characters cut anywhere; indexed one by one, a word
-- cut across two chunks was found in neither. Now the index holds entries:
-- * a message: consecutive chunks of one kind (user, assistant, thinking) from the desktop, joined
--   in the order of their ordinals (a prompt written here, origin 'local', is whole: an entry alone). An update of a tool call between them (`tool_call_update`) leaves
--   the message open; any other event ends it, and so does a chunk of another kind or origin;
--   A message longer than 64 KiB goes on as a new entry (at the next chunk that begins with a space
--   or a line break once it is that long, at 128 KiB whatever the chunk): a part of a long message
--   is found and shown on its own, and rewriting a streaming message's row costs at most that;
-- * every other event with text, alone (a tool call, a tool's output, a plan, …).
-- The events stay the source of truth: entries can be derived again from them at any time, and a
-- derivation gives the same entries whether made in one pass or commit by commit.
--
-- An entry's id is the event id of its first event, and its row in the index has that rowid: the
-- times of `search_spans` and the watermark `search_indexed` apply to entries as they did to events.
--
-- The index is contentless: an entry's text is read from its events (for snippets, for the
-- 'delete' of a row, which FTS5 needs the indexed text for). A message still streaming (`open`)
-- grows by one row update per chunk; its row in the index is rewritten whole at most every 300 ms
-- while it streams (`indexed_events` < `events` until then), and once more when it ends.
-- The store code that derives entries is `MirrorStore+Entries.swift`; this file only makes room.

DROP TRIGGER events_fts_after_delete;
DROP TRIGGER events_fts_after_update;
DROP TABLE events_fts;
DROP VIEW events_search;

CREATE TABLE entries (
    -- The event id of its first event; its rowid in entries_fts.
    entry_id            INTEGER PRIMARY KEY,
    -- The session's session_no. Not a foreign key: a session deleted with entries standing would
    -- take them without their rows in the index; its events' trigger refuses that instead.
    session_no          INTEGER NOT NULL,
    -- The kind of its events (a message's chunks) or of its one event.
    kind                TEXT NOT NULL,
    -- The origin of its events ('server' or 'local').
    origin              TEXT NOT NULL,
    first_ordinal       INTEGER NOT NULL,
    last_ordinal        INTEGER NOT NULL,
    last_event_id       INTEGER NOT NULL,
    -- How many events it joins, and the bytes of their text.
    events              INTEGER NOT NULL,
    length              INTEGER NOT NULL,
    -- 1 while the message may still grow: the last message of its session, not ended yet.
    open                INTEGER NOT NULL DEFAULT 0 CHECK (open IN (0, 1)),
    -- How many of its first events the index's row holds the text of (0: it has no row).
    indexed_events      INTEGER NOT NULL DEFAULT 0,
    -- When its row was last written (ms, this machine's clock).
    indexed_at          INTEGER,
    -- A hash of its kind and the text its row holds: entries that restate one text share it.
    text_hash           INTEGER,
    -- The time of its first event (ms), when known.
    ts                  INTEGER
);

CREATE INDEX entries_by_session ON entries (session_no, first_ordinal);
-- The message of each session that may still grow.
CREATE INDEX entries_open ON entries (session_no) WHERE open = 1;
-- Messages whose row in the index lags behind their chunks: few at any time.
CREATE INDEX entries_lagging ON entries (indexed_at) WHERE indexed_events < events;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    text,
    -- 'k' and the hex of the UTF-8 of the entry's kind: one token whatever the kind.
    kind,
    -- 's' and the session's session_no.
    session,
    content = '',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- An indexed event cannot change under its entries: the store withdraws a session's entries before
-- it deletes or moves its events, and derives them again after (a store that forgot would leave
-- rows in the index that no longer match its events).
CREATE TRIGGER events_indexed_delete BEFORE DELETE ON events
WHEN old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed')
    AND EXISTS (SELECT 1 FROM entries WHERE session_no = old.session_no) BEGIN
    SELECT RAISE(ABORT, 'an indexed event is deleted while its session''s entries stand');
END;

CREATE TRIGGER events_indexed_update BEFORE UPDATE OF session_no, ordinal, kind, text, origin ON events
WHEN old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed')
    AND EXISTS (SELECT 1 FROM entries WHERE session_no = old.session_no) BEGIN
    SELECT RAISE(ABORT, 'an indexed event is changed while its session''s entries stand');
END;

-- Events up to the watermark are derived into entries by the store right after this file runs.
