/* The history's SQLite backend: one database file in WAL mode. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "core/internal.h"
#include "history/backend.h"

/* How long a writer waits for another one before giving up. An ingest of a large results file
 * holds the write lock for a second or two; several of them queue. */
#define BUSY_TIMEOUT_MS 120000

static kb_status fail(sqlite3 *db, const char *what) {
    return kb_fail(KB_EIO, "sqlite: %s: %s", what, sqlite3_errmsg(db));
}

static kb_status sq_exec(void *db, const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) == SQLITE_OK)
        return KB_OK;
    kb_status st = kb_fail(KB_EIO, "sqlite: %s", message ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    return st;
}

/* WAL and synchronous=NORMAL. Setting WAL on a database no process has set it on yet takes the
 * exclusive lock, and where processes race for it SQLite answers SQLITE_BUSY at once, without
 * the busy handler, rather than risk a deadlock (four history adds into a new store lost one
 * run so): try again every 10 ms for as long as the busy timeout. */
static kb_status set_journal(sqlite3 *db) {
    for (int waited = 0;; waited += 10) {
        kb_status st = sq_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
        if (st == KB_OK || sqlite3_errcode(db) != SQLITE_BUSY || waited >= BUSY_TIMEOUT_MS)
            return st;
        sqlite3_sleep(10);
    }
}

static kb_status sq_open(const char *target, void **out) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(target, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        kb_status st = kb_fail(KB_EIO, "sqlite: cannot open %s: %s", target,
                               db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return st;
    }
    /* WAL lets readers go on while one process writes, and the busy timeout makes concurrent
     * writers wait their turn instead of failing. synchronous=NORMAL keeps every committed
     * transaction across a crash of the process (not of the machine), at a fraction of the
     * cost of FULL. */
    sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    kb_status st = set_journal(db);
    if (st != KB_OK) {
        kb_fail_prefix(st, target);
        sqlite3_close(db);
        return st;
    }
    *out = db;
    return KB_OK;
}

static void sq_close(void *db) {
    sqlite3_close(db);
}

static kb_status sq_begin(void *db, bool migration) {
    return sq_exec(db, "BEGIN IMMEDIATE");
}

static kb_status sq_commit(void *db) {
    return sq_exec(db, "COMMIT");
}

static void sq_rollback(void *db) {
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

/* BEGIN IMMEDIATE and the busy timeout leave nothing to try again. */
static bool sq_retryable(void *db) {
    return false;
}

struct kb_stmt {
    sqlite3_stmt *s;
    sqlite3 *db;
    bool done;
};

static kb_status sq_prepare(void *db, const char *sql, kb_stmt **out) {
    kb_stmt *s = calloc(1, sizeof *s);
    if (!s)
        return kb_fail(KB_ENOMEM, "out of memory");
    s->db = db;
    if (sqlite3_prepare_v2(db, sql, -1, &s->s, NULL) != SQLITE_OK) {
        kb_status st = fail(db, "prepare");
        free(s);
        return st;
    }
    *out = s;
    return KB_OK;
}

static kb_status bound(kb_stmt *s, int rc) {
    return rc == SQLITE_OK ? KB_OK : fail(s->db, "bind");
}

static kb_status sq_bind_int(kb_stmt *s, int i, int64_t v) {
    return bound(s, sqlite3_bind_int64(s->s, i, v));
}

static kb_status sq_bind_double(kb_stmt *s, int i, double v) {
    return bound(s, isnan(v) ? sqlite3_bind_null(s->s, i) : sqlite3_bind_double(s->s, i, v));
}

static kb_status sq_bind_text(kb_stmt *s, int i, const char *v) {
    return bound(s, v ? sqlite3_bind_text(s->s, i, v, -1, SQLITE_TRANSIENT)
                      : sqlite3_bind_null(s->s, i));
}

static kb_status sq_bind_blob(kb_stmt *s, int i, const void *v, size_t n) {
    return bound(s, sqlite3_bind_blob64(s->s, i, v, n, SQLITE_TRANSIENT));
}

static kb_status sq_step(kb_stmt *s, bool *row) {
    *row = false;
    if (s->done)
        return KB_OK;
    int rc = sqlite3_step(s->s);
    if (rc == SQLITE_ROW) {
        *row = true;
        return KB_OK;
    }
    s->done = true;
    return rc == SQLITE_DONE ? KB_OK : fail(s->db, "step");
}

static int64_t sq_column_int(kb_stmt *s, int i) {
    return sqlite3_column_int64(s->s, i);
}

static double sq_column_double(kb_stmt *s, int i) {
    return sqlite3_column_type(s->s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s->s, i);
}

static const char *sq_column_text(kb_stmt *s, int i) {
    return (const char *)sqlite3_column_text(s->s, i);
}

static void sq_reset(kb_stmt *s) {
    sqlite3_reset(s->s);
    sqlite3_clear_bindings(s->s);
    s->done = false;
}

static void sq_finalize(kb_stmt *s) {
    if (s) {
        sqlite3_finalize(s->s);
        free(s);
    }
}

const kb_backend kb_sqlite_backend = {
    .name = "sqlite",
    .id_type = "INTEGER PRIMARY KEY",
    .blob_type = "BLOB",
    .open = sq_open,
    .close = sq_close,
    .exec = sq_exec,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .retryable = sq_retryable,
    .prepare = sq_prepare,
    .bind_int = sq_bind_int,
    .bind_double = sq_bind_double,
    .bind_text = sq_bind_text,
    .bind_blob = sq_bind_blob,
    .step = sq_step,
    .column_int = sq_column_int,
    .column_double = sq_column_double,
    .column_text = sq_column_text,
    .reset = sq_reset,
    .finalize = sq_finalize,
};
