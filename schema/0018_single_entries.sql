-- The entries that are one event each (every event with text that is not a chunk of a message: a
-- tool call, a tool's output, a plan, a prompt written here, …) leave `entries` for a table of
-- their own, appended to in the order of their events: their kind, session, ordinal and time are
-- their event's, and a row of `entries` for each (indexed by session, inserted among messages
-- that end out of order) cost a catch-up of a million events a tenth of its time
-- (`docs/benchmarks.md`, issue 34). `entries` keeps the messages; a session's entries in order are
-- its events (`events_by_session`) that are the first of one or the other.
--
-- The guards against changing an indexed event under its entries refuse it while a message begins
-- at or after it or reaches over it, as before, and now also while its own single entry stands.
-- Single entries after it are no longer looked for (that would walk the session's later events at
-- each row deleted): an event without an entry between a message and single entries, changed
-- behind the store's back, is no longer refused.

CREATE TABLE single_entries (
    -- Its event; its rowid in entries_fts.
    event_id            INTEGER PRIMARY KEY,
    -- The bytes of its text.
    length              INTEGER NOT NULL,
    -- A hash of its kind and text, as `entries.text_hash`.
    text_hash           INTEGER,
    -- Its event's time (ms), when known: search's time filters read it here, not in the event.
    ts                  INTEGER
);

INSERT INTO single_entries (event_id, length, text_hash, ts)
    SELECT entry_id, length, text_hash, ts FROM entries
    WHERE events = 1 AND NOT (origin <> 'local' AND kind IN ('agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk'))
    ORDER BY entry_id;
DELETE FROM entries
    WHERE events = 1 AND NOT (origin <> 'local' AND kind IN ('agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk'));

-- The agent's titles (single entries all) and the prompts written here, found by session without
-- reading its other events: a session's title looks for them (`schema/0014`, `0015`).
DROP INDEX entries_session_titles;
CREATE INDEX events_session_titles ON events (session_no, ordinal) WHERE kind = 'session_info_update';
CREATE INDEX events_local ON events (session_no, ordinal) WHERE origin = 'local';

DROP TRIGGER events_indexed_delete;
DROP TRIGGER events_indexed_update;

CREATE TRIGGER events_indexed_delete BEFORE DELETE ON events
WHEN old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed')
    AND (EXISTS (SELECT 1 FROM single_entries WHERE event_id = old.event_id)
         OR EXISTS (SELECT 1 FROM entries WHERE session_no = old.session_no AND first_ordinal >= old.ordinal)
         OR (SELECT last_ordinal FROM entries WHERE session_no = old.session_no AND first_ordinal < old.ordinal
             ORDER BY first_ordinal DESC LIMIT 1) >= old.ordinal) BEGIN
    SELECT RAISE(ABORT, 'an indexed event is deleted while its entries stand');
END;

CREATE TRIGGER events_indexed_update BEFORE UPDATE OF session_no, ordinal, kind, text, origin ON events
WHEN old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed')
    AND (EXISTS (SELECT 1 FROM single_entries WHERE event_id = old.event_id)
         OR EXISTS (SELECT 1 FROM entries WHERE session_no = old.session_no AND first_ordinal >= old.ordinal)
         OR (SELECT last_ordinal FROM entries WHERE session_no = old.session_no AND first_ordinal < old.ordinal
             ORDER BY first_ordinal DESC LIMIT 1) >= old.ordinal) BEGIN
    SELECT RAISE(ABORT, 'an indexed event is changed while its entries stand');
END;
