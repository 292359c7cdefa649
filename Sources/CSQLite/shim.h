// SQLite's C API (libsqlite3-dev), for the MBTiles files geo tiles writes. Headers only:
// SystemLibraries loads libsqlite3 on first use.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: SQLite
// copies a value bound with it before the call returns.
static inline sqlite3_destructor_type geo_sqlite_transient(void) { return SQLITE_TRANSIENT; }
