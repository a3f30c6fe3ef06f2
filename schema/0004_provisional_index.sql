-- Provisional events (live updates from a stock bridge, awaiting the refetch that confirms them)
-- are few at any time; this index finds a session's without reading its timeline.
CREATE INDEX events_provisional ON events (session_id, ordinal) WHERE provisional = 1;
