// SQLite (libsqlite3), loaded on first use, so that only `geo tiles` with an MBTiles file (its output, or a part it merges) loads it:
// see lazy_library.h.
// The header's own export macro, set to hidden: these wrappers stay inside the executable.
#define SQLITE_API __attribute__((visibility("hidden")))
#include <sqlite3.h>

#include "lazy_library.h"

static struct lazy_library sqlite = {
    {"libsqlite3.so.0", "libsqlite3.so"}, "SQLite", "libsqlite3-0", PTHREAD_MUTEX_INITIALIZER, NULL,
};
#define LAZY_LIBRARY sqlite

FORWARD(int, sqlite3_bind_blob, (sqlite3_stmt *statement, int index, const void *value, int size, void (*destructor)(void *)),
        (statement, index, value, size, destructor))
FORWARD(int, sqlite3_bind_int, (sqlite3_stmt *statement, int index, int value), (statement, index, value))
FORWARD(int, sqlite3_bind_text, (sqlite3_stmt *statement, int index, const char *value, int size, void (*destructor)(void *)),
        (statement, index, value, size, destructor))
FORWARD(int, sqlite3_close, (sqlite3 *database), (database))
FORWARD(const void *, sqlite3_column_blob, (sqlite3_stmt *statement, int column), (statement, column))
FORWARD(int, sqlite3_column_bytes, (sqlite3_stmt *statement, int column), (statement, column))
FORWARD(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *statement, int column), (statement, column))
FORWARD(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *statement, int column), (statement, column))
FORWARD(int, sqlite3_column_type, (sqlite3_stmt *statement, int column), (statement, column))
FORWARD(const char *, sqlite3_errmsg, (sqlite3 *database), (database))
FORWARD(int, sqlite3_exec, (sqlite3 *database, const char *sql, int (*callback)(void *, int, char **, char **), void *argument, char **error),
        (database, sql, callback, argument, error))
FORWARD(int, sqlite3_finalize, (sqlite3_stmt *statement), (statement))
FORWARD(int, sqlite3_open_v2, (const char *filename, sqlite3 **database, int flags, const char *vfs), (filename, database, flags, vfs))
FORWARD(int, sqlite3_prepare_v2, (sqlite3 *database, const char *sql, int size, sqlite3_stmt **statement, const char **tail),
        (database, sql, size, statement, tail))
FORWARD(int, sqlite3_reset, (sqlite3_stmt *statement), (statement))
FORWARD(int, sqlite3_step, (sqlite3_stmt *statement), (statement))
