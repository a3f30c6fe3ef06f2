-- Version 17: each desktop's sync status, one typed row, written by the engine and read by
-- `status`. Before, the status was key/value text in `sync_status`, each fact written twice (a
-- plain key, for the bridge that wrote last, and `desktop:NAME:key`) and read back by string.
-- Times in milliseconds since the epoch, this machine's clock.
CREATE TABLE desktop_status (
    -- The desktop's short name (`DesktopName`).
    desktop             TEXT PRIMARY KEY NOT NULL,
    -- The bridge it was last reached at.
    bridge_url          TEXT NOT NULL,
    connection_state    TEXT NOT NULL CHECK (connection_state IN ('offline', 'connecting', 'handshaking', 'syncing', 'live')),
    -- When it entered that state.
    state_since         INTEGER NOT NULL,
    -- When its last catch-up ended well.
    last_success_at     INTEGER,
    -- The last problem since then (cleared by a success), and when it came.
    last_error          TEXT,
    last_error_at       INTEGER,
    -- When the row was last written: the desktop written last is the one `status` shows first.
    updated_at          INTEGER NOT NULL
);

-- Each desktop's facts move over, named by its connection state's key (a name may hold ':').
INSERT INTO desktop_status (desktop, bridge_url, connection_state, state_since, last_success_at, last_error, last_error_at, updated_at)
SELECT d.name,
       coalesce((SELECT value FROM sync_status WHERE key = 'desktop:' || d.name || ':bridge_url'), ''),
       CASE WHEN d.state IN ('offline', 'connecting', 'handshaking', 'syncing', 'live') THEN d.state ELSE 'offline' END,
       d.since,
       (SELECT CAST(value AS INTEGER) FROM sync_status WHERE key = 'desktop:' || d.name || ':last_success_at'),
       (SELECT value FROM sync_status WHERE key = 'desktop:' || d.name || ':last_error'),
       (SELECT CAST(value AS INTEGER) FROM sync_status WHERE key = 'desktop:' || d.name || ':last_error_at'),
       (SELECT max(updated_at) FROM sync_status WHERE key IN ('desktop:' || d.name || ':bridge_url', 'desktop:' || d.name || ':connection_state',
            'desktop:' || d.name || ':last_success_at', 'desktop:' || d.name || ':last_error', 'desktop:' || d.name || ':last_error_at'))
FROM (SELECT substr(key, 9, length(key) - 8 - length(':connection_state')) AS name, value AS state, updated_at AS since
      FROM sync_status WHERE key LIKE 'desktop:%:connection_state') d;

-- The plain keys said again what the rows now hold (or, in a mirror older than several desktops,
-- what the next sync writes again): the table goes.
DROP TABLE sync_status;
