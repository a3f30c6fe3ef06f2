-- The titles an agent gives a session (ACP's `session_info_update`), found without reading the
-- session's other entries: a session's title is the one its desktop's list gives, else the last
-- one its agent gave, else its first prompt (the read model's one rule), and lists of sessions
-- ask it for each row.
CREATE INDEX entries_session_titles ON entries (session_no, first_ordinal) WHERE kind = 'session_info_update';
