/* kb_bench_run: measures every case of a plan, with its baselines, and collects the results. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/context.h"
#include "bench/flush.h"
#include "bench/measure.h"
#include "bench/pin.h"
#include "bench/plan.h"
#include "bench/probe.h"
#include "core/internal.h"
#include "kbench/monitor.h"
#include "kbench/threads.h"
#include "util/internal.h"

static double plan_cost(const kb_bench_plan *plan, int first, int end) {
    double cost = 0;
    for (int i = first; i < end; i++)
        cost += plan->cases[i].cost;
    return cost;
}

/* The estimate scales the time elapsed by the cost still to come over the cost of the groups
 * finished: there is none before a group has finished. */
static void progress_at(kb_bench_progress *p, int done, const char *current, int64_t start,
                        double done_cost, double total_cost) {
    p->done = done;
    p->current = current;
    p->elapsed_s = (double)(kb_bench_now_ns() - start) * 1e-9;
    p->remaining_s = done_cost > 0 ? p->elapsed_s * (total_cost - done_cost) / done_cost : -1;
}

/* The run's progress while one group is measured: what kb_measure_env.ready needs to tell the
 * observer that the group starts, with the results it will add. */
typedef struct group_progress {
    const kb_bench_observer *observer;
    kb_bench_progress *progress;
    const char *group;
    int own, planned; /* the group's cases, and the baselines counted for it in the total */
    int64_t start;
    double done_cost, total_cost;
} group_progress;

static void group_ready(void *arg, int nbaselines) {
    group_progress *g = arg;
    kb_bench_progress *p = g->progress;
    p->total -= g->planned - nbaselines;
    if (!g->observer || !g->observer->group_started)
        return;
    progress_at(p, p->done, g->group, g->start, g->done_cost, g->total_cost);
    p->group_size = g->own + nbaselines;
    g->observer->group_started(g->observer->arg, p);
}

/* The results the plan will have: its cases and the baselines asked for each group. */
static int planned_results(const kb_bench_plan *plan, const kb_measure_env *env) {
    int total = 0;
    for (int i = 0; i < plan->count;) {
        int end = kb_plan_group_end(plan, i);
        total += end - i + kb_measure_baselines_planned(plan, i, end, env);
        i = end;
    }
    return total;
}

/* Has the runner import each requested library, so that one that is missing fails the run
 * before any case, with the command that installs it; adds what each says of itself to the
 * runner's description. */
static kb_status require_libraries(kb_baseline_process *p, unsigned baselines, json_t *info) {
    json_t *libraries = json_object_get(info, "libraries");
    for (unsigned library = KB_BASELINE_NUMPY; library <= KB_BASELINE_KBENCH; library <<= 1) {
        if (!(baselines & library))
            continue;
        json_t *about;
        kb_status st = kb_baseline_require(p, kb_baseline_name(library), &about);
        if (st != KB_OK)
            return st;
        json_object_del(about, "library");
        if (json_is_object(libraries))
            json_object_set_new(libraries, kb_baseline_name(library), about);
        else
            json_decref(about);
    }
    return KB_OK;
}

/* Starts the baseline runner and a directory for the files it shares; records what it says of
 * itself in the context. */
static kb_status start_baselines(kb_bench_context *ctx, kb_measure_env *env, char *dir,
                                 size_t size) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, size, "%s/kbench-baseline-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    sigset_t held;
    kb_cleanup_hold(&held); /* no signal between the directory and its registration */
    if (!mkdtemp(dir)) {
        int error = errno;
        kb_cleanup_release(&held); /* the message after it: a signal's handler waits for holds */
        return kb_fail(KB_EIO, "cannot create a directory for the baselines' inputs in %s: %s",
                       tmp && *tmp ? tmp : "/tmp", strerror(error));
    }
    json_t *info = NULL;
    kb_status st = kb_cleanup_add(dir);
    kb_cleanup_release(&held);
    unsigned python = env->settings->baselines & KB_BASELINE_PYTHON;
    if (st == KB_OK && python)
        st = kb_baseline_start(NULL, NULL, &env->baseline);
    if (st == KB_OK && python)
        st = kb_baseline_hello(env->baseline, &info);
    if (st == KB_OK && python)
        st = require_libraries(env->baseline, python, info);
    /* Another build of kbench: what it says of itself joins the libraries. */
    if (st == KB_OK && (env->settings->baselines & KB_BASELINE_KBENCH)) {
        json_t *other = NULL;
        st = kb_baseline_start_kbench(env->settings->kbench_baseline, &env->kbench_baseline);
        if (st == KB_OK)
            st = kb_baseline_hello(env->kbench_baseline, &other);
        if (st == KB_OK && !info)
            info = json_pack("{s:o}", "libraries", json_object());
        if (st == KB_OK)
            st = require_libraries(env->kbench_baseline, KB_BASELINE_KBENCH, info);
        json_decref(other);
    }
    if (st == KB_OK && !(env->unsupported = json_array()))
        st = kb_fail(KB_ENOMEM, "out of memory");
    if (st == KB_OK) {
        ctx->baseline_info = kb_json_dumps(info, JSON_COMPACT | JSON_SORT_KEYS);
        if (!ctx->baseline_info)
            st = kb_fail(KB_ENOMEM, "out of memory");
    }
    json_decref(info);
    if (st != KB_OK) {
        json_decref(env->unsupported);
        env->unsupported = NULL;
        char reason[512];
        snprintf(reason, sizeof reason, "%s", kb_last_error());
        kb_baseline_stop(env->baseline);
        kb_baseline_stop(env->kbench_baseline);
        env->baseline = env->kbench_baseline = NULL;
        rmdir(dir);
        kb_cleanup_forget(dir);
        return kb_fail(st, "baselines: %s", reason);
    }
    env->baseline_dir = dir;
    return KB_OK;
}

/* What the monitor saw while each of a group's results took its samples: the outside activity
 * averaged over its sample blocks, weighted by their length. Called as the group ends, after a
 * sample that closes the monitor's current interval, so that the table can show it. */
static void usage_of_results(kb_monitor *monitor, kb_bench_result *results, int n) {
    kb_monitor_sample(monitor);
    for (int i = 0; i < n; i++) {
        kb_bench_result *r = &results[i];
        double weight = 0, outside = 0, steal = 0;
        for (int64_t b = 0; b < r->nblocks; b++) {
            double stolen, w = (double)(r->blocks[b].end_ns - r->blocks[b].start_ns);
            bool covered;
            double o = kb_monitor_outside(monitor, r->blocks[b].start_ns, r->blocks[b].end_ns,
                                          &stolen, &covered);
            if (!covered || !(w > 0))
                continue;
            weight += w;
            outside += w * o;
            steal += w * stolen;
        }
        if (r->failed || weight <= 0)
            continue;
        r->has_usage = true;
        r->outside_cpus = outside / weight;
        r->steal_cpus = steal / weight;
        r->contended = r->outside_cpus >= KB_USAGE_CONTENDED_CPUS;
    }
}

static int most_threads(const kb_bench_plan *plan, int fallback) {
    int most = fallback;
    for (int i = 0; i < plan->count; i++)
        for (int k = 0; k < plan->cases[i].nparams; k++)
            if (strcmp(plan->cases[i].param_names[k], "threads") == 0) {
                int t = atoi(plan->cases[i].param_values[k]);
                if (t > most)
                    most = t;
            }
    return most;
}

kb_status kb_bench_run(const kb_bench_plan *plan, const kb_bench_settings *settings,
                       const kb_bench_observer *observer, kb_results *results) {
    memset(results, 0, sizeof *results);
    kb_status st = kb_bench_settings_check(settings);
    if (st != KB_OK)
        return st;
    kb_simd_level saved_simd;
    int saved_threads;
    if ((st = kb_simd_current(&saved_simd)) != KB_OK ||
        (st = kb_threads_current(&saved_threads)) != KB_OK)
        return st;
    kb_bench_context *ctx = &results->context;
    if ((st = kb_context_fill(ctx, settings, plan)) != KB_OK) {
        kb_results_free(results);
        return st;
    }

    /* A sample lasts at least 1000 timer resolutions; hot samples are lengthened so that
     * about KB_BENCH_TARGET_SAMPLES fill the time budget, cold ones stay as short as the
     * timer allows. */
    double floor_ns = KB_BENCH_RESOLUTION_FACTOR * fmax(ctx->timer.resolution_ns, 1);
    double hot_ns = fmax(floor_ns, settings->min_time * 1e9 / KB_BENCH_TARGET_SAMPLES);
    bool cold = settings->cache == KB_BENCH_CACHE_COLD;
    kb_measure_env env = {
        .settings = settings,
        .target_ns = (int64_t)(cold ? floor_ns : hot_ns),
        .warmup_ns = (int64_t)(settings->min_time * 1e9 * 0.1),
    };
    ctx->sample_target_ns = env.target_ns;
    kb_probes probes = {ctx, settings->probe_seconds};
    if (ctx->has_peaks) {
        env.peaks = &ctx->peaks;
        if (settings->probe_seconds > 0) {
            env.probe = &probes;
            env.probes = ctx->probes;
            env.nprobes = &ctx->nprobes;
        }
    }

    kb_flush flush = {0};
    kb_pin pin;
    memset(&pin, 0, sizeof pin);
    int pin_team = most_threads(plan, saved_threads);
    if (cold) {
        if ((st = kb_flush_init(&flush, 2 * kb_context_llc_bytes(&ctx->machine))) != KB_OK) {
            kb_results_free(results);
            return st;
        }
        env.flush = &flush;
        ctx->flush_bytes = flush.bytes;
    }
    if (settings->pin) {
        if ((st = kb_pin_init(&pin)) != KB_OK) {
            kb_flush_free(&flush);
            kb_results_free(results);
            return st;
        }
        env.pin = &pin;
        kb_pin_describe(&pin, pin_team, ctx->pinned_cpus, (int)sizeof ctx->pinned_cpus);
    }

    char baseline_dir[4096];
    if (settings->baselines &&
        (st = start_baselines(ctx, &env, baseline_dir, sizeof baseline_dir)) != KB_OK) {
        if (settings->pin)
            kb_pin_restore(&pin, pin_team);
        kb_flush_free(&flush);
        kb_results_free(results);
        return st;
    }

    kb_colocate colocate;
    if (env.baseline || env.kbench_baseline) {
        kb_colocate_init(&colocate, !settings->pin);
        env.colocate = &colocate;
    }

    kb_monitor *monitor = NULL;
    if (settings->monitor_interval_s > 0 &&
        (st = kb_monitor_start(settings->monitor_interval_s, &monitor)) != KB_OK) {
        if (env.baseline || env.kbench_baseline) {
            kb_baseline_stop(env.baseline);
            kb_baseline_stop(env.kbench_baseline);
            rmdir(baseline_dir);
            kb_cleanup_forget(baseline_dir);
        }
        json_decref(env.unsupported);
        if (settings->pin)
            kb_pin_restore(&pin, pin_team);
        kb_flush_free(&flush);
        kb_results_free(results);
        return st;
    }

    kb_bench_progress progress = {.total = planned_results(plan, &env)};
    if (observer && observer->run_started)
        observer->run_started(observer->arg, ctx, progress.total);
    /* Room for each group's own cases and the baselines planned for it, at least as many as
     * it reports. */
    size_t capacity = (size_t)(progress.total > 0 ? progress.total : 1);
    results->cases = calloc(capacity, sizeof *results->cases);
    if (!results->cases)
        st = kb_fail(KB_ENOMEM, "out of memory");
    double total_cost = plan_cost(plan, 0, plan->count), done_cost = 0;
    int64_t start = kb_bench_now_ns();
    group_progress group = {
        .observer = observer, .progress = &progress, .start = start, .total_cost = total_cost};
    env.ready = group_ready;
    env.ready_arg = &group;
    for (int i = 0; i < plan->count && st == KB_OK;) {
        int end = kb_plan_group_end(plan, i);
        int first = results->ncases, nbaselines = 0;
        progress.done = first;
        group.group = plan->cases[i].group;
        group.own = end - i;
        group.planned = kb_measure_baselines_planned(plan, i, end, &env);
        group.done_cost = done_cost;
        st = kb_measure_group(plan, i, end, &env, &results->cases[first], &nbaselines);
        results->ncases = first + (end - i) + nbaselines;
        if (monitor)
            usage_of_results(monitor, &results->cases[first], results->ncases - first);
        done_cost += plan_cost(plan, i, end);
        /* Every result is a row of the table and a case of the results, baselines too. */
        for (int k = first;
             k < results->ncases && st == KB_OK && observer && observer->case_finished; k++) {
            progress_at(&progress, k + 1, end < plan->count ? plan->cases[end].group : NULL, start,
                        done_cost, total_cost);
            observer->case_finished(observer->arg, &results->cases[k], &progress);
        }
        i = end;
    }

    if (env.baseline || env.kbench_baseline) {
        kb_status stop = kb_baseline_stop(env.baseline),
                  other = kb_baseline_stop(env.kbench_baseline);
        if (st == KB_OK && stop != KB_OK)
            st = stop;
        if (st == KB_OK && other != KB_OK)
            st = other;
        rmdir(baseline_dir);
        kb_cleanup_forget(baseline_dir);
        if (st == KB_OK &&
            !(ctx->baseline_unsupported = kb_json_dumps(env.unsupported, JSON_COMPACT)))
            st = kb_fail(KB_ENOMEM, "out of memory");
        json_decref(env.unsupported);
    }
    kb_monitor_stop(monitor, &ctx->usage);
    if (st == KB_OK && env.probe)
        kb_probes_after(&probes);
    if (kb_clock_measure(0, 0, &ctx->clock_end) != KB_OK)
        memset(&ctx->clock_end, 0, sizeof ctx->clock_end);
    kb_simd_set((int)saved_simd);
    kb_threads_set(saved_threads);
    if (settings->pin)
        kb_pin_restore(&pin, pin_team);
    kb_flush_free(&flush);
    if (st != KB_OK)
        kb_results_free(results);
    return st;
}
