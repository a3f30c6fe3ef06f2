-- The events of a session that its desktop no longer has, found without reading the others: a
-- session's view names them before it shows the conversation, and `gone_at`, added last to each
-- row, is read only past the row's update, which for a large tool output means walking all its
-- pages.
CREATE INDEX events_gone ON events (session_no, ordinal) WHERE gone_at IS NOT NULL;
