-- The mirror as an archive of every desktop it has seen.
--
-- A bridge's seq means something only within its history: a reinstalled desktop, a wiped history
-- store and a second desktop each start again at 1. So cursors belong to a history, and every
-- session to the history it came from. What a desktop no longer has stays here, marked with when
-- that was noticed (gone_at, ms by this machine's clock).

CREATE TABLE histories (
    -- The mirror's own key for the history; sessions refer to it.
    history_no          INTEGER PRIMARY KEY,
    -- Who named the history:
    -- 'bridge': the bridge's history_id (history-cursor version 2), the same wherever it is reached;
    -- 'mirror': an id this mirror made for a bridge that names none (version 1, stock), found again
    --           by its desktop's name;
    -- 'unclaimed': what a mirror written before version 9 holds, taken over by the first bridge
    --           that connects under that desktop's name (or, when it names its history, by the
    --           first such bridge whose history agrees with the cursor).
    identity            TEXT NOT NULL CHECK (identity IN ('bridge', 'mirror', 'unclaimed')),
    history_id          TEXT NOT NULL UNIQUE,
    -- The desktop's short name as the user knows it (--name, the DNS-SD instance, or the host).
    desktop             TEXT NOT NULL,
    -- Where the bridge was last reached.
    bridge_url          TEXT,
    -- The last seq of the history that is fully mirrored (0: nothing yet).
    cursor              INTEGER NOT NULL DEFAULT 0,
    first_seen_at       INTEGER NOT NULL,
    -- The last connection, the last complete catch-up.
    last_connected_at   INTEGER,
    last_synced_at      INTEGER,
    -- The desktop's history started again (a reinstall, a wiped store) and this one is no longer on it.
    gone_at             INTEGER
);

CREATE INDEX histories_by_desktop ON histories (desktop, history_no);

-- A mirror written before version 9 held one history: it is kept, unclaimed, under the name of the
-- bridge it was last synced with.
INSERT INTO histories (history_no, identity, history_id, desktop, bridge_url, cursor, first_seen_at, last_synced_at)
    SELECT 1, 'unclaimed', 'unclaimed',
           coalesce((SELECT value FROM sync_status WHERE key = 'bridge_url'), 'desktop'),
           (SELECT value FROM sync_status WHERE key = 'bridge_url'),
           coalesce((SELECT seq FROM sync_cursors WHERE scope = 'changes'), 0),
           coalesce((SELECT min(first_seen_at) FROM sessions), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)),
           (SELECT CAST(value AS INTEGER) FROM sync_status WHERE key = 'last_success_at')
    WHERE EXISTS (SELECT 1 FROM sessions WHERE origin = 'server')
       OR EXISTS (SELECT 1 FROM sync_cursors WHERE scope = 'changes');
DELETE FROM sync_cursors WHERE scope = 'changes';

-- The history a session came from (null: made offline and not yet created on a desktop).
ALTER TABLE sessions ADD COLUMN history_no INTEGER REFERENCES histories (history_no);
-- The desktop no longer lists the session.
ALTER TABLE sessions ADD COLUMN gone_at INTEGER;
-- How many of the session's events the desktop no longer has.
ALTER TABLE sessions ADD COLUMN gone_event_count INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET history_no = 1 WHERE origin = 'server' AND EXISTS (SELECT 1 FROM histories WHERE history_no = 1);
CREATE INDEX sessions_by_history ON sessions (history_no);

-- The desktop no longer returns the event (it pruned it, or the session is gone).
ALTER TABLE events ADD COLUMN gone_at INTEGER;
