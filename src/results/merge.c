/* kb_results_merge: the shards of one sharded run combined into one results file. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/results.h"

static bool same_strings(char *const *a, int na, char *const *b, int nb) {
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

/* What must be the same in every shard of one run, and the message when it is not. */
static kb_status check_alike(const kb_results *first, const char *first_label, const kb_results *r,
                             const char *label) {
    const kb_bench_context *a = &first->context, *b = &r->context;
    if (strcmp(a->build.git_commit, b->build.git_commit) != 0 ||
        strcmp(a->build.version, b->build.version) != 0)
        return kb_fail(KB_EINVAL, "%s: built from kbench %s (%s), %s from %s (%s): not one run",
                       label, b->build.version, b->build.git_commit, first_label, a->build.version,
                       a->build.git_commit);
    if (strcmp(a->build.compiler, b->build.compiler) != 0 ||
        strcmp(a->build.c_flags, b->build.c_flags) != 0 ||
        strcmp(a->build.build_type, b->build.build_type) != 0)
        return kb_fail(KB_EINVAL, "%s: a %s build with %s, %s a %s build with %s: not one run",
                       label, b->build.build_type, b->build.compiler, first_label,
                       a->build.build_type, a->build.compiler);
    if (strcmp(a->machine.arch, b->machine.arch) != 0 ||
        strcmp(a->machine.cpu_model, b->machine.cpu_model) != 0 ||
        a->machine.logical_cpus != b->machine.logical_cpus)
        return kb_fail(KB_EINVAL,
                       "%s: measured on %s %s with %d CPUs, %s on %s %s with %d: not one kind of "
                       "machine",
                       label, b->machine.arch, b->machine.cpu_model, b->machine.logical_cpus,
                       first_label, a->machine.arch, a->machine.cpu_model, a->machine.logical_cpus);
    if (!same_strings(a->suites, a->nsuites, b->suites, b->nsuites) ||
        !same_strings(a->filters, a->nfilters, b->filters, b->nfilters))
        return kb_fail(KB_EINVAL, "%s: selects other suites or filters than %s: not one run", label,
                       first_label);
    const kb_bench_settings *s = &a->settings, *t = &b->settings;
    if (s->min_time != t->min_time || s->min_samples != t->min_samples ||
        s->repetitions != t->repetitions || s->cache != t->cache || s->pin != t->pin)
        return kb_fail(KB_EINVAL, "%s: measured with other settings than %s: not one run", label,
                       first_label);
    if (b->shard_count != a->shard_count)
        return kb_fail(KB_EINVAL, "%s: shard %d of %d, %s of %d: not one run", label,
                       b->shard_index, b->shard_count, first_label, a->shard_count);
    return KB_OK;
}

/* Each shard once, all of them: labels name the shard given twice or the one missing. */
static kb_status check_coverage(kb_results *shards, const char *const *labels, int n) {
    int count = shards[0].context.shard_count;
    int *given = calloc((size_t)count + 1, sizeof *given);
    if (!given)
        return kb_fail(KB_ENOMEM, "out of memory");
    kb_status st = KB_OK;
    for (int i = 0; i < n && st == KB_OK; i++) {
        int k = shards[i].context.shard_index;
        if (k < 1 || k > count)
            st = kb_fail(KB_EINVAL, "%s: shard %d of %d is not a shard", labels[i], k, count);
        else if (given[k])
            st = kb_fail(KB_EINVAL, "%s: shard %d of %d is given twice (also %s)", labels[i], k,
                         count, labels[given[k] - 1]);
        else
            given[k] = i + 1;
    }
    for (int k = 1; k <= count && st == KB_OK; k++)
        if (!given[k])
            st = kb_fail(KB_EINVAL, "shard %d of %d is missing (%d of its shards given)", k, count,
                         n);
    free(given);
    return st;
}

static kb_status check_unique_cases(kb_results *shards, const char *const *labels, int n) {
    for (int i = 0; i < n; i++)
        for (int c = 0; c < shards[i].ncases; c++)
            for (int j = 0; j <= i; j++)
                for (int d = 0; d < (j == i ? c : shards[j].ncases); d++)
                    if (strcmp(shards[i].cases[c].name, shards[j].cases[d].name) == 0)
                        return kb_fail(KB_EINVAL, "%s: case %s is also in %s", labels[i],
                                       shards[i].cases[c].name, labels[j]);
    return KB_OK;
}

kb_status kb_results_merge(kb_results *shards, const char *const *labels, int n, kb_results *out) {
    memset(out, 0, sizeof *out);
    if (n < 1)
        return kb_fail(KB_EINVAL, "no shards to merge");
    kb_status st = KB_OK;
    for (int i = 1; i < n && st == KB_OK; i++)
        st = check_alike(&shards[0], labels[0], &shards[i], labels[i]);
    if (st == KB_OK)
        st = check_coverage(shards, labels, n);
    if (st == KB_OK)
        st = check_unique_cases(shards, labels, n);
    if (st != KB_OK)
        return st;
    int total = 0;
    for (int i = 0; i < n; i++)
        total += shards[i].ncases;
    kb_bench_result *cases = calloc((size_t)(total ? total : 1), sizeof *cases);
    if (!cases)
        return kb_fail(KB_ENOMEM, "out of memory");
    /* In shard order, each shard's cases in its own order; the cases move, the shards keep
     * none. */
    int at = 0;
    for (int k = 1; k <= shards[0].context.shard_count; k++)
        for (int i = 0; i < n; i++) {
            if (shards[i].context.shard_index != k)
                continue;
            memcpy(cases + at, shards[i].cases, (size_t)shards[i].ncases * sizeof *cases);
            at += shards[i].ncases;
            free(shards[i].cases);
            shards[i].cases = NULL;
            shards[i].ncases = 0;
        }
    /* The context of the first shard given, moved, as that of the whole run. Each shard's
     * monitor series covers its own process only: the merged run keeps none (each case keeps
     * its usage). */
    out->context = shards[0].context;
    memset(&shards[0].context, 0, sizeof shards[0].context);
    kb_usage_series_free(&out->context.usage);
    out->context.shard_index = out->context.shard_count = 1;
    out->cases = cases;
    out->ncases = total;
    return KB_OK;
}
