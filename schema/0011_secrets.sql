-- What oa-repl's secrets report reads: the secrets found in events, never their values (a
-- fingerprint: the first four characters and the start of their SHA-256), found lazily and kept
-- up to a watermark; and the exports the mirror wrote, to tell which secrets left it.

CREATE TABLE secret_findings (
    event_id            INTEGER NOT NULL,
    kind                TEXT NOT NULL,
    fingerprint         TEXT NOT NULL,
    PRIMARY KEY (fingerprint, event_id, kind)
) WITHOUT ROWID;

CREATE INDEX secret_findings_by_event ON secret_findings (event_id);

-- One row: the events up to scanned_through (an event_id) were scanned with the rules whose
-- digest is rules_digest; other rules (a changed secrets file) scan everything again.
CREATE TABLE secret_scan (
    id                  INTEGER PRIMARY KEY CHECK (id = 1),
    rules_digest        TEXT NOT NULL,
    scanned_through     INTEGER NOT NULL
);

-- Each session export the mirror wrote to a file (ms by this machine's clock), and whether its
-- secrets were redacted.
CREATE TABLE exports (
    session_id          TEXT NOT NULL,
    exported_at         INTEGER NOT NULL,
    format              TEXT NOT NULL,
    redacted            INTEGER NOT NULL CHECK (redacted IN (0, 1)),
    path                TEXT NOT NULL
);

CREATE INDEX exports_by_session ON exports (session_id, exported_at);
