-- The events that some read looks for by session among all of that session's others — live
-- updates awaiting confirmation (`provisional`), events the desktop no longer has (`gone_at`),
-- the agent's titles and the prompts written here — in one partial index instead of one each.
-- Each partial index costs every inserted row the evaluation of its condition: four of them were
-- 0.4 s of a catch-up of a million events, one 0.1 s (`docs/benchmarks.md`, issue 34). A session
-- holds few such events, so a read for one of the four walks the others' few entries as well.
-- Reads name the index (`INDEXED BY events_marked`) and repeat one of its terms, which is what
-- lets SQLite use a partial index whose condition is a disjunction.
DROP INDEX events_provisional;
DROP INDEX events_gone;
DROP INDEX events_session_titles;
DROP INDEX events_local;
CREATE INDEX events_marked ON events (session_no, ordinal)
    WHERE provisional = 1 OR gone_at IS NOT NULL OR kind = 'session_info_update' OR origin = 'local';
