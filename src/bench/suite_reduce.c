/* The built-in `reduce` suite: kb_reduce_into timed on random inputs, for every reduction,
 * shape, dtype, axis, SIMD level and thread count; and `quick`, a subset of the same cases
 * (same names) that runs in about a minute on a quiet machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/inputs.h"
#include "bench/plan.h"
#include "bench/suites.h"
#include "core/internal.h"
#include "kbench/machine.h"
#include "kbench/reduce.h"
#include "kbench/threads.h"

typedef struct reduce_data {
    kb_array in, out;
    kb_reduce_args args;
    int repeat;    /* whole kb_reduce_into per call: 1, or KB_TEST_SLOWDOWN's whole part */
    bool has_part; /* KB_TEST_SLOWDOWN has a fractional part: */
    kb_array part, part_out; /* the input's leading rows it covers, reduced once more per call */
} reduce_data;

static void reduce_teardown_data(reduce_data *d) {
    kb_array_free(&d->in);
    kb_array_free(&d->out);
    kb_array_free(&d->part_out);
    free(d);
}

static kb_status parse_shape(const char *text, int *ndim, int64_t *shape) {
    *ndim = 0;
    const char *p = text;
    while (*ndim < 2) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0)
            break;
        shape[(*ndim)++] = v;
        if (*end == '\0')
            return KB_OK;
        if (*end != 'x')
            break;
        p = end + 1;
    }
    return kb_fail(KB_EINVAL, "bad shape '%s' (expected N or NxM)", text);
}

/* For tests only (docs/measurement.md): KB_TEST_SLOWDOWN=FACTOR makes every float32 sum case
 * reduce its input FACTOR times per call, the same case under the same name and build really
 * doing more work, so that a regression can be made on purpose: end to end through history and
 * change-point detection, and for calibrating a CI gate. The result is the same, written
 * floor(FACTOR) times. A fractional part f (1.1: a 10% slowdown, the CI gate's calibration)
 * reduces the input's leading f of its rows (of its elements, in 1-D) once more in every call,
 * into an output of its own: every call does the same extra work, so the median moves as the
 * mean does (repeating a whole call in a fraction f of the calls would leave the median of most
 * samples unchanged). Read by each case's setup, never in the library's kernels. */
#define KB_TEST_SLOWDOWN_MAX 1000

static kb_status test_slowdown(kb_reduce_op op, kb_dtype dtype, double *factor) {
    *factor = 1;
    const char *text = getenv("KB_TEST_SLOWDOWN");
    if (!text || !*text || op != KB_REDUCE_SUM || dtype != KB_F32)
        return KB_OK;
    char *end;
    double v = strtod(text, &end);
    /* Digits and one point only: no exponents, hexadecimal, infinities or NaN. */
    bool plain = strspn(text, "0123456789.") == strlen(text);
    if (!plain || end == text || *end != '\0' || !(v >= 1 && v <= KB_TEST_SLOWDOWN_MAX))
        return kb_fail(KB_EINVAL, "KB_TEST_SLOWDOWN '%s' is not a factor from 1 to %d", text,
                       KB_TEST_SLOWDOWN_MAX);
    *factor = v;
    return KB_OK;
}

/* The leading fraction f (0 < f < 1) of the input's first axis as a view, and an output for
 * it: at least one row. */
static kb_status slowdown_part(reduce_data *d, double f) {
    int64_t shape[KB_MAX_DIMS];
    memcpy(shape, d->in.shape, sizeof shape);
    int64_t rows = (int64_t)ceil(f * (double)shape[0]);
    if (rows < 1)
        rows = 1;
    if (rows < shape[0]) /* an empty input stays empty */
        shape[0] = rows;
    kb_dtype out_dtype;
    int out_ndim;
    int64_t out_shape[KB_MAX_DIMS];
    kb_status st;
    if ((st = kb_array_view(&d->part, d->in.dtype, d->in.ndim, shape, d->in.strides, d->in.data,
                            KB_ARRAY_READONLY)) != KB_OK ||
        (st = kb_reduce_result(&d->part, &d->args, &out_dtype, &out_ndim, out_shape)) != KB_OK ||
        (st = kb_array_new(&d->part_out, out_dtype, out_ndim, out_shape, KB_ORDER_C)) != KB_OK)
        return st;
    d->has_part = true;
    return KB_OK;
}

static kb_status reduce_setup(kb_bench_case *c) {
    const char *op_name = kb_bench_param(c, "op"), *dtype_name = kb_bench_param(c, "dtype");
    const char *shape_text = kb_bench_param(c, "shape"), *axis = kb_bench_param(c, "axis");
    kb_reduce_op op;
    kb_dtype dtype;
    int ndim;
    int64_t shape[2];
    kb_status st;
    if (!op_name || !dtype_name || !shape_text || !axis)
        return kb_bench_fail(c, KB_EINVAL, "a reduce case needs op, dtype, shape and axis");
    double slowdown;
    if ((st = kb_reduce_op_from_name(op_name, &op)) != KB_OK ||
        (st = kb_dtype_from_name(dtype_name, &dtype)) != KB_OK ||
        (st = parse_shape(shape_text, &ndim, shape)) != KB_OK ||
        (st = test_slowdown(op, dtype, &slowdown)) != KB_OK)
        return kb_bench_fail(c, st, "%s", kb_last_error());

    reduce_data *d = calloc(1, sizeof *d);
    if (!d)
        return kb_bench_fail(c, KB_ENOMEM, "out of memory");
    d->repeat = (int)slowdown;
    d->args =
        strcmp(axis, "None") == 0 ? kb_reduce_args_all(op) : kb_reduce_args_axis(op, atoi(axis));
    kb_dtype out_dtype;
    int out_ndim;
    int64_t out_shape[KB_MAX_DIMS];
    /* prod of many values away from 1 under- or overflows, and denormal arithmetic would
     * then be what is timed: its inputs stay close to 1. */
    bool near_one = op == KB_REDUCE_PROD;
    if ((st = kb_array_new(&d->in, dtype, ndim, shape, KB_ORDER_C)) != KB_OK ||
        (st = kb_bench_fill_uniform(&d->in, KB_BENCH_SEED, near_one ? 1 - 0x1p-10 : -1,
                                    near_one ? 1 + 0x1p-10 : 1)) != KB_OK ||
        (st = kb_reduce_result(&d->in, &d->args, &out_dtype, &out_ndim, out_shape)) != KB_OK ||
        (st = kb_array_new(&d->out, out_dtype, out_ndim, out_shape, KB_ORDER_C)) != KB_OK ||
        (slowdown > d->repeat && (st = slowdown_part(d, slowdown - d->repeat)) != KB_OK)) {
        kb_bench_fail(c, st, "%s", kb_last_error());
        reduce_teardown_data(d);
        return st;
    }
    /* The kernels' own count of the least traffic and the FLOPs (kb_reduce_work_of). A
     * reduction reads: its writes, few beside its reads except for short rows, are held
     * against the load bandwidth too, which errs towards a higher bound (never towards a
     * false `impossible`). */
    kb_reduce_work work;
    if ((st = kb_reduce_work_of(&d->in, &d->args, &work)) != KB_OK) {
        kb_bench_fail(c, st, "%s", kb_last_error());
        reduce_teardown_data(d);
        return st;
    }
    c->bytes_per_call = work.bytes_read + work.bytes_written;
    c->flops_per_call = work.flops;
    c->traffic = KB_BW_LOAD;
    c->flop_type = work.flop_dtype == KB_F64 ? KB_FLOP_F64 : KB_FLOP_F32;
    c->working_set_bytes = c->bytes_per_call;
    c->data = d;
    return KB_OK;
}

static void reduce_run(kb_bench_case *c, int64_t calls) {
    reduce_data *d = c->data;
    for (int64_t i = 0; i < calls; i++) {
        for (int r = 0; r < d->repeat; r++) {
            kb_status st = kb_reduce_into(&d->in, &d->args, &d->out);
            if (st != KB_OK) {
                kb_bench_fail(c, st, "%s", kb_last_error());
                return;
            }
            kb_clobber_memory();
        }
        if (d->has_part) {
            kb_status st = kb_reduce_into(&d->part, &d->args, &d->part_out);
            if (st != KB_OK) {
                kb_bench_fail(c, st, "%s", kb_last_error());
                return;
            }
            kb_clobber_memory();
        }
    }
}

static void reduce_teardown(kb_bench_case *c) {
    reduce_teardown_data(c->data);
}

/* The runner's description of the case. The inputs lie in [-1, 1] (prod's near 1), so a sum of
 * m of them is of size up to sqrt(m) in a random walk, which scales its rounding errors; a
 * mean's, var's and std's scale is 1 / sqrt(m); prod is compared relatively. */
static kb_status reduce_baseline_case(const kb_bench_case *c, kb_bench_baseline_case *out) {
    const reduce_data *d = c->data;
    const kb_reduce_args *a = &d->args;
    if (a->naxes < 0)
        snprintf(out->spec, sizeof out->spec, "{\"kind\":\"reduce\",\"op\":\"%s\",\"axis\":null}",
                 kb_reduce_op_name(a->op));
    else
        snprintf(out->spec, sizeof out->spec, "{\"kind\":\"reduce\",\"op\":\"%s\",\"axis\":%d}",
                 kb_reduce_op_name(a->op), a->axes[0]);
    out->input = &d->in;
    out->output = &d->out;
    int64_t outputs = kb_array_size(&d->out);
    double m = outputs > 0 ? (double)kb_array_size(&d->in) / (double)outputs : 1;
    switch (a->op) {
        case KB_REDUCE_SUM:
            out->atol = sqrt(m);
            break;
        case KB_REDUCE_PROD:
            out->atol = 0;
            break;
        case KB_REDUCE_MEAN:
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD:
            out->atol = 1 / sqrt(fmax(m, 1));
            break;
        default: /* min, max, argmin, argmax pick an element: no rounding */
            out->exact = true;
    }
    if (!kb_dtype_is_float(d->out.dtype))
        out->exact = true;
    return KB_OK;
}

static const kb_bench_def reduce_def = {
    .name = "reduce",
    .setup = reduce_setup,
    .run = reduce_run,
    .teardown = reduce_teardown,
    .baseline_case = reduce_baseline_case,
};

/* ---- The parameter space ---- */

static const char *const all_ops[] = {"sum",    "prod",   "mean", "min", "max",
                                      "argmin", "argmax", "var",  "std", NULL};
static const char *const quick_ops[] = {"sum", "mean", "max", "argmax", "std", NULL};
static const char *const dtypes[] = {"f32", "f64", NULL};

typedef struct shape_axes {
    char shape[32];
    const char *axes[4]; /* NULL-terminated */
} shape_axes;

enum { max_shapes = 16 };

/* 1-D sizes for each cache level: half of it, so the input fits with room for the rest;
 * and DRAM, four times the last-level cache. A level the machine does not report is
 * skipped, and the DRAM size assumes a 32 MiB last level when none is known. */
static int one_d_shapes(const kb_machine *m, kb_dtype dtype, bool quick, shape_axes *out) {
    int64_t l1 = m->caches[KB_CACHE_L1D].size, l2 = m->caches[KB_CACHE_L2].size;
    int64_t l3 = m->caches[KB_CACHE_L3].size;
    int64_t llc = l3 > 0 ? l3 : l2 > 0 ? l2 : (int64_t)32 << 20;
    int64_t bytes[4] = {l1 / 2, l2 / 2, l3 / 2, 4 * llc};
    bool in_quick[4] = {false, true, false, false}; /* 4096x4096 covers DRAM there */
    int n = 0;
    size_t item = kb_dtype_size(dtype);
    for (int level = 0; level < 4; level++) {
        if (bytes[level] <= 0 || (quick && !in_quick[level]))
            continue;
        snprintf(out[n].shape, sizeof out[n].shape, "%lld",
                 (long long)(bytes[level] / (int64_t)item));
        out[n].axes[0] = "None";
        out[n].axes[1] = NULL;
        n++;
    }
    return n;
}

static int shapes_for(const kb_machine *m, kb_dtype dtype, bool quick, shape_axes *out) {
    static const shape_axes full[] = {
        {"8", {"None", NULL}},
        {"64x64", {"None", "0", "1", NULL}},
        {"1024x1024", {"None", "0", "1", NULL}},
        {"4096x4096", {"None", "0", "1", NULL}},
        {"100000x32", {"None", "0", "1", NULL}},
        {"32x100000", {"None", "0", "1", NULL}},
        {"1000000x4", {"None", "0", "1", NULL}},
    };
    static const shape_axes quick_2d[] = {
        {"64x64", {"None", NULL}},
        {"1024x1024", {"0", "1", NULL}},
        {"4096x4096", {"0", "1", NULL}},
        {"100000x32", {"1", NULL}},
    };
    const shape_axes *two_d = quick ? quick_2d : full;
    int n2 =
        quick ? (int)(sizeof quick_2d / sizeof quick_2d[0]) : (int)(sizeof full / sizeof full[0]);
    memcpy(out, two_d, (size_t)n2 * sizeof *out);
    return n2 + one_d_shapes(m, dtype, quick, out + n2);
}

/* Relative cost: an ordinary case is 1; a large input adds its generation and its longer
 * calls (about one unit per 32 MiB). */
static double case_cost(const char *shape, kb_dtype dtype) {
    int ndim;
    int64_t s[2];
    if (parse_shape(shape, &ndim, s) != KB_OK)
        return 1;
    double bytes = (double)kb_dtype_size(dtype) * (double)s[0] * (ndim == 2 ? (double)s[1] : 1);
    return 1 + bytes / (32.0 * 1024 * 1024);
}

/* Cases quick adds to its grid, so that one quick run measures every performance target of
 * docs/reductions.md: var, narrow rows and the cost of a tiny call. */
typedef struct quick_extra {
    const char *op, *dtype, *shape, *axis;
} quick_extra;

static const quick_extra quick_extras[] = {
    {"var", "f32", "1024x1024", "None"},
    {"sum", "f32", "1000000x4", "1"},
    {"sum", "f32", "8", "None"},
};

/* The `mean_axis0` suite: the reduction this field benchmarks most, over the shapes where
 * libraries differ most (square, tall and narrow, short and wide), in the dtypes users hold. */
static const char *const mean_axis0_shapes[] = {"512x512",   "1024x1024", "2048x2048", "4096x4096",
                                                "8192x1024", "100000x32", "1000000x4", "32x100000",
                                                "4x1000000", NULL};
static const char *const mean_axis0_dtypes[] = {"f32", "f64", "int32", "f16", NULL};

/* The case of op, dtype, shape and axis at every SIMD level and thread count. */
typedef struct impl_axes {
    const char *simd[KB_SIMD_LEVEL_COUNT + 2];
    int nsimd;
    const char *threads[2];
    int nthreads;
    char all_cores[16];
} impl_axes;

static kb_status add_case(kb_bench_plan *plan, const impl_axes *ia, const char *op,
                          const char *dtype_name, const char *shape, const char *axis) {
    static const char *const names[] = {"op", "dtype", "shape", "axis", "simd", "threads"};
    static const unsigned flags[] = {KB_BENCH_AXIS_BARE,           KB_BENCH_AXIS_BARE,
                                     KB_BENCH_AXIS_BARE,           0,
                                     KB_BENCH_AXIS_IMPLEMENTATION, KB_BENCH_AXIS_IMPLEMENTATION};
    kb_dtype dtype;
    kb_dtype_from_name(dtype_name, &dtype);
    double cost = case_cost(shape, dtype);
    kb_status st = KB_OK;
    for (int i = 0; i < ia->nsimd && st == KB_OK; i++)
        for (int t = 0; t < ia->nthreads && st == KB_OK; t++) {
            const char *values[] = {op, dtype_name, shape, axis, ia->simd[i], ia->threads[t]};
            st = kb_plan_add_case(plan, &reduce_def, 6, names, values, flags, cost);
        }
    return st;
}

/* Scalar, every available level or only the best (every_level false), and auto; at one thread
 * and at all usable cores. */
static void implementations(impl_axes *ia, bool every_level) {
    memset(ia, 0, sizeof *ia);
    ia->simd[ia->nsimd++] = "scalar";
    for (int l = 1; l < KB_SIMD_LEVEL_COUNT; l++)
        if (kb_simd_available((kb_simd_level)l) && (every_level || l == (int)kb_simd_best()))
            ia->simd[ia->nsimd++] = kb_simd_name((kb_simd_level)l);
    ia->simd[ia->nsimd++] = "auto";
    int cores = kb_usable_cores();
    snprintf(ia->all_cores, sizeof ia->all_cores, "%d", cores);
    ia->threads[0] = "1";
    ia->threads[1] = ia->all_cores;
    ia->nthreads = cores > 1 ? 2 : 1;
}

kb_status kb_suite_mean_axis0_add(kb_bench_plan *plan, const char *suite) {
    impl_axes ia;
    implementations(&ia, false);
    int before = kb_bench_plan_size(plan);
    kb_status st = KB_OK;
    for (const char *const *dt = mean_axis0_dtypes; *dt && st == KB_OK; dt++)
        for (const char *const *shape = mean_axis0_shapes; *shape && st == KB_OK; shape++)
            st = add_case(plan, &ia, "mean", *dt, *shape, "0");
    return kb_plan_finish_suite(plan, before, suite, st);
}

kb_status kb_suite_reduce_add(kb_bench_plan *plan, const char *suite, int quick) {
    impl_axes ia;
    implementations(&ia, true);

    kb_machine machine;
    kb_machine_probe(&machine);
    int before = kb_bench_plan_size(plan);
    kb_status st = KB_OK;
    for (const char *const *op = quick ? quick_ops : all_ops; *op && st == KB_OK; op++) {
        for (const char *const *dt = dtypes; *dt && st == KB_OK; dt++) {
            kb_dtype dtype;
            kb_dtype_from_name(*dt, &dtype);
            shape_axes shapes[max_shapes];
            int nshapes = shapes_for(&machine, dtype, quick, shapes);
            for (int s = 0; s < nshapes && st == KB_OK; s++)
                for (const char *const *ax = shapes[s].axes; *ax && st == KB_OK; ax++)
                    st = add_case(plan, &ia, *op, *dt, shapes[s].shape, *ax);
        }
    }
    for (size_t i = 0; quick && i < sizeof quick_extras / sizeof quick_extras[0] && st == KB_OK;
         i++)
        st = add_case(plan, &ia, quick_extras[i].op, quick_extras[i].dtype, quick_extras[i].shape,
                      quick_extras[i].axis);
    return kb_plan_finish_suite(plan, before, suite, st);
}
