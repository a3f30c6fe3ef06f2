-- Full-text search over the events' plain text, kept in step with events by triggers.
-- Rows with empty text are not indexed.

CREATE VIRTUAL TABLE events_fts USING fts5 (
    text,
    content = 'events',
    content_rowid = 'event_id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER events_fts_after_insert AFTER INSERT ON events WHEN new.text <> '' BEGIN
    INSERT INTO events_fts (rowid, text) VALUES (new.event_id, new.text);
END;

CREATE TRIGGER events_fts_after_delete AFTER DELETE ON events WHEN old.text <> '' BEGIN
    INSERT INTO events_fts (events_fts, rowid, text) VALUES ('delete', old.event_id, old.text);
END;

CREATE TRIGGER events_fts_after_update AFTER UPDATE OF text ON events BEGIN
    INSERT INTO events_fts (events_fts, rowid, text)
        SELECT 'delete', old.event_id, old.text WHERE old.text <> '';
    INSERT INTO events_fts (rowid, text)
        SELECT new.event_id, new.text WHERE new.text <> '';
END;

-- Index what earlier versions of the mirror already hold.
INSERT INTO events_fts (rowid, text) SELECT event_id, text FROM events WHERE text <> '';
