-- The full-text index no longer stores each row's size in tokens (`columnsize = 0`): a row of
-- `entries_fts_docsize` for every entry cost a catch-up of a million events 0.5 s of its 7.4
-- (`docs/benchmarks.md`, issue 34). Search ranks by the entries' lengths in bytes instead, which
-- `entries` and `single_entries` hold, against the average of the texts the index holds:
-- counters.'indexed_text_bytes' is the bytes of those texts, kept by every write to the index.
--
-- The table is made anew, empty; the entries, pending, are derived again with their rows at the
-- end of the migrations (`MirrorStore.completeMigration`).
DROP TABLE entries_fts;
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    text,
    -- 'k' and the hex of the UTF-8 of the entry's kind: one token whatever the kind.
    kind,
    -- 's' and the session's session_no.
    session,
    content = '',
    columnsize = 0,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT OR REPLACE INTO counters (name, value) VALUES ('indexed_text_bytes', 0);
INSERT OR REPLACE INTO counters (name, value) VALUES ('entries_pending', 1);
