#!/usr/bin/env python3
"""What SQLite alone takes to store a mirror's rows in the mirror's own tables: reads (untimed) the
events and entries of MIRROR, and the entries' texts, then times, each into a new database under the
mirror's pragmas and page size, in transactions of 20,000 rows by executemany, in the mirror's
order: the events into a table with the events table's definition alone, then with its indexes;
the entries of messages the same way, and the single events' entries; the entries' texts into a
full-text table defined as the mirror's. The floor under `oa-sync-bench`'s ratio that the schema
sets (`sqlite-baseline.py` stores the events in a plain table and the texts alone). Then what
storing less would cost: the texts into a full-text table of the text alone (no kind or session
column). Last, the floor with no client at all: the same rows copied by `INSERT ... SELECT` from
a database that holds them ready, in the same transactions, into the mirror's tables with their
indexes and into its full-text table; what no program that stores these rows can go under.
Prints seconds per step. Usage: sqlite-schema-floor.py MIRROR"""
import os, sqlite3, sys, time

mirror = sys.argv[1]
output = "/tmp/sqlite-schema-floor.sqlite"
ready = "/tmp/sqlite-schema-floor-rows.sqlite"
source = sqlite3.connect(f"file:{mirror}?mode=ro", uri=True)
page_size = source.execute("PRAGMA page_size").fetchone()[0]


def definitions(table):
    return [sql for (sql,) in source.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('table', 'index') AND sql IS NOT NULL "
        "ORDER BY type DESC", (table,))]


def columns(table):
    return [row[1] for row in source.execute(f"PRAGMA table_info({table})")]


event_columns, entry_columns, single_columns = columns("events"), columns("entries"), columns("single_entries")
events = source.execute(f"SELECT {', '.join(event_columns)} FROM events ORDER BY event_id").fetchall()
entries = source.execute(f"SELECT {', '.join(entry_columns)} FROM entries ORDER BY entry_id").fetchall()
singles = source.execute(f"SELECT {', '.join(single_columns)} FROM single_entries ORDER BY event_id").fetchall()
texts = source.execute(
    "SELECT n.entry_id, (SELECT group_concat(text, '') FROM (SELECT e.text FROM events e WHERE e.session_no = n.session_no "
    "AND e.ordinal BETWEEN n.first_ordinal AND n.last_ordinal AND e.kind = n.kind AND e.origin = n.origin ORDER BY e.ordinal)), "
    "'k' || hex(n.kind), 's' || n.session_no FROM entries n "
    "UNION ALL SELECT e.event_id, e.text, 'k' || hex(e.kind), 's' || e.session_no FROM single_entries s JOIN events e USING (event_id) "
    "ORDER BY 1").fetchall()
fts = source.execute("SELECT sql FROM sqlite_master WHERE name = 'entries_fts'").fetchone()[0]
event_tables, entry_tables, single_tables = definitions("events"), definitions("entries"), definitions("single_entries")
source.close()


def fresh(path):
    """A new, empty database at `path`, in autocommit mode."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return sqlite3.connect(path, isolation_level=None)


def mirror_like(statements):
    """A new database at `output` under the mirror's pragmas and page size, with `statements` run."""
    db = fresh(output)
    for pragma in (f"page_size={page_size}", "journal_mode=WAL", "synchronous=NORMAL", "temp_store=MEMORY",
                   "cache_size=-32768", f"wal_autocheckpoint={(64 << 20) // page_size}"):
        db.execute("PRAGMA " + pragma)
    for statement in statements:
        db.execute(statement)
    return db


def timed(name, statements, table, names, rows):
    db = mirror_like(statements)
    os.sync()
    insert = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    started = time.monotonic()
    for start in range(0, len(rows), 20000):
        db.execute("BEGIN")
        db.executemany(insert, rows[start:start + 20000])
        db.execute("COMMIT")
    print(f"{name}: {time.monotonic() - started:.3f} s")
    db.close()


timed(f"{len(events)} events, the table alone", event_tables[:1], "events", event_columns, events)
timed(f"{len(events)} events, with its indexes", event_tables, "events", event_columns, events)
timed(f"{len(entries)} entries of messages, the table alone", entry_tables[:1], "entries", entry_columns, entries)
timed(f"{len(entries)} entries of messages, with its indexes", entry_tables, "entries", entry_columns, entries)
timed(f"{len(singles)} entries of single events", single_tables, "single_entries", single_columns, singles)
timed(f"{len(texts)} entries' texts into the full-text table", [fts], "entries_fts", ["rowid", "text", "kind", "session"], texts)
text_alone = "CREATE VIRTUAL TABLE entries_fts USING fts5 (text, content = '', tokenize = 'unicode61 remove_diacritics 2')"
timed(f"{len(texts)} entries' texts into a full-text table of the text alone", [text_alone], "entries_fts", ["rowid", "text"],
      [row[:2] for row in texts])


# The rows ready in a database of their own (untimed), each table in the order it is inserted in.
db = fresh(ready)
db.execute("BEGIN")
for table, names, rows in (("events", event_columns, events), ("entries", entry_columns, entries),
                           ("single_entries", single_columns, singles), ("texts", ["id", "text", "kind", "session"], texts)):
    db.execute(f"CREATE TABLE {table} ({', '.join(names)})")
    db.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(names))})", rows)
db.execute("COMMIT")
db.close()
total = 0.0
for table, statements, names, source_names in (("events", event_tables, event_columns, event_columns),
                                               ("entries", entry_tables, entry_columns, entry_columns),
                                               ("single_entries", single_tables, single_columns, single_columns),
                                               ("entries_fts", [fts], ["rowid", "text", "kind", "session"], ["id", "text", "kind", "session"])):
    db = mirror_like(statements)
    db.execute(f"ATTACH '{ready}' AS ready")
    source = "texts" if table == "entries_fts" else table
    count = db.execute(f"SELECT count(*) FROM ready.{source}").fetchone()[0]
    os.sync()
    started = time.monotonic()
    for start in range(0, count, 20000):
        db.execute("BEGIN")
        db.execute(f"INSERT INTO main.{table} ({', '.join(names)}) SELECT {', '.join(source_names)} FROM ready.{source} "
                   f"WHERE rowid > {start} AND rowid <= {start + 20000}")
        db.execute("COMMIT")
    elapsed = time.monotonic() - started
    total += elapsed
    print(f"{count} rows into {table} by INSERT ... SELECT{'' if table == 'entries_fts' else ', with its indexes'}: {elapsed:.3f} s")
    db.close()
print(f"the mirror's rows by INSERT ... SELECT, every table: {total:.3f} s")
for path in (ready, output):
    fresh(path).close()
    os.remove(path)
