#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast that Swift cannot import; this is the same value as a function.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Turns off SQLite's statistics of the memory it allocates, which take a process-wide mutex on
/// every allocation and free. Takes effect only before SQLite is first used in the process
/// (SQLITE_MISUSE after); memory limits and sqlite3_memory_used() need them, the mirror uses neither.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
