-- A session whose indexed events change has only the entries from the change on withdrawn and
-- derived again, not all of them: a refetch that replaced a few live updates at the end of a
-- session of 100,000 events derived the whole session again (as long as mirroring it).
--
-- The store withdraws the entries that begin after the last event before the change that ends a
-- message (neither a chunk nor an update of a tool call); the guards below now refuse a change to
-- an indexed event only while an entry holds it or follows it: an entry beginning at or after it,
-- or the message (an entry of more than one event) beginning last before it, if it reaches it.
-- Messages do not overlap one another; an update of a tool call inside a message is an entry of
-- its own, of one event, and holds nothing else.

DROP TRIGGER events_indexed_delete;
DROP TRIGGER events_indexed_update;

CREATE TRIGGER events_indexed_delete BEFORE DELETE ON events
WHEN old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed')
    AND (EXISTS (SELECT 1 FROM entries WHERE session_no = old.session_no AND first_ordinal >= old.ordinal)
         OR (SELECT last_ordinal FROM entries WHERE session_no = old.session_no AND first_ordinal < old.ordinal
             AND last_ordinal > first_ordinal ORDER BY first_ordinal DESC LIMIT 1) >= old.ordinal) BEGIN
    SELECT RAISE(ABORT, 'an indexed event is deleted while its entries stand');
END;

CREATE TRIGGER events_indexed_update BEFORE UPDATE OF session_no, ordinal, kind, text, origin ON events
WHEN old.event_id <= (SELECT value FROM counters WHERE name = 'search_indexed')
    AND (EXISTS (SELECT 1 FROM entries WHERE session_no = old.session_no AND first_ordinal >= old.ordinal)
         OR (SELECT last_ordinal FROM entries WHERE session_no = old.session_no AND first_ordinal < old.ordinal
             AND last_ordinal > first_ordinal ORDER BY first_ordinal DESC LIMIT 1) >= old.ordinal) BEGIN
    SELECT RAISE(ABORT, 'an indexed event is changed while its entries stand');
END;
