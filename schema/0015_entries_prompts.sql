-- The person's messages of each session, found without reading the session's other entries: a
-- session without a title is titled by its first prompt, and lists of sessions and of search
-- hits ask it for each row. Without it, a session's every entry was read to find its prompts.
CREATE INDEX entries_prompts ON entries (session_no, first_ordinal) WHERE kind = 'user_message_chunk';
