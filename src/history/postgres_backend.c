/* The history's PostgreSQL backend, through libpq: a server the whole team writes to. libpq is
 * loaded (dlopen) when the first PostgreSQL store is opened, not linked: with the twenty
 * libraries it brings (TLS, Kerberos, LDAP, ...) it took 8 ms of every kbench command's start
 * (11 ms in the sanitizer build), where most commands never open a history. */
#include <dlfcn.h>
#include <libpq-fe.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "history/backend.h"

/* libpq's soname since PostgreSQL 8.2, the interface of libpq-fe.h; found where the dynamic
 * loader looks (ld.so.conf, LD_LIBRARY_PATH). */
#define LIBPQ_SONAME "libpq.so.5"

/* The libpq functions this backend calls, each named once: X(name) for every one. */
#define PQ_FUNCTIONS(X)                                                                            \
    X(PQclear)                                                                                     \
    X(PQconnectdb)                                                                                 \
    X(PQerrorMessage)                                                                              \
    X(PQexec)                                                                                      \
    X(PQexecPrepared)                                                                              \
    X(PQfinish)                                                                                    \
    X(PQgetisnull)                                                                                 \
    X(PQgetvalue)                                                                                  \
    X(PQntuples)                                                                                   \
    X(PQprepare)                                                                                   \
    X(PQresultErrorField)                                                                          \
    X(PQresultErrorMessage)                                                                        \
    X(PQresultStatus)                                                                              \
    X(PQsetNoticeProcessor)                                                                        \
    X(PQstatus)                                                                                    \
    X(PQtransactionStatus)

/* Those functions, with libpq-fe.h's types: pq.PQexec(...). */
#define PQ_POINTER(name) __typeof__(name) *name;
static struct { PQ_FUNCTIONS(PQ_POINTER) } pq;
#undef PQ_POINTER
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_error[256]; /* why loading failed; empty when it did not */

static void pq_load(void) {
    void *lib = dlopen(LIBPQ_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(pq_error, sizeof pq_error, "%s", dlerror());
        return;
    }
    /* dlsym's object pointer copied into the function pointer of the same name */
#define PQ_SYMBOL(name)                                                                            \
    if (!pq_error[0]) {                                                                            \
        void *f = dlsym(lib, #name);                                                               \
        if (f)                                                                                     \
            memcpy(&pq.name, &f, sizeof pq.name);                                                  \
        else                                                                                       \
            snprintf(pq_error, sizeof pq_error, "%s", dlerror());                                  \
    }
    PQ_FUNCTIONS(PQ_SYMBOL)
#undef PQ_SYMBOL
    if (pq_error[0])
        dlclose(lib);
}

/* libpq's functions in pq, or a failure naming what is missing and how to install it. */
static kb_status pq_ready(void) {
    pthread_once(&pq_once, pq_load);
    if (!pq_error[0])
        return KB_OK;
    return kb_fail(KB_EUNSUPPORTED,
                   "postgresql: cannot load libpq (%s); install it (Debian: apt install libpq5)",
                   pq_error);
}

/* The key of the advisory lock that makes migrations wait for each other ("kbhist"). */
#define MIGRATION_LOCK "7013291630326644"

typedef struct pg {
    PGconn *conn;
    int statements;   /* names the prepared statements of this connection */
    char sqlstate[6]; /* of the last failure */
} pg;

/* Fails with the server's message for result (NULL: the connection's), keeping its SQLSTATE
 * for retryable. */
static kb_status fail(pg *p, const PGresult *result, const char *what) {
    const char *state = result ? pq.PQresultErrorField(result, PG_DIAG_SQLSTATE) : NULL;
    snprintf(p->sqlstate, sizeof p->sqlstate, "%s", state ? state : "");
    const char *message = result ? pq.PQresultErrorMessage(result) : pq.PQerrorMessage(p->conn);
    /* libpq's messages end in a newline and may run over several lines: the first says it. */
    size_t n = strcspn(message, "\n");
    return kb_fail(KB_EIO, "postgresql: %s: %.*s", what, (int)n, message);
}

/* Notices ("relation already exists, skipping") are not the library's to print. */
static void ignore_notice(void *arg, const char *message) {}

static kb_status pg_open(const char *target, void **out) {
    kb_status loaded = pq_ready();
    if (loaded != KB_OK)
        return loaded;
    pg *p = calloc(1, sizeof *p);
    if (!p)
        return kb_fail(KB_ENOMEM, "out of memory");
    p->conn = pq.PQconnectdb(target);
    if (!p->conn || pq.PQstatus(p->conn) != CONNECTION_OK) {
        kb_status st = p->conn ? fail(p, NULL, "cannot connect")
                               : kb_fail(KB_ENOMEM, "postgresql: out of memory");
        pq.PQfinish(p->conn);
        free(p);
        return st;
    }
    pq.PQsetNoticeProcessor(p->conn, ignore_notice, NULL);
    *out = p;
    return KB_OK;
}

static void pg_close(void *db) {
    pg *p = db;
    pq.PQfinish(p->conn);
    free(p);
}

static kb_status pg_exec(void *db, const char *sql) {
    pg *p = db;
    PGresult *r = pq.PQexec(p->conn, sql);
    ExecStatusType status = pq.PQresultStatus(r);
    kb_status st =
        status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK ? KB_OK : fail(p, r, "exec");
    pq.PQclear(r);
    return st;
}

static kb_status pg_begin(void *db, bool migration) {
    return pg_exec(db,
                   migration ? "BEGIN; SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")" : "BEGIN");
}

static kb_status pg_commit(void *db) {
    return pg_exec(db, "COMMIT");
}

static void pg_rollback(void *db) {
    pg *p = db;
    if (pq.PQtransactionStatus(p->conn) != PQTRANS_IDLE)
        pq.PQclear(pq.PQexec(p->conn, "ROLLBACK"));
}

/* Serialization failure, deadlock, a unique key a concurrent transaction took first. */
static bool pg_retryable(void *db) {
    const pg *p = db;
    return strcmp(p->sqlstate, "40001") == 0 || strcmp(p->sqlstate, "40P01") == 0 ||
           strcmp(p->sqlstate, "23505") == 0;
}

struct kb_stmt {
    pg *p;
    char name[16];
    int nparams;
    char **values;
    int *lengths;
    int *formats;
    PGresult *result;
    int row, nrows;
};

static void free_stmt(kb_stmt *s) {
    free(s->values);
    free(s->lengths);
    free(s->formats);
    free(s);
}

static kb_status pg_prepare(void *db, const char *sql, kb_stmt **out) {
    pg *p = db;
    int n = 0;
    for (const char *c = sql; *c; c++)
        n += *c == '?';
    kb_stmt *s = calloc(1, sizeof *s);
    /* '?' becomes $1, $2, ...: at most ten characters each. */
    char *text = malloc(strlen(sql) + 10 * (size_t)n + 1);
    if (s) {
        s->values = calloc((size_t)n + 1, sizeof *s->values);
        s->lengths = calloc((size_t)n + 1, sizeof *s->lengths);
        s->formats = calloc((size_t)n + 1, sizeof *s->formats);
    }
    if (!s || !text || !s->values || !s->lengths || !s->formats) {
        if (s)
            free_stmt(s);
        free(text);
        return kb_fail(KB_ENOMEM, "out of memory");
    }
    size_t used = 0;
    for (const char *c = sql; *c; c++) {
        if (*c == '?')
            used += (size_t)sprintf(text + used, "$%d", ++s->nparams);
        else
            text[used++] = *c;
    }
    text[used] = '\0';
    s->p = p;
    snprintf(s->name, sizeof s->name, "kb%d", p->statements++);
    PGresult *r = pq.PQprepare(p->conn, s->name, text, 0, NULL);
    free(text);
    kb_status st = pq.PQresultStatus(r) == PGRES_COMMAND_OK ? KB_OK : fail(p, r, "prepare");
    pq.PQclear(r);
    if (st != KB_OK) {
        free_stmt(s);
        return st;
    }
    *out = s;
    return KB_OK;
}

/* Keeps a copy of n bytes as parameter i, in text (0) or binary (1) format; NULL is SQL NULL. */
static kb_status set_param(kb_stmt *s, int i, const void *v, size_t n, int format) {
    if (i < 1 || i > s->nparams)
        return kb_fail(KB_EINVAL, "postgresql: parameter %d of %d", i, s->nparams);
    char *copy = NULL;
    if (v && !(copy = malloc(n + 1)))
        return kb_fail(KB_ENOMEM, "out of memory");
    if (copy) {
        memcpy(copy, v, n);
        copy[n] = '\0';
    }
    free(s->values[i - 1]);
    s->values[i - 1] = copy;
    s->lengths[i - 1] = (int)n;
    s->formats[i - 1] = format;
    return KB_OK;
}

static kb_status pg_bind_int(kb_stmt *s, int i, int64_t v) {
    char text[24];
    int n = snprintf(text, sizeof text, "%lld", (long long)v);
    return set_param(s, i, text, (size_t)n, 0);
}

static kb_status pg_bind_double(kb_stmt *s, int i, double v) {
    if (isnan(v))
        return set_param(s, i, NULL, 0, 0);
    char text[32];
    /* 17 significant digits read back as the same double; PostgreSQL spells infinity out. */
    int n = isinf(v) ? snprintf(text, sizeof text, "%sInfinity", v < 0 ? "-" : "")
                     : snprintf(text, sizeof text, "%.17g", v);
    return set_param(s, i, text, (size_t)n, 0);
}

static kb_status pg_bind_text(kb_stmt *s, int i, const char *v) {
    return set_param(s, i, v, v ? strlen(v) : 0, 0);
}

static kb_status pg_bind_blob(kb_stmt *s, int i, const void *v, size_t n) {
    return set_param(s, i, v ? v : "", n, 1);
}

static kb_status pg_step(kb_stmt *s, bool *row) {
    *row = false;
    if (!s->result) {
        s->result = pq.PQexecPrepared(s->p->conn, s->name, s->nparams,
                                      (const char *const *)s->values, s->lengths, s->formats, 0);
        ExecStatusType status = pq.PQresultStatus(s->result);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
            return fail(s->p, s->result, "execute");
        s->row = -1;
        s->nrows = pq.PQntuples(s->result);
    }
    if (s->row + 1 < s->nrows) {
        s->row++;
        *row = true;
    }
    return KB_OK;
}

static const char *pg_column_text(kb_stmt *s, int i) {
    return pq.PQgetisnull(s->result, s->row, i) ? NULL : pq.PQgetvalue(s->result, s->row, i);
}

static int64_t pg_column_int(kb_stmt *s, int i) {
    const char *v = pg_column_text(s, i);
    return v ? strtoll(v, NULL, 10) : 0;
}

static double pg_column_double(kb_stmt *s, int i) {
    const char *v = pg_column_text(s, i);
    return v ? strtod(v, NULL) : NAN;
}

static void pg_reset(kb_stmt *s) {
    pq.PQclear(s->result);
    s->result = NULL;
    for (int i = 0; i < s->nparams; i++) {
        free(s->values[i]);
        s->values[i] = NULL;
    }
}

static void pg_finalize(kb_stmt *s) {
    if (!s)
        return;
    pg_reset(s);
    /* In a failed transaction the server refuses this too; the name is never used again. */
    char sql[32];
    snprintf(sql, sizeof sql, "DEALLOCATE %s", s->name);
    pq.PQclear(pq.PQexec(s->p->conn, sql));
    free_stmt(s);
}

const kb_backend kb_postgres_backend = {
    .name = "postgresql",
    .id_type = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    .blob_type = "BYTEA",
    .open = pg_open,
    .close = pg_close,
    .exec = pg_exec,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .retryable = pg_retryable,
    .prepare = pg_prepare,
    .bind_int = pg_bind_int,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .bind_blob = pg_bind_blob,
    .step = pg_step,
    .column_int = pg_column_int,
    .column_double = pg_column_double,
    .column_text = pg_column_text,
    .reset = pg_reset,
    .finalize = pg_finalize,
};
