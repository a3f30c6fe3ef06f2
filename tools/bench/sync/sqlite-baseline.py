#!/usr/bin/env python3
"""SQLite's own time to store a mirror's events: reads them (untimed) from MIRROR, with the texts of
the entries the mirror derived from them (a streamed message's chunks joined, a single event's text
as it is), then times inserting the same rows with executemany into a plain rowid table, in
transactions of 20,000, and the entries' texts into a contentless FTS5 index, under the mirror's
pragmas and page size.
Writes out what the system still holds to write first (untimed, as oa-sync-bench does before
oa-sync). Prints the seconds. Usage: sqlite-baseline.py MIRROR OUTPUT"""
import os, sqlite3, sys, time

mirror, output = sys.argv[1], sys.argv[2]
source = sqlite3.connect(f"file:{mirror}?mode=ro", uri=True)
page_size = source.execute("PRAGMA page_size").fetchone()[0]
rows = source.execute(
    "SELECT s.session_id, e.seq, e.ts, e.kind, e.text, e.update_json FROM events e "
    "JOIN sessions s ON s.session_no = e.session_no ORDER BY e.event_id").fetchall()
entries = source.execute(
    "SELECT n.entry_id, (SELECT group_concat(text, '') FROM (SELECT e.text FROM events e WHERE e.session_no = n.session_no "
    "AND e.ordinal BETWEEN n.first_ordinal AND n.last_ordinal AND e.kind = n.kind AND e.origin = n.origin ORDER BY e.ordinal)) "
    "FROM entries n UNION ALL SELECT s.event_id, e.text FROM single_entries s JOIN events e ON e.event_id = s.event_id "
    "ORDER BY 1").fetchall()
source.close()
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(output + suffix):
        os.remove(output + suffix)
db = sqlite3.connect(output, isolation_level=None)
for pragma in (f"page_size={page_size}", "journal_mode=WAL", "synchronous=NORMAL", "temp_store=MEMORY", "cache_size=-32768",
               f"wal_autocheckpoint={(64 << 20) // page_size}"):
    db.execute("PRAGMA " + pragma)
db.executescript("""
CREATE TABLE events (id INTEGER PRIMARY KEY, session_id TEXT, seq INTEGER, ts INTEGER, kind TEXT, text TEXT, update_json TEXT);
CREATE VIRTUAL TABLE entries_fts USING fts5(text, content='');""")
# Neither run pays for the other's writes: what is still to be written to disk is written first.
os.sync()
started = time.monotonic()
for start in range(0, len(rows), 20000):
    db.execute("BEGIN")
    db.executemany("INSERT INTO events (session_id, seq, ts, kind, text, update_json) VALUES (?,?,?,?,?,?)", rows[start:start + 20000])
    db.execute("COMMIT")
for start in range(0, len(entries), 20000):
    db.execute("BEGIN")
    db.executemany("INSERT INTO entries_fts (rowid, text) VALUES (?,?)", entries[start:start + 20000])
    db.execute("COMMIT")
print(f"{time.monotonic() - started:.3f}")
