/* The harness's settings: their defaults and the checks of their ranges. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/bench.h"

const char *kb_bench_cache_name(kb_bench_cache cache) {
    switch (cache) {
        case KB_BENCH_CACHE_HOT:
            return "hot";
        case KB_BENCH_CACHE_COLD:
            return "cold";
    }
    return "?";
}

const char *kb_baseline_name(unsigned library) {
    switch (library) {
        case KB_BASELINE_NUMPY:
            return "numpy";
        case KB_BASELINE_NUMEXPR:
            return "numexpr";
        case KB_BASELINE_TORCH:
            return "torch";
        case KB_BASELINE_TORCH_COMPILE:
            return "torch-compile";
        case KB_BASELINE_JAX:
            return "jax";
        case KB_BASELINE_PYTHON_MODULE:
            return "python";
        case KB_BASELINE_KBENCH:
            return "kbench";
        default:
            return "?";
    }
}

unsigned kb_baseline_from_name(const char *name) {
    for (unsigned bit = KB_BASELINE_NUMPY; bit <= KB_BASELINE_KBENCH; bit <<= 1)
        if (strcmp(name, kb_baseline_name(bit)) == 0)
            return bit;
    return 0;
}

const char *kb_baseline_comparison(unsigned libraries) {
    bool python = libraries & KB_BASELINE_PYTHON, other = libraries & KB_BASELINE_KBENCH;
    /* kbench's module against at least one other Python library. */
    bool both_python = (libraries & KB_BASELINE_PYTHON_MODULE) &&
                       (libraries & KB_BASELINE_PYTHON & ~(unsigned)KB_BASELINE_PYTHON_MODULE);
    if (both_python)
        return other ? KB_BASELINE_COMPARISON_PYTHON "; " KB_BASELINE_COMPARISON_BOTH
                     : KB_BASELINE_COMPARISON_PYTHON "; " KB_BASELINE_COMPARISON;
    return python && other ? KB_BASELINE_COMPARISON_BOTH
           : other         ? KB_BASELINE_COMPARISON_KBENCH
                           : KB_BASELINE_COMPARISON;
}

void kb_bench_settings_default(kb_bench_settings *settings) {
    settings->min_time = KB_BENCH_DEFAULT_MIN_TIME;
    settings->min_samples = KB_BENCH_MIN_SAMPLES;
    settings->repetitions = 1;
    settings->cache = KB_BENCH_CACHE_HOT;
    settings->pin = false;
    settings->peaks = NULL;
    settings->baselines = 0;
    settings->kbench_baseline = NULL;
    settings->probe_seconds = 0;
    settings->monitor_interval_s = 0;
}

kb_status kb_bench_settings_check(const kb_bench_settings *s) {
    if (!(s->min_time > 0 && s->min_time <= 3600) || !isfinite(s->min_time))
        return kb_fail(KB_EINVAL, "minimum time must be above 0 and at most 3600 seconds, not %g",
                       s->min_time);
    if (s->min_samples < KB_BENCH_MIN_SAMPLES || s->min_samples > 1000000)
        return kb_fail(KB_EINVAL, "minimum samples must be from %d to 1000000, not %d",
                       KB_BENCH_MIN_SAMPLES, s->min_samples);
    if (s->repetitions < 1 || s->repetitions > 1000)
        return kb_fail(KB_EINVAL, "repetitions must be from 1 to 1000, not %d", s->repetitions);
    if (s->cache != KB_BENCH_CACHE_HOT && s->cache != KB_BENCH_CACHE_COLD)
        return kb_fail(KB_EINVAL, "invalid cache mode %d", (int)s->cache);
    if (s->baselines & ~(unsigned)(KB_BASELINE_PYTHON | KB_BASELINE_KBENCH))
        return kb_fail(KB_EINVAL, "unknown baseline library in %#x", s->baselines);
    if ((s->baselines & KB_BASELINE_KBENCH) && !(s->kbench_baseline && *s->kbench_baseline))
        return kb_fail(KB_EINVAL, "the kbench baseline needs the other build's executable");
    if (!(s->probe_seconds >= 0 && s->probe_seconds <= 60))
        return kb_fail(KB_EINVAL, "probe time must be from 0 to 60 seconds, not %g",
                       s->probe_seconds);
    if (s->monitor_interval_s != 0 &&
        !(s->monitor_interval_s >= 0.05 && s->monitor_interval_s <= 60))
        return kb_fail(KB_EINVAL,
                       "monitor interval must be 0 (none) or from 0.05 to 60 seconds, not %g",
                       s->monitor_interval_s);
    if (s->peaks && (s->peaks->sets[KB_PEAKS_ONE_THREAD].threads != 1 ||
                     s->peaks->sets[KB_PEAKS_ALL_THREADS].threads < 1))
        return kb_fail(KB_EINVAL, "the peaks hold no measurement");
    return KB_OK;
}
