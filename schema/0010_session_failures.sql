-- Version 10: a session whose timeline could not be mirrored (too large, undecodable, timing out)
-- is marked failed with its reason, and retried with backoff on later syncs; the other sessions
-- are mirrored meanwhile. Cleared when a later fetch succeeds. Times in milliseconds since the epoch.
ALTER TABLE sessions ADD COLUMN sync_error TEXT;
ALTER TABLE sessions ADD COLUMN sync_error_at INTEGER;
-- Not tried again before this time.
ALTER TABLE sessions ADD COLUMN retry_after INTEGER;
-- Failures in a row (the backoff doubles with each).
ALTER TABLE sessions ADD COLUMN sync_failures INTEGER NOT NULL DEFAULT 0;
