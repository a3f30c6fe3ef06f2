-- Three kinds of events that reads look for by session among all of that session's others — live
-- updates awaiting confirmation (`provisional`), the agent's titles and the prompts written here —
-- in one partial index instead of one each. Each partial index costs every inserted row the
-- evaluation of its condition: the four on events (these three and `events_gone`) were 0.4 s of a
-- catch-up of a million events (`docs/benchmarks.md`, issue 34). A session holds few of these
-- three, so a read for one of them walks the others' few entries as well. Events gone from the
-- desktop keep their own index: a pruned session can hold more of them than of anything else.
-- Reads name the index (`INDEXED BY events_marked`) and repeat one of its terms, which is what
-- lets SQLite use a partial index whose condition is a disjunction.
DROP INDEX events_provisional;
DROP INDEX events_session_titles;
DROP INDEX events_local;
CREATE INDEX events_marked ON events (session_no, ordinal)
    WHERE provisional = 1 OR kind = 'session_info_update' OR origin = 'local';
