/* The history's schema: numbered migrations, written once for both backends, each applied once
 * and recorded in schema_version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "history/migrations.h"

/* Migration N is migrations[N - 1]; a store at version V runs those after V, in order, in one
 * transaction with the row that records them. {ID} and {BLOB} stand for the dialect's surrogate
 * key and byte string (kb_backend). A migration is never edited once released: a change to
 * the schema is a new one at the end. */
static const char *const migrations[] = {
    /* 1: everything. A series is a case name on a machine with a build; a case is one run's
     * summary of a series, its raw samples (float64 little-endian, nanoseconds per sample of
     * calls_per_sample calls) one row per repetition of the case. */
    "CREATE TABLE machines ("
    " id {ID},"
    " fingerprint TEXT NOT NULL UNIQUE,"
    " description TEXT NOT NULL,"
    " facts TEXT NOT NULL);"
    "CREATE TABLE builds ("
    " id {ID},"
    " fingerprint TEXT NOT NULL UNIQUE,"
    " description TEXT NOT NULL,"
    " facts TEXT NOT NULL);"
    "CREATE TABLE runs ("
    " id {ID},"
    " content_hash TEXT NOT NULL UNIQUE,"
    " source TEXT NOT NULL,"
    " kind TEXT NOT NULL,"
    " started_at BIGINT NOT NULL,"
    " git_commit TEXT,"
    " git_branch TEXT,"
    " hostname TEXT,"
    " kbench_version TEXT,"
    " settings TEXT,"
    " machine_id BIGINT NOT NULL REFERENCES machines (id),"
    " build_id BIGINT NOT NULL REFERENCES builds (id),"
    " ingested_at BIGINT NOT NULL);"
    "CREATE INDEX runs_started_at ON runs (started_at);"
    "CREATE TABLE series ("
    " id {ID},"
    " name TEXT NOT NULL,"
    " machine_id BIGINT NOT NULL REFERENCES machines (id),"
    " build_id BIGINT NOT NULL REFERENCES builds (id),"
    " UNIQUE (name, machine_id, build_id));"
    "CREATE TABLE cases ("
    " run_id BIGINT NOT NULL REFERENCES runs (id),"
    " series_id BIGINT NOT NULL REFERENCES series (id),"
    " status TEXT NOT NULL,"
    " error TEXT,"
    " median_ns DOUBLE PRECISION,"
    " ci_low_ns DOUBLE PRECISION,"
    " ci_high_ns DOUBLE PRECISION,"
    " mad_ns DOUBLE PRECISION,"
    " n_samples BIGINT NOT NULL,"
    " calls_per_sample BIGINT NOT NULL,"
    " gb_per_s DOUBLE PRECISION,"
    " percent_of_bound DOUBLE PRECISION,"
    " flags TEXT NOT NULL,"
    " PRIMARY KEY (series_id, run_id));"
    "CREATE INDEX cases_run_id ON cases (run_id);"
    "CREATE TABLE samples ("
    " run_id BIGINT NOT NULL REFERENCES runs (id),"
    " series_id BIGINT NOT NULL REFERENCES series (id),"
    " repetition INTEGER NOT NULL,"
    " ns {BLOB} NOT NULL,"
    " PRIMARY KEY (run_id, series_id, repetition))",
};

enum { nmigrations = sizeof migrations / sizeof migrations[0] };

int kb_history_latest_version(void) {
    return nmigrations;
}

/* sql with the dialect's words in place of {ID} and {BLOB}; NULL when out of memory. */
static char *in_dialect(const kb_backend *b, const char *sql) {
    size_t extra = strlen(b->id_type) + strlen(b->blob_type), n = strlen(sql);
    for (const char *c = sql; (c = strchr(c, '{')); c++)
        n += extra;
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    while (*sql) {
        const char *word = strncmp(sql, "{ID}", 4) == 0     ? b->id_type
                           : strncmp(sql, "{BLOB}", 6) == 0 ? b->blob_type
                                                            : NULL;
        if (word) {
            o = stpcpy(o, word);
            sql = strchr(sql, '}') + 1;
        } else {
            *o++ = *sql++;
        }
    }
    *o = '\0';
    return out;
}

/* The version recorded, 0 for a store without the table; -1 (failing) on an error. */
static int recorded_version(kb_history *h) {
    kb_stmt *s;
    if (h->b->prepare(h->db, "SELECT COALESCE(MAX(version), 0) FROM schema_version", &s) != KB_OK)
        return -1;
    bool row;
    int version = h->b->step(s, &row) == KB_OK && row ? (int)h->b->column_int(s, 0) : -1;
    h->b->finalize(s);
    return version;
}

static kb_status apply(kb_history *h, int version) {
    char *sql = in_dialect(h->b, migrations[version - 1]);
    if (!sql)
        return kb_fail(KB_ENOMEM, "out of memory");
    kb_status st = h->b->exec(h->db, sql);
    free(sql);
    kb_stmt *s;
    if (st != KB_OK ||
        (st = h->b->prepare(h->db, "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                            &s)) != KB_OK)
        return st;
    bool row;
    if ((st = h->b->bind_int(s, 1, version)) == KB_OK &&
        (st = h->b->bind_int(s, 2, (int64_t)time(NULL))) == KB_OK)
        st = h->b->step(s, &row);
    h->b->finalize(s);
    return st;
}

kb_status kb_history_migrate(kb_history *h) {
    /* A store already at this version is only read: opening it to read takes no write lock. */
    int version = recorded_version(h);
    if (version == nmigrations)
        return KB_OK;
    kb_status st = h->b->begin(h->db, true);
    if (st != KB_OK)
        return st;
    st = h->b->exec(h->db, "CREATE TABLE IF NOT EXISTS schema_version ("
                           " version INTEGER PRIMARY KEY,"
                           " applied_at BIGINT NOT NULL)");
    /* Read again under the lock: another process may have migrated in between. */
    if (st == KB_OK && (version = recorded_version(h)) < 0)
        st = KB_EIO;
    if (st == KB_OK && version > nmigrations)
        st = kb_fail(KB_EUNSUPPORTED,
                     "the history is at schema version %d, newer than this kbench knows (%d); "
                     "update kbench",
                     version, nmigrations);
    for (int v = version + 1; st == KB_OK && v <= nmigrations; v++)
        st = apply(h, v);
    if (st == KB_OK)
        st = h->b->commit(h->db);
    if (st != KB_OK)
        h->b->rollback(h->db);
    return st;
}
