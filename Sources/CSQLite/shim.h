#ifndef CHARTWIRE_CSQLITE_SHIM_H
#define CHARTWIRE_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <sys/file.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer: Swift cannot import it. */
static inline sqlite3_destructor_type cw_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
