/* The context of a run: machine, build, settings and environment recorded with its results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/context.h"
#include "core/internal.h"
#include "kbench/cpu.h"
#include "kbench/threads.h"
#include "kbench/version.h"
#include "machine/internal.h"
#include "util/internal.h"

int64_t kb_context_llc_bytes(const kb_machine *m) {
    int64_t best = 0;
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++)
        if (l != KB_CACHE_L1I && m->caches[l].size > best)
            best = m->caches[l].size;
    return best > 0 ? best : (int64_t)32 << 20;
}

static void copy_build(kb_bench_build *b) {
    const kb_build_info *i = kb_build_info_get();
    snprintf(b->version, sizeof b->version, "%s", i->version);
    snprintf(b->git_commit, sizeof b->git_commit, "%s", i->git_commit);
    snprintf(b->git_branch, sizeof b->git_branch, "%s", i->git_branch);
    snprintf(b->compiler, sizeof b->compiler, "%s", i->compiler);
    snprintf(b->c_flags, sizeof b->c_flags, "%s", i->c_flags);
    snprintf(b->build_type, sizeof b->build_type, "%s", i->build_type);
    snprintf(b->arch, sizeof b->arch, "%s", i->arch);
    b->optimized = i->optimized;
    b->sanitizers = i->sanitizers;
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The variables that change how kernels run: kbench's own and the OpenMP runtime's. */
static kb_status copy_env_vars(kb_bench_context *c) {
    extern char **environ;
    char *found[256];
    int n = 0;
    for (char **e = environ; e && *e && n < 256; e++)
        if (strncmp(*e, "KB_", 3) == 0 || strncmp(*e, "OMP_", 4) == 0 ||
            strncmp(*e, "GOMP_", 5) == 0)
            found[n++] = *e;
    qsort(found, (size_t)n, sizeof *found, compare_strings);
    for (int i = 0; i < n && c->nenv_vars < KB_BENCH_MAX_ENV_VARS; i++) {
        const char *eq = strchr(found[i], '=');
        if (!eq)
            continue;
        size_t len = (size_t)(eq - found[i]);
        char *name = malloc(len + 1), *value = kb_strdup(eq + 1);
        if (!name || !value) {
            free(name);
            free(value);
            return kb_fail(KB_ENOMEM, "out of memory");
        }
        memcpy(name, found[i], len);
        name[len] = '\0';
        c->env_names[c->nenv_vars] = name;
        c->env_values[c->nenv_vars] = value;
        c->nenv_vars++;
    }
    return KB_OK;
}

static kb_status copy_list(char ***dst, int *ndst, char *const *src, int n) {
    *dst = calloc((size_t)(n ? n : 1), sizeof **dst);
    if (!*dst)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        if (!((*dst)[i] = kb_strdup(src[i])))
            return KB_ENOMEM;
        *ndst = i + 1;
    }
    return KB_OK;
}

kb_status kb_context_fill(kb_bench_context *c, const kb_bench_settings *settings,
                          const kb_bench_plan *plan) {
    kb_format_utc(c->date, sizeof c->date, (int64_t)time(NULL));
    copy_build(&c->build);
    kb_machine_probe(&c->machine);
    kb_cpu_features_describe(kb_cpu_features_get(), c->instruction_sets,
                             (int)sizeof c->instruction_sets);
    if (kb_clock_measure(0, 0, &c->clock_start) != KB_OK)
        memset(&c->clock_start, 0, sizeof c->clock_start);
    c->simd_compiled = kb_simd_levels(kb_simd_compiled);
    c->simd_available = kb_simd_levels(kb_simd_available);
    kb_status st;
    if ((st = kb_simd_current(&c->simd_selected)) != KB_OK ||
        (st = kb_threads_current(&c->threads)) != KB_OK)
        return st;
    c->usable_cores = kb_usable_cores();
    kb_env_inputs inputs;
    kb_env_inputs_live(&inputs);
    kb_env_check(&inputs, &c->env);
    if ((st = kb_bench_timer_measure(&c->timer)) != KB_OK)
        return st;
    c->settings = *settings;
    c->settings.peaks = NULL; /* the caller's; the context keeps a copy */
    if (settings->peaks) {
        c->has_peaks = true;
        c->peaks = *settings->peaks;
    }
    if ((st = copy_env_vars(c)) != KB_OK ||
        (st = copy_list(&c->suites, &c->nsuites, plan->suites, plan->nsuites)) != KB_OK ||
        (st = copy_list(&c->filters, &c->nfilters, plan->filters, plan->nfilters)) != KB_OK)
        return st;
    c->shard_index = plan->shard_index;
    c->shard_count = plan->shard_count;
    return KB_OK;
}
