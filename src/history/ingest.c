/* `history add`: results files into the store, each in one transaction, once. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "history/backend.h"
#include "history/run.h"
#include "kbench/threads.h"
#include "util/internal.h"

/* A conflict with a concurrent writer is tried again this many times in all. */
#define ATTEMPTS 8

/* The statements of an ingest that find or add one row, prepared once for all the files. */
enum {
    FIND_MACHINE,
    ADD_MACHINE,
    FIND_BUILD,
    ADD_BUILD,
    ADD_RUN,
    FIND_RUN,
    LIST_SERIES,
    NSTATEMENTS
};

static const char *const statements[NSTATEMENTS] = {
    [FIND_MACHINE] = "SELECT id FROM machines WHERE fingerprint = ?",
    [ADD_MACHINE] = "INSERT INTO machines (fingerprint, description, facts) VALUES (?, ?, ?)"
                    " ON CONFLICT (fingerprint) DO NOTHING RETURNING id",
    [FIND_BUILD] = "SELECT id FROM builds WHERE fingerprint = ?",
    [ADD_BUILD] = "INSERT INTO builds (fingerprint, description, facts) VALUES (?, ?, ?)"
                  " ON CONFLICT (fingerprint) DO NOTHING RETURNING id",
    [ADD_RUN] = "INSERT INTO runs (content_hash, source, kind, started_at, git_commit, git_branch,"
                " hostname, kbench_version, settings, machine_id, build_id, ingested_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (content_hash) DO NOTHING RETURNING id",
    [FIND_RUN] = "SELECT id FROM runs WHERE content_hash = ?",
    [LIST_SERIES] = "SELECT name, id FROM series WHERE machine_id = ? AND build_id = ?",
};

/* Rows go in ROWS at a time, one statement of many VALUES: a round trip to a PostgreSQL
 * server per row would cost more than everything else an ingest does. */
#define ROWS 64

/* The tables an ingest adds many rows to. */
enum { SERIES_ROWS, CASE_ROWS, SAMPLE_ROWS, NTABLES };

static const struct table {
    const char *head; /* up to VALUES */
    int ncolumns;
    const char *tail; /* after the rows */
} tables[NTABLES] = {
    [SERIES_ROWS] = {"INSERT INTO series (name, machine_id, build_id) VALUES ", 3,
                     " ON CONFLICT (name, machine_id, build_id) DO NOTHING"},
    [CASE_ROWS] = {"INSERT INTO cases (run_id, series_id, status, error, median_ns, ci_low_ns,"
                   " ci_high_ns, mad_ns, n_samples, calls_per_sample, gb_per_s,"
                   " percent_of_bound, flags) VALUES ",
                   13, ""},
    [SAMPLE_ROWS] = {"INSERT INTO samples (run_id, series_id, repetition, ns) VALUES ", 4, ""},
};

/* A series known to the store: its name and id, sorted by name (strcmp). */
typedef struct known {
    char *name;
    int64_t id;
} known;

/* A repetition's samples: the case (index in the run), the repetition, its first sample and
 * their count. */
typedef struct repetition {
    int c, r;
    int64_t first, n;
} repetition;

typedef struct ingest {
    kb_history *h;
    kb_stmt *s[NSTATEMENTS];
    kb_stmt *full[NTABLES]; /* of ROWS rows, prepared when first needed */
    unsigned char *blob;    /* the samples of one repetition, encoded */
    size_t blob_size;
    /* The file being stored. */
    const kb_hrun *run;
    int64_t run_id, machine, build;
    int64_t *series; /* each case's series */
    known *known;
    size_t nknown;
    repetition *reps;
} ingest;

/* Runs statement k (bound already); *id is the first column of its first row, 0 for none. */
static kb_status execute(ingest *in, int k, int64_t *id) {
    const kb_backend *b = in->h->b;
    bool row;
    kb_status st = b->step(in->s[k], &row);
    if (id)
        *id = st == KB_OK && row ? b->column_int(in->s[k], 0) : 0;
    b->reset(in->s[k]);
    return st;
}

/* The id of the row keyed by key in a table of machines or builds, added when missing. A
 * concurrent writer may add it between the two statements: then the second finds nothing and
 * the first, run again, finds it. */
static kb_status find_or_add(ingest *in, int find, int add, const char *key,
                             const char *description, const char *facts, int64_t *id) {
    const kb_backend *b = in->h->b;
    kb_status st;
    for (int k = 0; k < 2; k++) {
        if ((st = b->bind_text(in->s[find], 1, key)) != KB_OK ||
            (st = execute(in, find, id)) != KB_OK || *id)
            return st;
        if ((st = b->bind_text(in->s[add], 1, key)) != KB_OK ||
            (st = b->bind_text(in->s[add], 2, description)) != KB_OK ||
            (st = b->bind_text(in->s[add], 3, facts)) != KB_OK ||
            (st = execute(in, add, id)) != KB_OK || *id)
            return st;
    }
    return kb_fail(KB_EIO, "'%s' neither found nor added", key);
}

/* Samples as float64, little-endian whatever the machine: nanoseconds, exact below 2^53. */
static kb_status encode(ingest *in, const kb_hcase *c, int64_t first, int64_t n) {
    if ((size_t)n * 8 > in->blob_size) {
        unsigned char *grown = realloc(in->blob, (size_t)n * 8);
        if (!grown)
            return kb_fail(KB_ENOMEM, "out of memory");
        in->blob = grown;
        in->blob_size = (size_t)n * 8;
    }
    for (int64_t k = 0; k < n; k++) {
        double v = c->sample_ints ? (double)c->sample_ints[first + k] : c->sample_reals[first + k];
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        for (int byte = 0; byte < 8; byte++)
            in->blob[8 * k + byte] = (unsigned char)(bits >> (8 * byte));
    }
    return KB_OK;
}

/* Binds row item of table t from parameter p on. */
static kb_status bind_row(ingest *in, int t, kb_stmt *s, int p, size_t item) {
    const kb_backend *b = in->h->b;
    if (t == SERIES_ROWS) {
        kb_status st = b->bind_text(s, p, in->run->cases[item].name);
        if (st == KB_OK && (st = b->bind_int(s, p + 1, in->machine)) == KB_OK)
            st = b->bind_int(s, p + 2, in->build);
        return st;
    }
    if (t == CASE_ROWS) {
        const kb_hcase *c = &in->run->cases[item];
        kb_status st;
        if ((st = b->bind_int(s, p, in->run_id)) != KB_OK ||
            (st = b->bind_int(s, p + 1, in->series[item])) != KB_OK ||
            (st = b->bind_text(s, p + 2, c->failed ? "failed" : "ok")) != KB_OK ||
            (st = b->bind_text(s, p + 3, c->error)) != KB_OK ||
            (st = b->bind_double(s, p + 4, c->median)) != KB_OK ||
            (st = b->bind_double(s, p + 5, c->ci_low)) != KB_OK ||
            (st = b->bind_double(s, p + 6, c->ci_high)) != KB_OK ||
            (st = b->bind_double(s, p + 7, c->mad)) != KB_OK ||
            (st = b->bind_int(s, p + 8, c->nsamples)) != KB_OK ||
            (st = b->bind_int(s, p + 9, c->calls_per_sample)) != KB_OK ||
            (st = b->bind_double(s, p + 10, c->gb_per_s)) != KB_OK ||
            (st = b->bind_double(s, p + 11, c->percent_of_bound)) != KB_OK)
            return st;
        return b->bind_text(s, p + 12, c->flags);
    }
    const repetition *r = &in->reps[item];
    kb_status st = encode(in, &in->run->cases[r->c], r->first, r->n);
    if (st != KB_OK || (st = b->bind_int(s, p, in->run_id)) != KB_OK ||
        (st = b->bind_int(s, p + 1, in->series[r->c])) != KB_OK ||
        (st = b->bind_int(s, p + 2, r->r)) != KB_OK)
        return st;
    return b->bind_blob(s, p + 3, in->blob, (size_t)r->n * 8);
}

/* The statement that inserts n rows into table t; NULL when out of memory. */
static char *rows_sql(int t, int n) {
    const struct table *x = &tables[t];
    size_t size = strlen(x->head) + strlen(x->tail) + (size_t)n * (3 * (size_t)x->ncolumns + 4) + 1;
    char *sql = malloc(size), *o = sql;
    if (!sql)
        return NULL;
    o = stpcpy(o, x->head);
    for (int r = 0; r < n; r++) {
        o = stpcpy(o, r ? ", (" : "(");
        for (int c = 0; c < x->ncolumns; c++)
            o = stpcpy(o, c ? ", ?" : "?");
        o = stpcpy(o, ")");
    }
    stpcpy(o, x->tail);
    return sql;
}

/* Inserts the rows items[0 .. n) (NULL: 0 .. n) into table t, ROWS to a statement. */
static kb_status insert_rows(ingest *in, int t, const size_t *items, size_t n) {
    const kb_backend *b = in->h->b;
    kb_status st = KB_OK;
    for (size_t first = 0; first < n && st == KB_OK; first += ROWS) {
        int m = n - first < ROWS ? (int)(n - first) : ROWS;
        kb_stmt *s = m == ROWS ? in->full[t] : NULL;
        if (!s) {
            char *sql = rows_sql(t, m);
            st = sql ? b->prepare(in->h->db, sql, &s) : kb_fail(KB_ENOMEM, "out of memory");
            free(sql);
            if (st != KB_OK)
                break;
            if (m == ROWS)
                in->full[t] = s;
        }
        for (int k = 0; k < m && st == KB_OK; k++)
            st = bind_row(in, t, s, 1 + k * tables[t].ncolumns,
                          items ? items[first + k] : first + (size_t)k);
        bool row;
        if (st == KB_OK)
            st = b->step(s, &row);
        b->reset(s);
        if (s != in->full[t])
            b->finalize(s);
    }
    return st;
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const known *)a)->name, ((const known *)b)->name);
}

static void forget_known(ingest *in) {
    for (size_t i = 0; i < in->nknown; i++)
        free(in->known[i].name);
    free(in->known);
    in->known = NULL;
    in->nknown = 0;
}

/* The series of the run's machine and build that the store knows, sorted by name. */
static kb_status list_known(ingest *in) {
    const kb_backend *b = in->h->b;
    kb_stmt *s = in->s[LIST_SERIES];
    forget_known(in);
    size_t cap = 0;
    bool row = true;
    kb_status st;
    if ((st = b->bind_int(s, 1, in->machine)) != KB_OK ||
        (st = b->bind_int(s, 2, in->build)) != KB_OK)
        return st;
    while ((st = b->step(s, &row)) == KB_OK && row) {
        if (in->nknown == cap) {
            cap = cap ? 2 * cap : 256;
            known *grown = realloc(in->known, cap * sizeof *grown);
            if (!grown) {
                st = kb_fail(KB_ENOMEM, "out of memory");
                break;
            }
            in->known = grown;
        }
        known *k = &in->known[in->nknown];
        if (!(k->name = kb_strdup(b->column_text(s, 0)))) {
            st = KB_ENOMEM; /* kb_strdup said so */
            break;
        }
        k->id = b->column_int(s, 1);
        in->nknown++;
    }
    b->reset(s);
    if (in->nknown > 0)
        qsort(in->known, in->nknown, sizeof *in->known, by_name);
    return st;
}

/* Each case's series, adding those the store does not know (in name order, as every writer
 * does, so that concurrent writers never wait for each other in a circle). */
static kb_status resolve_series(ingest *in) {
    const kb_hrun *run = in->run;
    size_t *missing = malloc(((size_t)run->ncases + 1) * sizeof *missing);
    kb_status st = missing ? list_known(in) : kb_fail(KB_ENOMEM, "out of memory");
    for (int pass = 0; pass < 2 && st == KB_OK; pass++) {
        size_t nmissing = 0;
        for (int i = 0; i < run->ncases; i++) {
            known key = {.name = (char *)run->cases[i].name};
            const known *k =
                in->nknown ? bsearch(&key, in->known, in->nknown, sizeof key, by_name) : NULL;
            in->series[i] = k ? k->id : 0;
            if (!k)
                missing[nmissing++] = (size_t)i;
        }
        if (nmissing == 0)
            break;
        if (pass == 1)
            st =
                kb_fail(KB_EIO, "series '%s' neither found nor added", run->cases[missing[0]].name);
        else if ((st = insert_rows(in, SERIES_ROWS, missing, nmissing)) == KB_OK)
            st = list_known(in);
    }
    free(missing);
    return st;
}

/* The run's repetitions that have samples, each a row; their count in *n. */
static kb_status list_repetitions(ingest *in, size_t *n) {
    const kb_hrun *run = in->run;
    size_t total = 0;
    for (int i = 0; i < run->ncases; i++)
        total += run->cases[i].nsamples > 0 ? (size_t)run->cases[i].nrepetitions : 0;
    repetition *reps = realloc(in->reps, (total + 1) * sizeof *reps);
    if (!reps)
        return kb_fail(KB_ENOMEM, "out of memory");
    in->reps = reps;
    *n = 0;
    for (int i = 0; i < run->ncases; i++) {
        const kb_hcase *c = &run->cases[i];
        int64_t first = 0;
        for (int r = 0; r < c->nrepetitions && c->nsamples > 0; r++) {
            int64_t count = c->repetition_samples ? c->repetition_samples[r] : c->nsamples;
            /* A repetition without samples has no row: its bytes would be NULL to SQLite. */
            if (count > 0)
                reps[(*n)++] = (repetition){i, r, first, count};
            first += count;
        }
    }
    return KB_OK;
}

/* KB_HISTORY_TEST_PAUSE_MS, for the tests alone: a pause inside the transaction, half-way
 * (the series and cases written, the samples not), during which a test kills the process. */
static void test_pause(void) {
    const char *ms = getenv("KB_HISTORY_TEST_PAUSE_MS");
    long v = ms ? strtol(ms, NULL, 10) : 0;
    if (v > 0)
        nanosleep(&(struct timespec){v / 1000, (v % 1000) * 1000000}, NULL);
}

typedef struct source {
    const char *path;
    char hash[48];
    const char *commit, *branch;
} source;

/* One attempt: the whole run in one transaction, or nothing. */
static kb_status store(ingest *in, const kb_hrun *run, const source *src, kb_history_added *out) {
    const kb_backend *b = in->h->b;
    int64_t machine = 0, build = 0, run_id = 0;
    kb_status st = b->begin(in->h->db, false);
    if (st != KB_OK)
        return st;
    kb_stmt *s = in->s[ADD_RUN];
    if ((st = find_or_add(in, FIND_MACHINE, ADD_MACHINE, run->machine, run->machine_description,
                          run->machine_facts, &machine)) == KB_OK &&
        (st = find_or_add(in, FIND_BUILD, ADD_BUILD, run->build, run->build_description,
                          run->build_facts, &build)) == KB_OK &&
        (st = b->bind_text(s, 1, src->hash)) == KB_OK &&
        (st = b->bind_text(s, 2, src->path)) == KB_OK &&
        (st = b->bind_text(s, 3, run->kind)) == KB_OK &&
        (st = b->bind_int(s, 4, run->started_at)) == KB_OK &&
        (st = b->bind_text(s, 5, src->commit)) == KB_OK &&
        (st = b->bind_text(s, 6, src->branch)) == KB_OK &&
        (st = b->bind_text(s, 7, run->hostname[0] ? run->hostname : NULL)) == KB_OK &&
        (st = b->bind_text(s, 8, run->version[0] ? run->version : NULL)) == KB_OK &&
        (st = b->bind_text(s, 9, run->settings)) == KB_OK &&
        (st = b->bind_int(s, 10, machine)) == KB_OK && (st = b->bind_int(s, 11, build)) == KB_OK &&
        (st = b->bind_int(s, 12, (int64_t)time(NULL))) == KB_OK)
        st = execute(in, ADD_RUN, &run_id);
    if (st == KB_OK && run_id == 0) {
        /* Stored before: the content hash is taken. */
        b->rollback(in->h->db);
        out->duplicate = true;
        if ((st = b->bind_text(in->s[FIND_RUN], 1, src->hash)) == KB_OK)
            st = execute(in, FIND_RUN, &out->run_id);
        return st;
    }
    /* Half-way: the series and the cases are in, the samples not yet. */
    in->run = run;
    in->run_id = run_id;
    in->machine = machine;
    in->build = build;
    size_t nreps = 0;
    if (st == KB_OK && (st = resolve_series(in)) == KB_OK &&
        (st = insert_rows(in, CASE_ROWS, NULL, (size_t)run->ncases)) == KB_OK &&
        (st = list_repetitions(in, &nreps)) == KB_OK) {
        test_pause();
        st = insert_rows(in, SAMPLE_ROWS, NULL, nreps);
    }
    if (st == KB_OK)
        st = b->commit(in->h->db);
    if (st != KB_OK)
        b->rollback(in->h->db);
    else
        out->run_id = run_id;
    return st;
}

static kb_status read_run(json_t *root, kb_json_lifted *samples, const char *label, void *out) {
    return kb_hrun_from_json(root, samples, label, out);
}

/* A file read and checked, before any of it is stored. */
typedef struct pending {
    const char *path;
    char hash[48]; /* the bytes name the run: the same file ingested twice is one run */
    kb_hrun run;
    kb_status status;
    char message[1024]; /* the failure's, from the thread that read */
} pending;

static void read_file(pending *p) {
    char *text = NULL;
    size_t length;
    FILE *f = fopen(p->path, "rb");
    p->status = f ? kb_file_read_all(p->path, f, &text, &length)
                  : kb_fail(KB_EIO, "%s: cannot read: %s", p->path, strerror(errno));
    if (f)
        fclose(f);
    if (p->status == KB_OK) {
        snprintf(p->hash, sizeof p->hash, "fnv1a64:%016llx:%zu",
                 (unsigned long long)kb_fnv1a_bytes(KB_FNV1A_OFFSET, text, length), length);
        p->status = kb_results_read_text(text, length, p->path, read_run, &p->run);
    }
    free(text);
    if (p->status != KB_OK)
        snprintf(p->message, sizeof p->message, "%s", kb_last_error());
}

static kb_status store_file(ingest *in, const pending *p, const kb_history_add_options *options,
                            kb_history_added *added) {
    const kb_hrun *run = &p->run;
    source src = {.path = p->path};
    snprintf(src.hash, sizeof src.hash, "%s", p->hash);
    src.commit = options && options->commit ? options->commit : run->commit[0] ? run->commit : NULL;
    src.branch = options && options->branch ? options->branch : run->branch[0] ? run->branch : NULL;
    added->ncases = run->ncases;
    added->kind = run->kind;
    int64_t *series = realloc(in->series, ((size_t)run->ncases + 1) * sizeof *series);
    if (!series)
        return kb_fail(KB_ENOMEM, "out of memory");
    in->series = series;
    kb_status st;
    for (int attempt = 1;; attempt++) {
        st = store(in, run, &src, added);
        if (st == KB_OK || attempt == ATTEMPTS || !in->h->b->retryable(in->h->db))
            break;
    }
    return st == KB_OK ? KB_OK : kb_fail_prefix(st, p->path);
}

/* Stores the files read into batch[0 .. m), in order, each reported to done. */
static void store_batch(ingest *in, pending *batch, int m, const kb_history_add_options *options,
                        kb_history_added_fn done, void *context) {
    for (int k = 0; k < m; k++) {
        kb_history_added added = {0};
        kb_status file_status = batch[k].status;
        if (file_status != KB_OK) {
            kb_fail(file_status, "%s", batch[k].message);
        } else {
            file_status = store_file(in, &batch[k], options, &added);
            kb_hrun_free(&batch[k].run);
        }
        done(batch[k].path, file_status, &added, context);
    }
}

kb_status kb_history_add_files(kb_history *h, const char *const *paths, int n,
                               const kb_history_add_options *options, kb_history_added_fn done,
                               void *context) {
    /* Reading a file (JSON) costs several times what storing it does: a batch of files is read
     * on the threads in force, one a thread, while the batch before is stored on this thread
     * (as the team's thread 0, which runs iteration 0), which mostly waits for the database. */
    int threads = 1;
    kb_threads_current(&threads);
    threads = threads < 1 ? 1 : threads > n ? n : threads;
    pending *batches = calloc(2 * (size_t)threads + 1, sizeof *batches);
    ingest in = {.h = h};
    kb_status st = batches ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
    for (int k = 0; k < NSTATEMENTS && st == KB_OK; k++)
        st = h->b->prepare(h->db, statements[k], &in.s[k]);
    /* Batch b is read while batch b - 1 is stored: b = 0 has nothing to store, and the last
     * stores what is left. */
    int stored = 0; /* files of the batch read before, waiting to be stored */
    for (int first = 0, b = 0; (first < n || stored > 0) && st == KB_OK; first += threads, b++) {
        pending *reading = batches + (size_t)(b % 2) * (size_t)threads;
        pending *storing = batches + (size_t)((b + 1) % 2) * (size_t)threads;
        int m = first >= n ? 0 : n - first < threads ? n - first : threads;
#pragma omp parallel for num_threads(m + 1) schedule(static, 1) if (threads > 1 && m > 0)
        for (int k = 0; k <= m; k++) {
            if (k == 0) {
                store_batch(&in, storing, stored, options, done, context);
                continue;
            }
            pending *p = &reading[k - 1];
            memset(p, 0, sizeof *p);
            p->path = paths[first + k - 1];
            read_file(p);
        }
        stored = m;
    }
    for (int k = 0; k < NSTATEMENTS; k++)
        h->b->finalize(in.s[k]);
    for (int t = 0; t < NTABLES; t++)
        h->b->finalize(in.full[t]);
    forget_known(&in);
    free(in.series);
    free(in.reps);
    free(in.blob);
    free(batches);
    return st;
}

typedef struct one {
    kb_status status;
    kb_history_added *added;
} one;

static void keep(const char *path, kb_status status, const kb_history_added *added, void *context) {
    one *o = context;
    o->status = status;
    *o->added = *added;
}

kb_status kb_history_add_file(kb_history *h, const char *path,
                              const kb_history_add_options *options, kb_history_added *added) {
    memset(added, 0, sizeof *added);
    one o = {KB_OK, added};
    kb_status st = kb_history_add_files(h, &path, 1, options, keep, &o);
    return st != KB_OK ? st : o.status;
}
