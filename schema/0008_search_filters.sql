-- Search narrowed by session, kind and time without reading the row of every match.
--
-- The full-text index gets two more columns, one token each: the event's kind ('k' and the hex of
-- its UTF-8, so that any kind is one token of its own) and its session ('s' and session_no). A
-- search for words in a session or of a kind is then an AND that FTS5 answers from its lists,
-- skipping ahead in each; words are searched in the text column alone. The index reads its
-- content through the view events_search, which makes the two tokens from the row.
--
-- columnsize = 0: the index keeps no row of token counts per event (a B-tree insert per event at
-- ingest, a quarter of the index's cost); ranking, which needs an event's length, gets it by
-- tokenizing the text of the few hundred events it ranks.
--
-- search_spans tells a time range which event ids it can hold: each run of indexed events, in id
-- order, with the oldest and newest time among them. Events are written in about the order of
-- their times, so a time filter becomes a range of ids that FTS5 seeks to. A span is at most
-- 8,192 ids wide once written by live commits (a long catch-up's transaction may make it wider);
-- spans are never narrowed by deletes, so they always hold at least what they say.

DROP TRIGGER events_fts_after_delete;
DROP TRIGGER events_fts_after_update;
DROP TABLE events_fts;

CREATE VIEW events_search AS
    SELECT event_id, text, 'k' || hex(kind) AS kind, 's' || session_no AS session FROM events;

CREATE VIRTUAL TABLE events_fts USING fts5 (
    text,
    kind,
    session,
    content = 'events_search',
    content_rowid = 'event_id',
    tokenize = 'unicode61 remove_diacritics 2',
    columnsize = 0
);

INSERT INTO events_fts (rowid, text, kind, session)
    SELECT event_id, text, kind, session FROM events_search
    WHERE text <> '' AND event_id <= (SELECT value FROM counters WHERE name = 'search_indexed');
INSERT INTO events_fts (events_fts) VALUES ('optimize');

-- A deleted event leaves the index only if it was indexed (events above the watermark are not).
CREATE TRIGGER events_fts_after_delete AFTER DELETE ON events
WHEN old.text <> '' AND old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed') BEGIN
    INSERT INTO events_fts (events_fts, rowid, text, kind, session)
        VALUES ('delete', old.event_id, old.text, 'k' || hex(old.kind), 's' || old.session_no);
END;

-- A session merged into another (session_no) moves its events in the index too.
CREATE TRIGGER events_fts_after_update AFTER UPDATE OF text, kind, session_no ON events
WHEN old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed') BEGIN
    INSERT INTO events_fts (events_fts, rowid, text, kind, session)
        SELECT 'delete', old.event_id, old.text, 'k' || hex(old.kind), 's' || old.session_no WHERE old.text <> '';
    INSERT INTO events_fts (rowid, text, kind, session)
        SELECT new.event_id, new.text, 'k' || hex(new.kind), 's' || new.session_no WHERE new.text <> '';
END;

CREATE TABLE search_spans (
    first_event_id      INTEGER PRIMARY KEY,
    last_event_id       INTEGER NOT NULL,
    -- The oldest and newest ts of the span's events (ms); NULL when none has a time.
    oldest_ts           INTEGER,
    newest_ts           INTEGER
);

INSERT INTO search_spans (first_event_id, last_event_id, oldest_ts, newest_ts)
    SELECT min(event_id), max(event_id), min(ts), max(ts) FROM events
    WHERE event_id <= (SELECT value FROM counters WHERE name = 'search_indexed')
    GROUP BY event_id / 8192;
