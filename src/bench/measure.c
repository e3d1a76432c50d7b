/* Sampling a group of implementations of one case in interleaved rounds. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/baseline_check.h"
#include "bench/impl.h"
#include "bench/measure.h"
#include "core/internal.h"
#include "util/internal.h"
#include "kbench/npy.h"
#include "kbench/threads.h"

/* The group as setup and teardown see it: no implementation parameters. */
static void group_case(const kb_bench_spec *s, kb_bench_case *c) {
    memset(c, 0, sizeof *c);
    c->name = s->group;
    for (int i = 0; i < s->nparams; i++) {
        if (s->param_impl[i])
            continue;
        c->param_names[c->nparams] = s->param_names[i];
        c->param_values[c->nparams] = s->param_values[i];
        c->nparams++;
    }
    c->user = s->user;
    c->bytes_per_call = s->bytes_per_call;
    c->flops_per_call = s->flops_per_call;
    c->traffic = s->traffic;
    c->flop_type = s->flop_type;
}

/* The case's "threads" parameter; 0 when it has none. */
static int spec_threads(const kb_bench_spec *s) {
    for (int i = 0; i < s->nparams; i++)
        if (strcmp(s->param_names[i], "threads") == 0)
            return atoi(s->param_values[i]);
    return 0;
}

static void impl_init(kb_impl *m, const kb_bench_spec *s, const kb_bench_case *group) {
    memset(m, 0, sizeof *m);
    m->spec = s;
    m->c = *group;
    m->c.name = s->name;
    m->c.nparams = s->nparams;
    for (int i = 0; i < s->nparams; i++) {
        m->c.param_names[i] = s->param_names[i];
        m->c.param_values[i] = s->param_values[i];
    }
    const char *simd = kb_bench_param(&m->c, "simd");
    if (simd) {
        m->has_simd = true;
        if (kb_simd_parse(simd, &m->simd_request) != KB_OK)
            kb_impl_fail(m, kb_last_error());
    }
    m->threads = spec_threads(s);
}

static bool push_sample(kb_impl *m, int64_t t) {
    int64_t *samples = kb_reserve(m->samples, &m->capacity, m->nsamples + 1, sizeof *samples);
    if (!samples)
        return false;
    m->samples = samples;
    m->samples[m->nsamples++] = t;
    return true;
}

static int standing(const kb_impl *impls, int n) {
    int k = 0;
    for (int i = 0; i < n; i++)
        k += !impls[i].failed;
    return k;
}

/* With baselines, this thread and the baseline processes on one CPU, or on all of them
 * (bench/colocate.h); nothing without. */
static void colocate(const kb_measure_env *env, bool one_cpu) {
    if (!env->colocate)
        return;
    kb_baseline_process *procs[] = {env->baseline, env->kbench_baseline};
    kb_colocate_set(env->colocate, one_cpu, procs, 2);
}

/* Where m is timed: a single-thread implementation on one CPU with the baseline processes,
 * any other on all the CPUs. */
static void place(const kb_measure_env *env, const kb_impl *m) {
    colocate(env, m->threads_used == 1);
}

/* Samples an implementation still needs in this repetition: at least min_samples, and
 * enough to fill min_time at the length its samples have had so far. */
static int64_t samples_needed(const kb_impl *m, const kb_bench_settings *s) {
    if (m->failed)
        return 0;
    double per = m->rep_count > 0 ? m->rep_time_ns / (double)m->rep_count : m->sample_ns;
    double time_left = s->min_time * 1e9 - m->rep_time_ns;
    int64_t by_time = time_left > 0 ? (int64_t)ceil(time_left / fmax(per, 1)) : 0;
    int64_t by_count = s->min_samples - m->rep_count;
    return by_time > by_count ? by_time : by_count > 0 ? by_count : 0;
}

/* The implementations a set of rounds interleaves: all of them (phase -1), the single-thread
 * ones (0) or the others (1). With baselines, the single-thread ones are sampled in rounds of
 * their own, on one CPU (bench/colocate.h), and the others after them: interleaved with
 * multi-thread blocks, a single-thread block shared its CPU with the OpenMP workers the
 * other blocks had left spinning, and one build timed against itself came out 0.61 to 1.62
 * at one thread. */
static bool in_phase(const kb_impl *m, int phase) {
    return phase < 0 || (m->threads_used == 1) == (phase == 0);
}

/* Sizes each implementation's block of samples per round for a repetition, from the
 * samples it is expected to need: the implementation that needs the fewest takes one per
 * round, the others proportionally more, so that all of them finish together and each still
 * gets its own time budget. Rounded, so that implementations of similar speed take one each
 * (A B C A B C ...), and fixed for the repetition, so that noise in the samples does not
 * reshuffle the order; with one implementation ten times faster than the rest, A x10 B C.
 * With spread (processes taking turns, hot caches), all are scaled alike until each
 * multi-thread block lasts KB_MEASURE_THREADED_BLOCK_NS (measure.h): fewer, longer rounds. */
static void size_blocks(kb_impl *impls, int n, const kb_bench_settings *s, int phase, bool spread) {
    int64_t fewest = 0;
    for (int i = 0; i < n; i++) {
        if (!in_phase(&impls[i], phase))
            continue;
        int64_t need = samples_needed(&impls[i], s);
        if (need > 0 && (fewest == 0 || need < fewest))
            fewest = need;
    }
    double scale = 1;
    for (int i = 0; i < n; i++) {
        int64_t need = samples_needed(&impls[i], s);
        int64_t block = fewest > 0 ? llround((double)need / (double)fewest) : 0;
        impls[i].block = block < 1 ? 1 : block;
        if (spread && need > 0 && in_phase(&impls[i], phase) && impls[i].threads_used > 1 &&
            impls[i].sample_ns > 0) {
            double f = KB_MEASURE_THREADED_BLOCK_NS / ((double)impls[i].block * impls[i].sample_ns);
            scale = f > scale ? f : scale;
        }
    }
    if (scale > 1)
        for (int i = 0; i < n; i++)
            impls[i].block = (int64_t)ceil((double)impls[i].block * scale);
}

/* Whether the phase's blocks take turns with another process's (a baseline that can still
 * run) with hot caches: then multi-thread implementations spread their threads first. */
static bool spread_threads(const kb_impl *impls, int n, const kb_measure_env *env, int phase) {
    bool other_process = false;
    for (int i = 0; i < n; i++)
        other_process |= in_phase(&impls[i], phase) && impls[i].baseline && !impls[i].failed;
    return other_process && !env->flush;
}

static void trace(const kb_measure_env *env, kb_measure_step step, int impl) {
    if (env->trace)
        env->trace(env->trace_arg, step, impl);
}

static kb_status take_sample(kb_impl *m, int64_t t) {
    if (!push_sample(m, t))
        return kb_fail(KB_ENOMEM, "out of memory for samples");
    m->rep_count++;
    m->rep_time_ns += (double)t;
    return KB_OK;
}

/* Records when a block of samples, from `first` on, was taken. */
static kb_status push_block(kb_impl *m, int64_t start_ns, int64_t first, bool warm,
                            int64_t warm_ns) {
    kb_sample_block *blocks =
        kb_reserve(m->blocks, &m->blocks_capacity, m->nblocks + 1, sizeof *blocks);
    if (!blocks)
        return kb_fail(KB_ENOMEM, "out of memory for samples");
    m->blocks = blocks;
    m->blocks[m->nblocks++] = (kb_sample_block){.start_ns = start_ns,
                                                .end_ns = kb_bench_now_ns(),
                                                .first = first,
                                                .count = m->nsamples - first,
                                                .warm = warm,
                                                .warm_ns = warm_ns};
    return KB_OK;
}

/* How many untimed calls start a hot block of m after `last` ran (NULL: unknown): one, or
 * KB_MEASURE_REFILL_CALLS when m's working set lies beyond the L2 caches of the cores m runs on
 * but within the last-level cache and the block before read other memory (a baseline's copy of
 * the input, in another process, or anything before the first round); then, with spread
 * (size_blocks) and a multi-thread m, at least as many as last KB_MEASURE_SPREAD_NS. */
static int64_t warm_calls(const kb_impl *last, const kb_impl *m, bool spread) {
    int64_t set = m->c.working_set_bytes > 0 ? m->c.working_set_bytes : m->c.bytes_per_call;
    int threads = m->threads_used > 0 ? m->threads_used : 1;
    bool other_memory = last == NULL || last->baseline || m->baseline;
    bool refill = set > kb_cache_l2_bytes() * threads && set < kb_cache_llc_bytes();
    int64_t calls = other_memory && refill ? KB_MEASURE_REFILL_CALLS : 1;
    /* and, with several threads after another process, calls for KB_MEASURE_SPREAD_NS */
    if (spread && other_memory && threads > 1 && m->calls > 0 && m->sample_ns > 0) {
        double apart = ceil(KB_MEASURE_SPREAD_NS / (m->sample_ns / (double)m->calls));
        if (apart > (double)calls)
            calls = apart < 1e9 ? (int64_t)apart : 1000000000;
    }
    return calls;
}

/* Ends the wait of this process's OpenMP workers for more work, before another process's
 * block: GNU OpenMP's workers spin for about 8 ms after a parallel region (Zen 4), into the
 * other process's block, whose threads then waited for a scheduler tick for the CPU (samples of
 * 4 to 16 ms among PyTorch's microseconds at two threads, in a third of the cases). Pausing the
 * runtime releases its pool; the untimed call that starts this process's next block (another
 * process's block came before it) starts the workers again. The runners' workers spin briefly
 * instead (KB_BASELINE_SPINCOUNT, baseline_process.c), since PyTorch's runtime has no pause. */
static void release_workers(void) {
    (void)omp_pause_resource_all(omp_pause_soft);
}

/* A baseline's block in one request, so that the pipe is never inside a sample: the runner
 * warms the case up or flushes before each sample, in its own process, as this one would. */
static kb_status baseline_block(kb_impl *m, int index, int64_t block, int64_t warm,
                                const kb_measure_env *env) {
    int64_t *t = malloc((size_t)block * sizeof *t);
    if (!t)
        return kb_fail(KB_ENOMEM, "out of memory for samples");
    int64_t start = kb_bench_now_ns(), first = m->nsamples;
    kb_baseline_block b = {.id = m->id,
                           .calls = m->calls,
                           .warmup = (int)warm,
                           .flush_bytes = env->flush ? env->flush->bytes : 0};
    if (kb_baseline_run_block(m->baseline, &b, (int)block, t) != KB_OK) {
        kb_impl_fail(m, kb_last_error());
        free(t);
        return KB_OK;
    }
    if (warm)
        trace(env, KB_MEASURE_WARM, index);
    kb_status st = KB_OK;
    for (int64_t k = 0; k < block && st == KB_OK; k++) {
        if (env->flush)
            trace(env, KB_MEASURE_FLUSH, index);
        trace(env, KB_MEASURE_SAMPLE, index);
        st = take_sample(m, t[k]);
    }
    free(t);
    return st == KB_OK ? push_block(m, start, first, warm, 0) : st;
}

/* Untimed calls (warm_calls): what is left in the caches is this implementation's own. */
static void warm_up(kb_impl *m, int64_t calls, int index, const kb_measure_env *env) {
    m->spec->run(&m->c, calls);
    if (m->c.status != KB_OK)
        kb_impl_fail(m, NULL);
    trace(env, KB_MEASURE_WARM, index);
}

/* Whether the caches, after `last` ran, hold what m's own call would leave there: m itself,
 * or another of the group's own implementations at the same thread count (the same process,
 * the same input and output buffers, the same cores' caches). A baseline reads its own copy
 * of the input in another process, so nothing else leaves the caches as it would. */
static bool leaves_caches_as(const kb_impl *last, const kb_impl *m) {
    return last == m ||
           (last && !last->baseline && !m->baseline && last->threads_used == m->threads_used);
}

/* One round: a block of samples of each implementation that still needs samples, in plan
 * order. With hot caches, a block starts after an untimed call of its implementation unless
 * the last thing run (*last) left the caches as that call would; with cold caches every sample
 * starts after a flush. Sets *done when no implementation needs samples. */
static kb_status round_of_samples(kb_impl *impls, int n, const kb_measure_env *env, int phase,
                                  bool spread, const kb_impl **last, bool *done) {
    *done = true;
    for (int i = 0; i < n; i++) {
        kb_impl *m = &impls[i];
        if (!in_phase(m, phase))
            continue;
        int64_t need = samples_needed(m, env->settings);
        if (need == 0 || !kb_impl_apply(m))
            continue;
        place(env, m);
        *done = false;
        int64_t block = m->block < need ? m->block : need;
        int64_t warm =
            !env->flush && !leaves_caches_as(*last, m) ? warm_calls(*last, m, spread) : 0;
        if (m->baseline && *last && !(*last)->baseline && (*last)->threads_used > 1)
            release_workers();
        *last = m;
        if (m->baseline) {
            kb_status st = baseline_block(m, i, block, warm, env);
            if (st != KB_OK)
                return st;
            continue;
        }
        int64_t start = kb_bench_now_ns(), first = m->nsamples;
        if (warm)
            warm_up(m, warm, i, env);
        int64_t warm_ns = warm ? kb_bench_now_ns() - start : 0;
        for (int64_t k = 0; k < block && !m->failed; k++) {
            if (env->flush) {
                kb_flush_run(env->flush, m->threads_used);
                trace(env, KB_MEASURE_FLUSH, i);
            }
            int64_t t = kb_impl_sample(m, m->calls);
            if (m->c.status != KB_OK) {
                kb_impl_fail(m, NULL);
                break;
            }
            trace(env, KB_MEASURE_SAMPLE, i);
            kb_status st = take_sample(m, t);
            if (st != KB_OK)
                return st;
        }
        kb_status st = push_block(m, start, first, warm, warm_ns);
        if (st != KB_OK)
            return st;
    }
    return KB_OK;
}

static kb_status phase_rounds(kb_impl *impls, int n, const kb_measure_env *env, int phase) {
    const kb_bench_settings *s = env->settings;
    for (int rep = 0; rep < s->repetitions; rep++) {
        for (int i = 0; i < n; i++) {
            if (!in_phase(&impls[i], phase))
                continue;
            impls[i].rep_count = 0;
            impls[i].rep_time_ns = 0;
            /* Warm up again: the previous repetition ended on another implementation. */
            if (rep > 0 && !impls[i].failed && kb_impl_apply(&impls[i])) {
                place(env, &impls[i]);
                (void)kb_impl_sample(&impls[i], impls[i].calls);
                if (impls[i].c.status != KB_OK)
                    kb_impl_fail(&impls[i], NULL);
            }
        }
        bool spread = spread_threads(impls, n, env, phase);
        size_blocks(impls, n, s, phase, spread);
        /* Calibration and the warm-ups above ran every implementation: none may be taken
         * for the last one run. */
        const kb_impl *last = NULL;
        bool done = false;
        while (!done) {
            kb_status st = round_of_samples(impls, n, env, phase, spread, &last, &done);
            if (st != KB_OK)
                return st;
        }
        for (int i = 0; i < n; i++)
            if (in_phase(&impls[i], phase))
                impls[i].repetition_samples[rep] = impls[i].rep_count;
    }
    return KB_OK;
}

static kb_status sample_rounds(kb_impl *impls, int n, const kb_measure_env *env) {
    if (!env->colocate)
        return phase_rounds(impls, n, env, -1);
    kb_status st = phase_rounds(impls, n, env, 0);
    return st == KB_OK ? phase_rounds(impls, n, env, 1) : st;
}

/* The part of a result every implementation shares: the group's counts, held against the
 * peaks of flop_type, and the samples, moved out of the implementation and summarized. */
static kb_status finish_result(kb_impl *m, const kb_bench_case *group, kb_flop_type flop_type,
                               int repetitions, const kb_measure_env *env, kb_bench_result *r) {
    r->bytes_per_call = group->bytes_per_call;
    r->flops_per_call = group->flops_per_call;
    r->traffic = group->traffic;
    r->flop_type = flop_type;
    r->working_set_bytes =
        group->working_set_bytes > 0 ? group->working_set_bytes : group->bytes_per_call;
    if (!m->failed && m->nsamples == 0)
        kb_impl_fail(m, "no samples were taken");
    if (m->failed) {
        r->failed = true;
        return (r->error = kb_strdup(m->error)) ? KB_OK : KB_ENOMEM;
    }
    r->calls_per_sample = m->calls;
    r->nrepetitions = repetitions;
    r->repetition_samples = m->repetition_samples;
    r->nsamples = m->nsamples;
    r->sample_ns = m->samples;
    r->nblocks = m->nblocks;
    r->blocks = m->blocks;
    m->repetition_samples = NULL;
    m->samples = NULL;
    m->blocks = NULL;
    kb_status st = kb_bench_result_summarize(r);
    if (st == KB_OK)
        st = kb_bench_result_roofline_probed(r, env->peaks, env->probes,
                                             env->probes ? *env->nprobes : 0);
    if (st != KB_OK) {
        r->failed = true;
        r->error = kb_strdup(kb_last_error());
    }
    return st == KB_ENOMEM ? st : KB_OK;
}

/* Moves what an implementation measured into its result, with its own counts (the group's,
 * unless the definition's counts callback changed them). */
static kb_status fill_result(kb_impl *m, int repetitions, const kb_measure_env *env,
                             kb_bench_result *r) {
    const kb_bench_spec *s = m->spec;
    memset(r, 0, sizeof *r);
    r->name = kb_strdup(s->name);
    r->group = kb_strdup(s->group);
    r->params = calloc((size_t)(s->nparams ? s->nparams : 1), sizeof *r->params);
    if (!r->name || !r->group || !r->params)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; i < s->nparams; i++) {
        r->params[i].name = kb_strdup(s->param_names[i]);
        r->params[i].value = kb_strdup(s->param_values[i]);
        r->params[i].implementation = s->param_impl[i];
        r->nparams = i + 1;
        if (!r->params[i].name || !r->params[i].value)
            return KB_ENOMEM;
    }
    r->simd = m->simd_used;
    r->threads = m->threads_used;
    return finish_result(m, &m->c, m->c.flop_type, repetitions, env, r);
}

/* ---- Baselines ---- */

/* What a group shares with its baselines, while it is measured. */
typedef struct baseline_group {
    kb_bench_baseline_case bc;
    bool described;
    char input[4096];
    int count; /* baseline implementations after the group's own */
    char output[KB_MEASURE_MAX_BASELINES][4096];
    char error[KB_MEASURE_MAX_BASELINES][256]; /* a setup that failed: its result fails */
    int threads[KB_MEASURE_MAX_BASELINES];
    /* The case's id in the runner, and the part of its name after the group's. */
    char id[KB_MEASURE_MAX_BASELINES][48];
    char suffix[KB_MEASURE_MAX_BASELINES][64];
    bool per_thread_count[KB_MEASURE_MAX_BASELINES];
} baseline_group;

/* Adds t to the k distinct thread counts in counts, up to KB_MEASURE_MAX_THREAD_COUNTS of
 * them; returns how many there are now. */
static int add_thread_count(int *counts, int k, int t) {
    for (int j = 0; j < k; j++)
        if (counts[j] == t)
            return k;
    if (k < KB_MEASURE_MAX_THREAD_COUNTS)
        counts[k++] = t;
    return k;
}

/* The distinct thread counts of the group's implementations, in plan order; a group without
 * a threads parameter runs at the harness's current count. */
static int thread_counts(const kb_impl *impls, int n, int *counts) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        int t = impls[i].threads;
        if (t <= 0 && kb_threads_current(&t) != KB_OK)
            t = 1;
        k = add_thread_count(counts, k, t);
    }
    return k;
}

/* NumPy, single-threaded, runs once per group; numexpr, PyTorch (eager and compiled), JAX,
 * kbench through Python and another kbench at each of its thread counts, so that a row at one
 * thread holds kbench to a library at one thread. */
static bool per_thread_count(unsigned library) {
    return library == KB_BASELINE_NUMEXPR || library == KB_BASELINE_TORCH ||
           library == KB_BASELINE_TORCH_COMPILE || library == KB_BASELINE_JAX ||
           library == KB_BASELINE_PYTHON_MODULE || library == KB_BASELINE_KBENCH;
}

/* The runner that times a library. */
static kb_baseline_process *runner_of(const kb_measure_env *env, unsigned library) {
    return library == KB_BASELINE_KBENCH ? env->kbench_baseline : env->baseline;
}

static bool any_runner(const kb_measure_env *env) {
    return env->baseline || env->kbench_baseline;
}

int kb_measure_baselines_planned(const kb_bench_plan *plan, int first, int end,
                                 const kb_measure_env *env) {
    if (!any_runner(env) || !plan->cases[first].baseline_case)
        return 0;
    /* A case without a threads parameter counts apart from the others: it runs at the
     * harness's count of the moment, which may turn out to be another case's. */
    int counts[KB_MEASURE_MAX_THREAD_COUNTS], ncounts = 0;
    for (int i = first; i < end; i++)
        ncounts = add_thread_count(counts, ncounts, spec_threads(&plan->cases[i]));
    int n = 0;
    for (unsigned library = KB_BASELINE_NUMPY; library <= KB_BASELINE_KBENCH; library <<= 1)
        if (env->settings->baselines & library)
            n += per_thread_count(library) ? ncounts : 1;
    return n;
}

/* A baseline the library cannot compute: named in the run's results, not timed. */
static kb_status report_unsupported(const kb_measure_env *env, const char *group,
                                    const char *suffix, const char *library, const char *why) {
    if (!env->unsupported)
        return KB_OK;
    char name[512];
    snprintf(name, sizeof name, "%s/%s", group, suffix);
    const char *prefix = "baseline setup: ";
    if (strncmp(why, prefix, strlen(prefix)) == 0)
        why += strlen(prefix);
    json_t *entry = json_pack("{ss ss ss}", "case", name, "library", library, "reason", why);
    if (!entry || json_array_append_new(env->unsupported, entry) != 0)
        return kb_fail(KB_ENOMEM, "out of memory");
    return KB_OK;
}

/* Removes the files the group shared with the runner, and forgets them. */
static void remove_baseline_files(baseline_group *g) {
    if (!g->input[0])
        return;
    remove(g->input);
    kb_cleanup_forget(g->input);
    for (int i = 0; i < g->count; i++) {
        remove(g->output[i]);
        kb_cleanup_forget(g->output[i]);
    }
    g->input[0] = '\0';
}

/* Leaves why empty when the runner computes the case at the thread count asked for, as its
 * setup reply says ("threads": what the library reports; null for a case without a count);
 * else says how many it runs: the row would compare kbench with the library at another count. */
static void threads_as_asked(const json_t *reply, int asked, const char *library, char *why,
                             size_t size) {
    const json_t *t = json_object_get(reply, "threads");
    if (json_is_integer(t) && json_integer_value(t) != asked)
        snprintf(why, size, "baseline: %s runs %lld threads, not the %d asked for", library,
                 (long long)json_integer_value(t), asked);
}

/* Asks the runner to set up each requested library for the group (PyTorch and JAX once per
 * thread count of the group's implementations); appends an implementation for each it can
 * compute (failed already when its setup failed) and reports the ones it cannot. */
static kb_status baseline_setup(const kb_bench_spec *lead, const kb_bench_case *group,
                                const kb_measure_env *env, kb_impl *impls, int n,
                                baseline_group *g) {
    g->count = 0;
    g->input[0] = '\0';
    if (!any_runner(env) || !lead->baseline_case)
        return KB_OK;
    memset(&g->bc, 0, sizeof g->bc);
    kb_status st = lead->baseline_case(group, &g->bc);
    json_error_t e;
    json_t *spec = st == KB_OK ? json_loads(g->bc.spec, 0, &e) : NULL;
    snprintf(g->input, sizeof g->input, "%s/input.npy", env->baseline_dir);
    if (spec && (kb_cleanup_add(g->input) != KB_OK ||
                 kb_npy_write(g->input, g->bc.input, KB_ORDER_C, 0) != KB_OK)) {
        json_decref(spec);
        spec = NULL;
    }
    const char *why = st != KB_OK || !spec ? kb_last_error() : NULL;
    int counts[KB_MEASURE_MAX_THREAD_COUNTS];
    int ncounts = thread_counts(impls, n, counts);
    st = KB_OK;
    for (unsigned library = KB_BASELINE_NUMPY; library <= KB_BASELINE_KBENCH && st == KB_OK;
         library <<= 1) {
        if (!(env->settings->baselines & library))
            continue;
        const char *name = kb_baseline_name(library);
        bool per_count = per_thread_count(library);
        for (int c = 0; c < (per_count ? ncounts : 1) && st == KB_OK; c++) {
            int i = g->count;
            g->per_thread_count[i] = per_count;
            g->threads[i] = per_count ? counts[c] : 1; /* NumPy computes on one thread */
            if (per_count) {
                snprintf(g->id[i], sizeof g->id[i], "%s/threads=%d", name, g->threads[i]);
                snprintf(g->suffix[i], sizeof g->suffix[i], "baseline=%s/threads=%d", name,
                         g->threads[i]);
            } else {
                snprintf(g->id[i], sizeof g->id[i], "%s", name);
                snprintf(g->suffix[i], sizeof g->suffix[i], "baseline=%s", name);
            }
            snprintf(g->output[i], sizeof g->output[i], "%s/output-%d.npy", env->baseline_dir, i);
            g->error[i][0] = '\0';
            bool unsupported = false;
            json_t *reply = NULL;
            if (!why && kb_cleanup_add(g->output[i]) != KB_OK) {
                snprintf(g->error[i], sizeof g->error[i], "baseline: %s", kb_last_error());
            } else if (why) {
                snprintf(g->error[i], sizeof g->error[i], "baseline: %s", why);
            } else if (kb_baseline_setup_id(runner_of(env, library), g->id[i], name, spec, g->input,
                                            g->output[i], g->threads[i], &unsupported,
                                            &reply) != KB_OK) {
                if (unsupported) {
                    kb_cleanup_forget(g->output[i]); /* the slot goes to the next library */
                    st = report_unsupported(env, lead->group, g->suffix[i], name, kb_last_error());
                    continue;
                }
                snprintf(g->error[i], sizeof g->error[i], "baseline: %s", kb_last_error());
            } else {
                threads_as_asked(reply, g->threads[i], name, g->error[i], sizeof g->error[i]);
            }
            json_decref(reply);
            kb_impl *m = &impls[n + i];
            memset(m, 0, sizeof *m);
            m->c = *group;
            m->baseline = runner_of(env, library);
            m->library = name;
            m->id = g->id[i];
            m->threads_used = g->threads[i];
            m->repetition_samples =
                calloc((size_t)env->settings->repetitions, sizeof *m->repetition_samples);
            if (!m->repetition_samples)
                st = kb_fail(KB_ENOMEM, "out of memory");
            else if (g->error[i][0])
                kb_impl_fail(m, g->error[i]);
            g->count++;
        }
    }
    json_decref(spec);
    g->described = why == NULL;
    return st;
}

/* The result of a baseline: a case of the group named <group>/baseline=<library>, and
 * /threads=<n> after it for a library timed at each thread count. */
static kb_status fill_baseline_result(kb_impl *m, const kb_bench_spec *lead,
                                      const kb_bench_case *group, const baseline_group *g,
                                      int index, int repetitions, const kb_measure_env *env,
                                      kb_bench_result *r) {
    memset(r, 0, sizeof *r);
    size_t len = strlen(lead->group) + strlen(g->suffix[index]) + 2;
    int extra = g->per_thread_count[index] ? 2 : 1;
    r->name = malloc(len);
    r->group = kb_strdup(lead->group);
    r->baseline = kb_strdup(m->library);
    r->params = calloc((size_t)(group->nparams + extra), sizeof *r->params);
    if (!r->name || !r->group || !r->baseline || !r->params)
        return kb_fail(KB_ENOMEM, "out of memory");
    snprintf(r->name, len, "%s/%s", lead->group, g->suffix[index]);
    char threads[16];
    snprintf(threads, sizeof threads, "%d", g->threads[index]);
    for (int i = 0; i < group->nparams + extra; i++) {
        bool own = i < group->nparams;
        r->params[i].name = kb_strdup(own                   ? group->param_names[i]
                                      : i == group->nparams ? "baseline"
                                                            : "threads");
        r->params[i].value = kb_strdup(own                   ? group->param_values[i]
                                       : i == group->nparams ? m->library
                                                             : threads);
        r->params[i].implementation = !own;
        r->nparams = i + 1;
        if (!r->params[i].name || !r->params[i].value)
            return kb_fail(KB_ENOMEM, "out of memory");
    }
    /* The library picks its own instructions: it is held against the best level this CPU
     * has, the highest peak. */
    kb_simd_level level = KB_SIMD_SCALAR;
    for (int l = 1; l < KB_SIMD_LEVEL_COUNT; l++)
        if (kb_simd_available((kb_simd_level)l) && kb_fma_available((kb_simd_level)l))
            level = (kb_simd_level)l;
    r->simd = level;
    r->threads = m->threads_used;
    /* The bytes a baseline is held to: at most the least any implementation of the case moves,
     * its input read once and its result (the group's last, as checked below) written once.
     * kbench cannot know how a library computes, and one that fuses (torch.compile, XLA)
     * moves less than a group's count of an eager evaluation: held to that, it would be
     * called impossible. A reduction's count is already that least. kbench itself, through
     * its Python module or another build, computes as the group counts. */
    kb_bench_case counted = *group;
    const kb_array *in = g->bc.input, *out = g->bc.output;
    unsigned others = KB_BASELINE_PYTHON & ~(unsigned)KB_BASELINE_PYTHON_MODULE;
    if ((kb_baseline_from_name(m->library) & others) && in && out && out->data) {
        double least = (double)kb_array_size(in) * (double)kb_dtype_size(in->dtype) +
                       (double)kb_array_size(out) * (double)kb_dtype_size(out->dtype);
        if (least > 0 && least < counted.bytes_per_call)
            counted.bytes_per_call = least;
    }
    /* The type a baseline computes in is its own (NumPy sums float32 in float32): it is held
     * against the float32 peak, the higher, which cannot make it look impossible. */
    return finish_result(m, &counted, KB_FLOP_F32, repetitions, env, r);
}

/* Checks the group's output against each baseline's result, as the runner saved it. */
static kb_status check_baselines(kb_impl *impls, int n, const baseline_group *g,
                                 kb_bench_result *results) {
    bool own_output = standing(impls, n) > 0;
    for (int i = 0; i < g->count; i++) {
        kb_bench_result *r = &results[n + i];
        if (r->failed || !g->described || !own_output)
            continue;
        kb_array theirs;
        char detail[256];
        kb_status st = kb_npy_read(g->output[i], &theirs, NULL);
        if (st == KB_OK) {
            st = kb_baseline_check(&g->bc, &theirs, &r->check_error, detail, sizeof detail);
            kb_array_free(&theirs);
        } else {
            snprintf(detail, sizeof detail, "cannot read the baseline's result: %s",
                     kb_last_error());
            r->check_error = INFINITY;
            st = KB_OK;
        }
        if (st != KB_OK)
            return st;
        r->check_ok = r->check_error <= 1;
        if (!r->check_ok && !(r->check_detail = kb_strdup(detail)))
            return kb_fail(KB_ENOMEM, "out of memory");
    }
    return KB_OK;
}

/* The run's probes of the figures the group's implementations will be held against, at the
 * thread counts they run at (baselines: as baseline_setup chose them). */
static void probe_group(const kb_measure_env *env, const kb_bench_case *group, const kb_impl *impls,
                        int all) {
    int current = 1, threads[64]; /* distinct counts: a handful */
    int n = 0;
    if (kb_threads_current(&current) != KB_OK)
        current = 1;
    for (int i = 0; i < all; i++) {
        if (impls[i].failed)
            continue;
        int t = impls[i].threads > 0 ? impls[i].threads
                : impls[i].baseline  ? impls[i].threads_used
                                     : current;
        bool seen = false;
        for (int k = 0; k < n; k++)
            seen |= threads[k] == t;
        if (!seen && n < (int)(sizeof threads / sizeof *threads))
            threads[n++] = t;
    }
    kb_probes_before_group(env->probe, group, threads, n);
}

kb_status kb_measure_group(const kb_bench_plan *plan, int first, int end, const kb_measure_env *env,
                           kb_bench_result *results, int *nbaselines) {
    int n = end - first;
    *nbaselines = 0;
    const kb_bench_spec *lead = &plan->cases[first];
    kb_bench_case group;
    group_case(lead, &group);
    kb_impl *impls = calloc((size_t)(n + KB_MEASURE_MAX_BASELINES), sizeof *impls);
    baseline_group *g = calloc(1, sizeof *g);
    if (!impls || !g) {
        free(impls);
        free(g);
        return kb_fail(KB_ENOMEM, "out of memory");
    }
    /* Settings first, so that setup allocates where (and with the threads) the first
     * implementation will run. */
    kb_status st = KB_OK;
    for (int i = 0; i < n; i++) {
        impl_init(&impls[i], &plan->cases[first + i], &group);
        impls[i].repetition_samples =
            calloc((size_t)env->settings->repetitions, sizeof *impls[i].repetition_samples);
        if (!impls[i].repetition_samples)
            st = kb_fail(KB_ENOMEM, "out of memory");
    }
    if (env->pin && st == KB_OK) {
        int most = 1;
        for (int i = 0; i < n; i++)
            if (impls[i].threads > most)
                most = impls[i].threads;
        if (kb_pin_threads(env->pin, most) != KB_OK)
            for (int i = 0; i < n; i++)
                kb_impl_fail(&impls[i], kb_last_error());
    }

    bool set_up = lead->setup == NULL; /* teardown pairs with a setup that succeeded */
    if (st == KB_OK && lead->setup && standing(impls, n) > 0) {
        kb_fail(KB_OK, "%s", ""); /* so that a stale message is not blamed on setup */
        kb_status rc = lead->setup(&group);
        if (rc != KB_OK || group.status != KB_OK) {
            char message[512];
            const char *why = group.error[0]       ? group.error
                              : kb_last_error()[0] ? kb_last_error()
                                                   : kb_strerror(rc);
            snprintf(message, sizeof message, "setup: %s", why);
            for (int i = 0; i < n; i++)
                kb_impl_fail(&impls[i], message);
        } else {
            set_up = true;
        }
    }
    if (set_up && st == KB_OK)
        st = baseline_setup(lead, &group, env, impls, n, g);
    if (st == KB_OK && env->ready)
        env->ready(env->ready_arg, g->count);
    int all = n + g->count;
    for (int i = 0; i < all; i++) {
        /* The group's data and counts, as setup left them. */
        impls[i].c.data = group.data;
        impls[i].c.bytes_per_call = group.bytes_per_call;
        impls[i].c.flops_per_call = group.flops_per_call;
        impls[i].c.traffic = group.traffic;
        impls[i].c.flop_type = group.flop_type;
        impls[i].c.working_set_bytes = group.working_set_bytes;
        /* An implementation that moves other bytes than the group's count says so. */
        if (i < n && set_up && !impls[i].failed && impls[i].spec->counts)
            impls[i].spec->counts(&impls[i].c);
    }

    if (st == KB_OK && set_up && env->probe)
        probe_group(env, &group, impls, all);
    if (st == KB_OK) {
        bool cold = env->flush != NULL;
        for (int i = 0; i < all; i++)
            if (!impls[i].failed && kb_impl_apply(&impls[i])) {
                place(env, &impls[i]);
                kb_calibrate(&impls[i], env->target_ns, env->warmup_ns, cold);
            }
        st = sample_rounds(impls, all, env);
        colocate(env, false); /* the probes and setups of the next group run anywhere */
    }

    for (int i = 0; i < all && st != KB_ENOMEM; i++) {
        kb_status rc = i < n ? fill_result(&impls[i], env->settings->repetitions, env, &results[i])
                             : fill_baseline_result(&impls[i], lead, &group, g, i - n,
                                                    env->settings->repetitions, env, &results[i]);
        if (rc != KB_OK)
            st = rc;
    }
    *nbaselines = g->count;
    /* While the group's output still holds its last result. */
    if (st == KB_OK)
        st = check_baselines(impls, n, g, results);
    /* The input is written even when no library can compute the case. */
    if (g->count > 0) {
        if (env->baseline)
            kb_baseline_teardown(env->baseline);
        if (env->kbench_baseline)
            kb_baseline_teardown(env->kbench_baseline);
    }
    remove_baseline_files(g);
    if (set_up && lead->teardown)
        lead->teardown(&group);
    for (int i = 0; i < all; i++) {
        free(impls[i].samples);
        free(impls[i].repetition_samples);
        free(impls[i].blocks);
    }
    free(impls);
    free(g);
    return st;
}
