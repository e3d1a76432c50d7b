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

/* The statements of an ingest, prepared once and run for every row. */
enum {
    FIND_MACHINE,
    ADD_MACHINE,
    FIND_BUILD,
    ADD_BUILD,
    ADD_RUN,
    FIND_RUN,
    FIND_SERIES,
    ADD_SERIES,
    ADD_CASE,
    ADD_SAMPLES,
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
    [FIND_SERIES] = "SELECT id FROM series WHERE name = ? AND machine_id = ? AND build_id = ?",
    [ADD_SERIES] = "INSERT INTO series (name, machine_id, build_id) VALUES (?, ?, ?)"
                   " ON CONFLICT (name, machine_id, build_id) DO NOTHING RETURNING id",
    [ADD_CASE] = "INSERT INTO cases (run_id, series_id, status, error, median_ns, ci_low_ns,"
                 " ci_high_ns, mad_ns, n_samples, calls_per_sample, gb_per_s, percent_of_bound,"
                 " flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
    [ADD_SAMPLES] = "INSERT INTO samples (case_id, repetition, ns) VALUES (?, ?, ?)",
};

typedef struct ingest {
    kb_history *h;
    kb_stmt *s[NSTATEMENTS];
    unsigned char *blob; /* the samples of one repetition, encoded */
    size_t blob_size;
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

static kb_status series_id(ingest *in, const char *name, int64_t machine, int64_t build,
                           int64_t *id) {
    const kb_backend *b = in->h->b;
    kb_status st = KB_OK;
    for (int k = 0; k < 2 && st == KB_OK; k++) {
        int which = k == 0 ? FIND_SERIES : ADD_SERIES;
        if ((st = b->bind_text(in->s[which], 1, name)) == KB_OK &&
            (st = b->bind_int(in->s[which], 2, machine)) == KB_OK &&
            (st = b->bind_int(in->s[which], 3, build)) == KB_OK &&
            (st = execute(in, which, id)) == KB_OK && *id)
            return KB_OK;
    }
    /* Added by a concurrent writer after the look-up: found now. */
    if (st == KB_OK && (st = b->bind_text(in->s[FIND_SERIES], 1, name)) == KB_OK &&
        (st = b->bind_int(in->s[FIND_SERIES], 2, machine)) == KB_OK &&
        (st = b->bind_int(in->s[FIND_SERIES], 3, build)) == KB_OK &&
        (st = execute(in, FIND_SERIES, id)) == KB_OK && !*id)
        st = kb_fail(KB_EIO, "series '%s' neither found nor added", name);
    return st;
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

static kb_status add_case(ingest *in, const kb_hcase *c, int64_t run_id, int64_t machine,
                          int64_t build) {
    const kb_backend *b = in->h->b;
    int64_t series, case_id;
    kb_status st = series_id(in, c->name, machine, build, &series);
    kb_stmt *s = in->s[ADD_CASE];
    if (st != KB_OK || (st = b->bind_int(s, 1, run_id)) != KB_OK ||
        (st = b->bind_int(s, 2, series)) != KB_OK ||
        (st = b->bind_text(s, 3, c->failed ? "failed" : "ok")) != KB_OK ||
        (st = b->bind_text(s, 4, c->error)) != KB_OK ||
        (st = b->bind_double(s, 5, c->median)) != KB_OK ||
        (st = b->bind_double(s, 6, c->ci_low)) != KB_OK ||
        (st = b->bind_double(s, 7, c->ci_high)) != KB_OK ||
        (st = b->bind_double(s, 8, c->mad)) != KB_OK ||
        (st = b->bind_int(s, 9, c->nsamples)) != KB_OK ||
        (st = b->bind_int(s, 10, c->calls_per_sample)) != KB_OK ||
        (st = b->bind_double(s, 11, c->gb_per_s)) != KB_OK ||
        (st = b->bind_double(s, 12, c->percent_of_bound)) != KB_OK ||
        (st = b->bind_text(s, 13, c->flags)) != KB_OK ||
        (st = execute(in, ADD_CASE, &case_id)) != KB_OK)
        return st;
    int64_t first = 0;
    for (int r = 0; r < c->nrepetitions && c->nsamples > 0; r++) {
        int64_t n = c->repetition_samples ? c->repetition_samples[r] : c->nsamples;
        s = in->s[ADD_SAMPLES];
        if ((st = encode(in, c, first, n)) != KB_OK || (st = b->bind_int(s, 1, case_id)) != KB_OK ||
            (st = b->bind_int(s, 2, r)) != KB_OK ||
            (st = b->bind_blob(s, 3, in->blob, (size_t)n * 8)) != KB_OK ||
            (st = execute(in, ADD_SAMPLES, NULL)) != KB_OK)
            return st;
        first += n;
    }
    return KB_OK;
}

/* KB_HISTORY_TEST_PAUSE_MS, for the tests alone: a pause inside the transaction, half-way
 * through the cases, during which a test kills the process. */
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
    int64_t machine, build, run_id;
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
    for (int i = 0; i < run->ncases && st == KB_OK; i++) {
        st = add_case(in, &run->cases[i], run_id, machine, build);
        if (i == run->ncases / 2)
            test_pause();
    }
    if (st == KB_OK)
        st = b->commit(in->h->db);
    if (st != KB_OK)
        b->rollback(in->h->db);
    else
        out->run_id = run_id;
    return st;
}

static kb_status read_run(json_t *root, const char *label, void *out) {
    return kb_hrun_from_json(root, label, out);
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
        p->status = kb_json_read_text(text, length, p->path, read_run, &p->run);
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
    kb_status st;
    for (int attempt = 1;; attempt++) {
        st = store(in, run, &src, added);
        if (st == KB_OK || attempt == ATTEMPTS || !in->h->b->retryable(in->h->db))
            break;
    }
    return st == KB_OK ? KB_OK : kb_fail_prefix(st, p->path);
}

kb_status kb_history_add_files(kb_history *h, const char *const *paths, int n,
                               const kb_history_add_options *options, kb_history_added_fn done,
                               void *context) {
    /* Reading a file (JSON) costs several times what storing it does: the next files are read
     * on every thread while none is stored, a batch at a time. */
    int threads = 1;
    kb_threads_current(&threads);
    threads = threads < 1 ? 1 : threads > n ? n : threads;
    pending *batch = calloc((size_t)threads + 1, sizeof *batch);
    ingest in = {.h = h};
    kb_status st = batch ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
    for (int k = 0; k < NSTATEMENTS && st == KB_OK; k++)
        st = h->b->prepare(h->db, statements[k], &in.s[k]);
    for (int first = 0; first < n && st == KB_OK; first += threads) {
        int m = n - first < threads ? n - first : threads;
#pragma omp parallel for num_threads(m) schedule(static, 1) if (m > 1)
        for (int k = 0; k < m; k++) {
            memset(&batch[k], 0, sizeof batch[k]);
            batch[k].path = paths[first + k];
            read_file(&batch[k]);
        }
        for (int k = 0; k < m; k++) {
            kb_history_added added = {0};
            kb_status file_status = batch[k].status;
            if (file_status != KB_OK) {
                kb_fail(file_status, "%s", batch[k].message);
            } else {
                file_status = store_file(&in, &batch[k], options, &added);
                kb_hrun_free(&batch[k].run);
            }
            done(batch[k].path, file_status, &added, context);
        }
    }
    for (int k = 0; k < NSTATEMENTS; k++)
        h->b->finalize(in.s[k]);
    free(in.blob);
    free(batch);
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
