/* The order of the sampling rounds when a group is interleaved with baselines: with hot
 * caches every block of samples follows an untimed call of its own implementation (or a sample
 * that left the caches as that call would), with cold caches every sample follows a flush, for
 * kbench's implementations and the baselines alike; the runner is asked for exactly that; a
 * baseline that cannot compute a case is reported; the baselines planned for a group, and
 * those it has, told before anything is run (what progress counts); a working set between the
 * L2 caches and the last-level cache refilled by several calls. A fake runner logs the requests
 * it gets; no timing is asserted. */
#include <dirent.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/measure.h"
#include "core/cache_size.h"
#include "kbench/bench.h"

static char temp_dir[512];

static int make_temp_dir(void **state) {
    const char *base = getenv("TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/kb_test_order_XXXXXX", base && *base ? base : "/tmp");
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    return mkdtemp(temp_dir) ? 0 : -1;
}

static int remove_temp_dir(void **state) {
    DIR *dir = opendir(temp_dir);
    if (!dir)
        return -1;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", temp_dir, e->d_name);
        unlink(path);
    }
    closedir(dir);
    return rmdir(temp_dir);
}

/* Answers every request as the real runner would, without computing anything: a sample
 * lasts 100 ns a call; PyTorch cannot compute mean. Logs each run and setup request. */
static const char fake_runner[] =
    "import json, os, sys\n"
    "log = open(os.environ['KB_TEST_ORDER_LOG'], 'a')\n"
    "for line in sys.stdin:\n"
    "    r = json.loads(line)\n"
    "    cmd = r.get('cmd')\n"
    "    reply = {'ok': True}\n"
    "    if cmd == 'hello':\n"
    "        reply['libraries'] = {'numpy': {'version': 'fake'}, 'numexpr': None}\n"
    "    elif cmd == 'setup':\n"
    "        log.write(line); log.flush()\n"
    "        if r['library'] == 'torch' and r['case']['op'] == 'mean':\n"
    "            reply = {'ok': False, 'unsupported': True,\n"
    "                     'error': 'PyTorch has no mean of this (fake)'}\n"
    "        else:\n"
    "            reply.update(library=r['library'], id=r.get('id'), result_dtype='float64',\n"
    "                         result_shape=[], threads=r['threads'])\n"
    "    elif cmd == 'run':\n"
    "        log.write(line); log.flush()\n"
    "        reply['sample_ns'] = [100 * r['calls']] * r['samples']\n"
    "    print(json.dumps(reply), flush=True)\n"
    "    if cmd == 'quit':\n"
    "        break\n";

typedef struct group_data {
    kb_array in, out;
} group_data;

/* The working set the group's setup reports (0: its bytes per call), and the calls of the last
 * run of one of its own implementations. */
static int64_t case_working_set;
static int64_t last_run_calls;

static kb_status setup(kb_bench_case *c) {
    group_data *d = calloc(1, sizeof *d);
    int64_t n = 64;
    if (!d || kb_array_new(&d->in, KB_F64, 1, &n, KB_ORDER_C) != KB_OK ||
        kb_array_new(&d->out, KB_F64, 0, NULL, KB_ORDER_C) != KB_OK)
        return kb_bench_fail(c, KB_ENOMEM, "out of memory");
    memset(d->in.data, 0, 64 * sizeof(double));
    c->data = d;
    c->bytes_per_call = 512;
    c->working_set_bytes = case_working_set;
    return KB_OK;
}

static void run(kb_bench_case *c, int64_t calls) {
    last_run_calls = calls;
    volatile double x = 1;
    for (int64_t i = 0; i < calls; i++)
        x = x * 1.0000001 + 1e-9;
}

static void teardown(kb_bench_case *c) {
    group_data *d = c->data;
    kb_array_free(&d->in);
    kb_array_free(&d->out);
    free(d);
}

/* Group "op=sum" has all its baselines; "op=mean" none from PyTorch. */
static kb_status baseline_case(const kb_bench_case *c, kb_bench_baseline_case *out) {
    const group_data *d = c->data;
    snprintf(out->spec, sizeof out->spec, "{\"kind\":\"reduce\",\"op\":\"%s\",\"axis\":null}",
             kb_bench_param(c, "op"));
    out->input = &d->in;
    out->output = &d->out;
    out->atol = 1;
    return KB_OK;
}

static const char *const ops[] = {"sum", "mean", NULL};
static const char *const impls[] = {"a", "b", NULL};
static const kb_bench_axis axes[] = {
    {"op", ops, 0}, {"impl", impls, KB_BENCH_AXIS_IMPLEMENTATION}, {NULL, NULL, 0}};
static const kb_bench_def def = {.name = "order",
                                 .axes = axes,
                                 .setup = setup,
                                 .run = run,
                                 .teardown = teardown,
                                 .baseline_case = baseline_case};

enum { MAX_STEPS = 200000 };

typedef struct trace_log {
    int n;
    kb_measure_step step[MAX_STEPS];
    int impl[MAX_STEPS];
    int cpus[MAX_STEPS];      /* how many CPUs this thread might run on at the step */
    int64_t calls[MAX_STEPS]; /* at an own implementation's untimed call: its calls */
} trace_log;

static trace_log steps;
/* The thread count each implementation of the first group was timed at. */
static int impl_threads[4];

static void record(void *arg, kb_measure_step step, int impl) {
    trace_log *t = arg;
    if (t->n < MAX_STEPS) {
        cpu_set_t set;
        t->step[t->n] = step;
        t->impl[t->n] = impl;
        t->cpus[t->n] = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
        t->calls[t->n] = last_run_calls;
        t->n++;
    }
}

/* What kb_measure_env.ready was told, group after group. */
typedef struct ready_log {
    int n;
    int nbaselines[4];
    int steps_before[4]; /* the trace's length at the time */
} ready_log;

static void note_ready(void *arg, int nbaselines) {
    ready_log *r = arg;
    if (r->n < 4) {
        r->steps_before[r->n] = steps.n;
        r->nbaselines[r->n++] = nbaselines;
    }
}

/* The group's own implementations come first: a and b. */
static bool own(int impl) {
    return impl < 2;
}

/* Runs both groups with NumPy and PyTorch as baselines; returns the fake runner's log of the
 * first. */
static char *measure(bool cold, bool colocate, int *nbaselines_sum, json_t **unsupported) {
    char script[1024], log_path[1024];
    snprintf(script, sizeof script, "%s/fake_runner.py", temp_dir);
    snprintf(log_path, sizeof log_path, "%s/requests.log", temp_dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs(fake_runner, f);
    fclose(f);
    unlink(log_path);
    setenv("KB_TEST_ORDER_LOG", log_path, 1);

    kb_bench_plan *plan;
    assert_int_equal(kb_bench_plan_new(&plan), KB_OK);
    assert_int_equal(kb_bench_plan_add(plan, &def), KB_OK);
    kb_bench_settings settings;
    kb_bench_settings_default(&settings);
    settings.min_time = 0.002;
    settings.baselines = KB_BASELINE_NUMPY | KB_BASELINE_TORCH;
    kb_flush flush = {0};
    if (cold)
        assert_int_equal(kb_flush_init(&flush, 1 << 20), KB_OK);
    ready_log ready = {0};
    kb_measure_env env = {.settings = &settings,
                          .target_ns = 20000,
                          .warmup_ns = 0,
                          .flush = cold ? &flush : NULL,
                          .baseline_dir = temp_dir,
                          .unsupported = json_array(),
                          .trace = record,
                          .trace_arg = &steps,
                          .ready = note_ready,
                          .ready_arg = &ready};
    kb_colocate placement;
    if (colocate) { /* as kbench run places a run with baselines */
        kb_colocate_init(&placement, true);
        env.colocate = &placement;
    }
    assert_int_equal(kb_baseline_start(NULL, script, &env.baseline), KB_OK);
    json_t *info;
    assert_int_equal(kb_baseline_hello(env.baseline, &info), KB_OK);
    json_decref(info);

    kb_bench_result *results = calloc(2 + KB_MEASURE_MAX_BASELINES, sizeof *results);
    kb_bench_result *more = calloc(2 + KB_MEASURE_MAX_BASELINES, sizeof *more);
    assert_true(results && more);
    memset(&steps, 0, sizeof steps);
    int nbaselines = 0;
    /* NumPy, and PyTorch at the one thread count of cases without a threads parameter. */
    assert_int_equal(kb_measure_baselines_planned(plan, 0, 2, &env), 2);
    assert_int_equal(kb_measure_group(plan, 0, 2, &env, results, &nbaselines), KB_OK);
    assert_int_equal(nbaselines, 2);
    assert_int_equal(ready.n, 1);
    assert_int_equal(ready.nbaselines[0], 2);
    assert_int_equal(ready.steps_before[0], 0); /* before anything was run */
    assert_string_equal(results[2].name, "order/op=sum/baseline=numpy");
    assert_string_equal(results[3].name + strlen("order/op=sum/baseline=torch/threads="),
                        results[3].params[2].value);
    for (int i = 0; i < 4; i++) {
        assert_false(results[i].failed);
        assert_true(results[i].nsamples >= settings.min_samples);
        impl_threads[i] = results[i].threads;
    }
    /* Every sample of the group, own and baseline, was traced once. */
    int64_t sampled = 0;
    for (int k = 0; k < steps.n; k++)
        sampled += steps.step[k] == KB_MEASURE_SAMPLE;
    assert_int_equal(sampled, results[0].nsamples + results[1].nsamples + results[2].nsamples +
                                  results[3].nsamples);
    f = fopen(log_path, "r");
    assert_non_null(f);
    static char text[1 << 22];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    /* The mean group, traced elsewhere: PyTorch reports it cannot, and is not timed. */
    env.trace = NULL;
    assert_int_equal(kb_measure_baselines_planned(plan, 2, 4, &env), 2);
    assert_int_equal(kb_measure_group(plan, 2, 4, &env, more, nbaselines_sum), KB_OK);
    /* PyTorch, which cannot, comes off as the group is set up. */
    assert_int_equal(ready.n, 2);
    assert_int_equal(ready.nbaselines[1], *nbaselines_sum);

    assert_int_equal(kb_baseline_stop(env.baseline), KB_OK);
    *unsupported = env.unsupported;
    kb_flush_free(&flush);
    kb_bench_plan_free(plan);
    kb_results r = {.ncases = 4, .cases = results};
    kb_results_free(&r);
    r = (kb_results){.ncases = 2 + *nbaselines_sum, .cases = more};
    kb_results_free(&r);

    return text;
}

/* The fake runner's run requests with this field, and the samples they asked for. */
static void count_requests(const char *log, const char *key, int64_t *requests, int64_t *samples,
                           int64_t *value) {
    *requests = *samples = 0;
    *value = -1;
    for (const char *line = log; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        json_t *r = json_loadb(line, len, 0, NULL);
        if (r && strcmp(json_string_value(json_object_get(r, "cmd")), "run") == 0 &&
            json_object_get(r, key)) {
            (*requests)++;
            *samples += json_integer_value(json_object_get(r, "samples"));
            *value = json_integer_value(json_object_get(r, key));
        }
        json_decref(r);
        line += len + (end ? 1 : 0);
    }
}

/* The run requests of one library with this field whose value is not `want` (the fake
 * runner's setup lines name the library of each case id). */
static int64_t library_requests_not(const char *log, const char *library, const char *key,
                                    int64_t want) {
    json_t *libraries = json_object();
    int64_t other = 0;
    for (const char *line = log; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        json_t *r = json_loadb(line, len, 0, NULL);
        const char *cmd = r ? json_string_value(json_object_get(r, "cmd")) : NULL;
        const char *id = r ? json_string_value(json_object_get(r, "id")) : NULL;
        if (cmd && id && strcmp(cmd, "setup") == 0)
            json_object_set(libraries, id, json_object_get(r, "library"));
        json_t *v = r ? json_object_get(r, key) : NULL;
        const char *of = id ? json_string_value(json_object_get(libraries, id)) : NULL;
        if (v && cmd && strcmp(cmd, "run") == 0 && of && strcmp(of, library) == 0)
            other += json_integer_value(v) != want;
        json_decref(r);
        line += len + (end ? 1 : 0);
    }
    json_decref(libraries);
    return other;
}

/* The untimed calls of the fake runner's baselines (100 ns a call) at `threads` threads after
 * another process's block, in a group whose working set refills the caches or not: with
 * several threads, KB_MEASURE_SPREAD_NS of them (measure.h). */
static int64_t baseline_warm_calls(int threads, bool refill) {
    int64_t calls = refill ? KB_MEASURE_REFILL_CALLS : 1;
    return threads > 1 && KB_MEASURE_SPREAD_NS / 100 > calls ? KB_MEASURE_SPREAD_NS / 100 : calls;
}

static void hot_blocks_follow_their_own_call(void **state) {
    int nb;
    json_t *unsupported;
    const char *log = measure(false, false, &nb, &unsupported);
    int warms[4] = {0};
    for (int k = 0; k < steps.n; k++) {
        assert_int_not_equal(steps.step[k], KB_MEASURE_FLUSH);
        if (steps.step[k] == KB_MEASURE_WARM)
            warms[steps.impl[k]]++;
        if (steps.step[k] != KB_MEASURE_SAMPLE)
            continue;
        /* What ran just before: this implementation (its untimed call or its sample), or
         * the group's other implementation at the same thread count; never a baseline's. */
        assert_true(k > 0);
        int i = steps.impl[k], before = steps.impl[k - 1];
        if (before != i)
            assert_true(steps.step[k - 1] == KB_MEASURE_SAMPLE && own(i) && own(before));
    }
    /* The interleaving took place: a, after the baselines, and each baseline, after the
     * others, needed their untimed calls (b follows a, whose samples leave it hot). */
    assert_true(warms[0] > 0 && warms[2] > 0 && warms[3] > 0);
    /* The runner was asked for each of the baselines' untimed calls. */
    int64_t requests, samples, value;
    count_requests(log, "warmup", &requests, &samples, &value);
    assert_int_equal(requests, warms[2] + warms[3]);
    assert_int_equal(library_requests_not(log, "numpy", "warmup", 1), 0);
    assert_int_equal(
        library_requests_not(log, "torch", "warmup", baseline_warm_calls(impl_threads[3], false)),
        0);
    /* A multi-thread block beside another process lasts KB_MEASURE_THREADED_BLOCK_NS: here
     * more than the 2 ms of samples a case takes, so PyTorch's samples come in one request
     * when it runs several threads, and one a round otherwise, as the calibration's do. */
    int64_t blocks = library_requests_not(log, "torch", "samples", 1);
    assert_int_equal(blocks, impl_threads[3] > 1 ? 1 : 0);
    count_requests(log, "flush_bytes", &requests, &samples, &value);
    assert_int_equal(requests, 0);
    assert_int_equal(nb, 1); /* mean: NumPy only */
    json_decref(unsupported);
}

/* A working set beyond the L2 caches and within the last-level cache: every hot block after
 * other memory (a baseline's block, or the start) begins with KB_MEASURE_REFILL_CALLS untimed
 * calls, kbench's own and the runner's alike; one call where the set fits the L2 caches. */
static void hot_blocks_in_the_last_level_refill_it(void **state) {
    int64_t l2 = kb_cache_l2_bytes(), llc = kb_cache_llc_bytes();
    case_working_set = llc / 2;
    int nb;
    json_t *unsupported;
    const char *log = measure(false, false, &nb, &unsupported);
    case_working_set = 0;
    json_decref(unsupported);
    int own_warms = 0;
    for (int k = 0; k < steps.n; k++) {
        if (steps.step[k] != KB_MEASURE_WARM || !own(steps.impl[k]))
            continue;
        /* a and b run at the same thread count: only a baseline's block (or the start)
         * comes before an untimed call of theirs */
        bool beyond_l2 = llc / 2 > l2 * impl_threads[steps.impl[k]];
        int64_t base = beyond_l2 ? KB_MEASURE_REFILL_CALLS : 1;
        if (impl_threads[steps.impl[k]] == 1)
            assert_int_equal(steps.calls[k], base);
        else /* and KB_MEASURE_SPREAD_NS of calls of a few nanoseconds */
            assert_true(steps.calls[k] >= base && steps.calls[k] > KB_MEASURE_REFILL_CALLS);
        own_warms++;
    }
    assert_true(own_warms > 0);
    /* NumPy runs on one thread, PyTorch at its case's count. */
    assert_int_equal(impl_threads[2], 1);
    bool refill = llc / 2 > l2 * impl_threads[3] && llc / 2 > l2;
    if (refill)
        assert_int_equal(library_requests_not(log, "numpy", "warmup", KB_MEASURE_REFILL_CALLS), 0);
    assert_int_equal(
        library_requests_not(log, "torch", "warmup", baseline_warm_calls(impl_threads[3], refill)),
        0);
    int64_t requests, samples, value;
    count_requests(log, "warmup", &requests, &samples, &value);
    assert_true(requests > 0);
    /* The small group of the other tests: one call, or a multi-thread baseline's spread. */
    log = measure(false, false, &nb, &unsupported);
    json_decref(unsupported);
    assert_int_equal(library_requests_not(log, "numpy", "warmup", 1), 0);
    assert_int_equal(
        library_requests_not(log, "torch", "warmup", baseline_warm_calls(impl_threads[3], false)),
        0);
}

static void cold_samples_follow_a_flush(void **state) {
    int nb;
    json_t *unsupported;
    const char *log = measure(true, false, &nb, &unsupported);
    int64_t baseline_samples = 0;
    for (int k = 0; k < steps.n; k++) {
        assert_int_not_equal(steps.step[k], KB_MEASURE_WARM);
        if (steps.step[k] != KB_MEASURE_SAMPLE)
            continue;
        assert_true(k > 0);
        assert_int_equal(steps.step[k - 1], KB_MEASURE_FLUSH);
        assert_int_equal(steps.impl[k - 1], steps.impl[k]);
        baseline_samples += !own(steps.impl[k]);
    }
    /* Every baseline sample was asked for with the flush, in the runner's process. */
    int64_t requests, samples, value;
    count_requests(log, "flush_bytes", &requests, &samples, &value);
    assert_true(requests > 0);
    assert_int_equal(samples, baseline_samples);
    assert_int_equal(value, 1 << 20);
    count_requests(log, "warmup", &requests, &samples, &value);
    assert_int_equal(requests, 0);

    /* PyTorch's mean is reported as not supported, with the runner's reason. */
    assert_int_equal(json_array_size(unsupported), 1);
    json_t *entry = json_array_get(unsupported, 0);
    const char *name = json_string_value(json_object_get(entry, "case"));
    assert_non_null(name);
    assert_int_equal(strncmp(name, "order/op=mean/baseline=torch/threads=", 37), 0);
    assert_string_equal(json_string_value(json_object_get(entry, "library")), "torch");
    assert_string_equal(json_string_value(json_object_get(entry, "reason")),
                        "PyTorch has no mean of this (fake)");
    json_decref(unsupported);
}

static const char *const five_counts[] = {"1", "2", "3", "4", "5", NULL};
static const kb_bench_axis threaded_axes[] = {
    {"op", ops, 0}, {"threads", five_counts, KB_BENCH_AXIS_IMPLEMENTATION}, {NULL, NULL, 0}};

/* The baselines planned for a group, before it is set up: NumPy once, numexpr, PyTorch and
 * JAX at each thread count, up to KB_MEASURE_MAX_THREAD_COUNTS of them; none without a runner
 * or for a definition without baseline_case. */
static void baselines_planned_per_thread_count(void **state) {
    kb_bench_def threaded = def, unbased = def;
    threaded.name = "threaded";
    threaded.axes = threaded_axes;
    unbased.name = "unbased";
    unbased.baseline_case = NULL;
    kb_bench_plan *plan;
    assert_int_equal(kb_bench_plan_new(&plan), KB_OK);
    assert_int_equal(kb_bench_plan_add(plan, &threaded), KB_OK);
    assert_int_equal(kb_bench_plan_add(plan, &unbased), KB_OK);
    assert_int_equal(kb_bench_plan_size(plan), 10 + 4);
    kb_bench_settings settings;
    kb_bench_settings_default(&settings);
    settings.baselines =
        KB_BASELINE_NUMPY | KB_BASELINE_NUMEXPR | KB_BASELINE_TORCH | KB_BASELINE_JAX;
    kb_measure_env env = {.settings = &settings};
    assert_int_equal(kb_measure_baselines_planned(plan, 0, 5, &env), 0);

    char script[1024];
    snprintf(script, sizeof script, "%s/fake_runner.py", temp_dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs(fake_runner, f);
    fclose(f);
    assert_int_equal(kb_baseline_start(NULL, script, &env.baseline), KB_OK);
    assert_int_equal(kb_measure_baselines_planned(plan, 0, 5, &env),
                     1 + 3 * KB_MEASURE_MAX_THREAD_COUNTS);
    assert_int_equal(kb_measure_baselines_planned(plan, 0, 2, &env), 1 + 3 * 2);
    settings.baselines = KB_BASELINE_NUMPY | KB_BASELINE_NUMEXPR;
    assert_int_equal(kb_measure_baselines_planned(plan, 0, 5, &env),
                     1 + KB_MEASURE_MAX_THREAD_COUNTS);
    assert_int_equal(kb_measure_baselines_planned(plan, 0, 1, &env), 2);
    /* Every library at each of the most thread counts fits a group's room for baselines. */
    settings.baselines = KB_BASELINE_PYTHON | KB_BASELINE_KBENCH;
    assert_true(kb_measure_baselines_planned(plan, 0, 5, &env) <= KB_MEASURE_MAX_BASELINES);
    assert_int_equal(kb_measure_baselines_planned(plan, 10, 12, &env), 0);
    assert_int_equal(kb_baseline_stop(env.baseline), KB_OK);
    kb_bench_plan_free(plan);
}

/* With the placement kbench run uses with baselines, the single-thread implementations are
 * sampled first, in rounds of their own, with this thread on one CPU; the others after them,
 * with this thread on every CPU it had (bench/colocate.h). */
static void single_thread_rounds_on_one_cpu(void **state) {
    (void)state;
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    int all = CPU_COUNT(&set);
    int nb;
    json_t *unsupported;
    (void)measure(false, true, &nb, &unsupported);
    json_decref(unsupported);
    bool multi_seen = false;
    for (int k = 0; k < steps.n; k++) {
        if (steps.step[k] != KB_MEASURE_SAMPLE)
            continue;
        bool single = impl_threads[steps.impl[k]] == 1;
        assert_int_equal(steps.cpus[k], single ? 1 : all);
        if (!single)
            multi_seen = true;
        else
            assert_false(multi_seen); /* no single-thread sample after a multi-thread one */
    }
    /* NumPy computes on one thread: the rounds on one CPU took place. */
    assert_int_equal(impl_threads[2], 1);
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    assert_int_equal(CPU_COUNT(&set), all); /* given back after the group */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hot_blocks_follow_their_own_call),
        cmocka_unit_test(hot_blocks_in_the_last_level_refill_it),
        cmocka_unit_test(cold_samples_follow_a_flush),
        cmocka_unit_test(baselines_planned_per_thread_count),
        cmocka_unit_test(single_thread_rounds_on_one_cpu),
    };
    return cmocka_run_group_tests(tests, make_temp_dir, remove_temp_dir);
}
