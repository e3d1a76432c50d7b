/* libFuzzer target for what `kbench history add` reads from outside: a file's bytes, a kbench
 * results file or Google Benchmark output, into a run of the store (kb_hrun), through the
 * samples lifted out of the text before jansson parses it (util/json_lift.c). Any bytes must
 * give either a run that can be stored as it is (cases in strict name order, each a failure
 * with its message or a summary with its samples, fingerprints of 16 hex digits) or a status
 * with a one-line message; and the lifting must change nothing but the cost: the same bytes
 * read without it (jansson's DOM alone) give the same status, the same message and the same
 * run, sample for sample. Never a crash, a leak or undefined behaviour. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "history/run.h"
#include "results/internal.h"
#include "util/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kb_status read_run(json_t *root, kb_json_lifted *samples, const char *label, void *out) {
    return kb_hrun_from_json(root, samples, label, out);
}

static kb_status read_plain(json_t *root, const char *label, void *out) {
    return kb_hrun_from_json(root, NULL, label, out);
}

static void check_fingerprint(const char *f) {
    if (strlen(f) != 16 || strspn(f, "0123456789abcdef") != 16)
        __builtin_trap();
}

/* A run the store can take as it is. */
static void check_run(const kb_hrun *run) {
    check_fingerprint(run->machine);
    check_fingerprint(run->build);
    if (!run->kind || !run->settings || !run->machine_facts || !run->build_facts)
        __builtin_trap();
    for (int i = 0; i < run->ncases; i++) {
        const kb_hcase *c = &run->cases[i];
        if (!c->name || (i > 0 && strcmp(run->cases[i - 1].name, c->name) >= 0))
            __builtin_trap();
        if (c->failed) {
            if (!c->error)
                __builtin_trap();
            continue;
        }
        if (!(c->ci_low <= c->median && c->median <= c->ci_high) || c->nsamples < 1 ||
            c->calls_per_sample < 1 || c->nrepetitions < 1)
            __builtin_trap();
        int64_t total = 0;
        for (int r = 0; r < c->nrepetitions; r++)
            total += c->repetition_samples ? c->repetition_samples[r] : c->nsamples;
        if (total != c->nsamples || (!c->sample_ints && !c->sample_reals))
            __builtin_trap();
        for (int64_t k = 0; k < c->nsamples; k++)
            if (c->sample_ints ? c->sample_ints[k] < 0 : !(c->sample_reals[k] >= 0))
                __builtin_trap();
    }
}

/* The two reads gave the same run. */
static void check_same(const kb_hrun *a, const kb_hrun *b) {
    if (a->ncases != b->ncases || strcmp(a->machine, b->machine) != 0 ||
        strcmp(a->build, b->build) != 0 || strcmp(a->settings, b->settings) != 0 ||
        a->started_at != b->started_at || strcmp(a->commit, b->commit) != 0)
        __builtin_trap();
    for (int i = 0; i < a->ncases; i++) {
        const kb_hcase *x = &a->cases[i], *y = &b->cases[i];
        if (strcmp(x->name, y->name) != 0 || x->failed != y->failed || x->nsamples != y->nsamples ||
            x->nrepetitions != y->nrepetitions ||
            !(x->median == y->median || (isnan(x->median) && isnan(y->median))))
            __builtin_trap();
        for (int r = 0; r < x->nrepetitions && x->repetition_samples; r++)
            if (x->repetition_samples[r] != y->repetition_samples[r])
                __builtin_trap();
        if (x->sample_ints && memcmp(x->sample_ints, y->sample_ints,
                                     (size_t)x->nsamples * sizeof *x->sample_ints) != 0)
            __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    kb_hrun lifted, plain;
    kb_status st = kb_results_read_text(text, size, "fuzz", read_run, &lifted);
    char message[1024];
    kb_copy_string(message, sizeof message, st == KB_OK ? "" : kb_last_error());
    kb_status plain_st = kb_json_read_text((const char *)data, size, "fuzz", read_plain, &plain);
    if (st != plain_st)
        __builtin_trap();
    if (st == KB_OK) {
        check_run(&lifted);
        check_same(&lifted, &plain);
        kb_hrun_free(&lifted);
        kb_hrun_free(&plain);
    } else if (message[0] == '\0' || strchr(message, '\n') ||
               strcmp(message, kb_last_error()) != 0) {
        __builtin_trap();
    }
    free(text);
    return 0;
}
