/* The built-in `ew` suite: single elementwise ops of the vector layer's kernels (kb_ew_apply_into),
 * each on its own into a preallocated output, in float32 and float64, at an L2 size and a DRAM
 * size, at every SIMD level and thread count: how close each op comes to the machine's
 * bandwidth (docs/performance.md). NumPy times the same op through baselines/runner.py. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/inputs.h"
#include "bench/plan.h"
#include "bench/suites.h"
#include "core/internal.h"
#include "kernels/ew.h"

/* An op: its kernel, its float inputs (the rows of the case's input array), whether it also
 * reads a bool condition (where's x > 0, computed in setup), the same op in the expression
 * language for the baselines, and its FLOPs per element. Its traffic is what a call must move:
 * every input read once and the output written once; a 1-input op is held against the copy
 * bandwidth, a 2-input op against the triad's (docs/roofline.md). */
typedef struct ew_case {
    const char *name;
    kb_ew_op op;
    int nvars;
    bool condition;
    const char *source;
    const char *operands; /* the call's operands as expressions, a JSON list's items */
    double flops;
    double lo; /* inputs are uniform in [lo, 1] */
} ew_case;

static const ew_case cases[] = {
    {"add", KB_EW_ADD, 2, false, "x + y", "\"x\",\"y\"", 1, -1},
    {"mul", KB_EW_MUL, 2, false, "x * y", "\"x\",\"y\"", 1, -1},
    {"neg", KB_EW_NEG, 1, false, "-x", "\"x\"", 0, -1},
    {"abs", KB_EW_ABS, 1, false, "abs(x)", "\"x\"", 0, -1},
    {"sqrt", KB_EW_SQRT, 1, false, "sqrt(x)", "\"x\"", 1, 0},
    {"exp", KB_EW_EXP, 1, false, "exp(x)", "\"x\"", 1, -1},
    /* NumPy's side also computes x > 0, which kbench's call is given. */
    {"where", KB_EW_WHERE, 2, true, "where(x > 0, x, y)", "\"x > 0\",\"x\",\"y\"", 0, -1},
};
enum { NCASES = sizeof cases / sizeof *cases };

typedef struct ew_data {
    const ew_case *ec;
    kb_array in;      /* (nvars, n) */
    kb_array vars[2]; /* views of in's rows */
    kb_array condition;
    const kb_array *operands[3];
    int noperands;
    kb_array out;
} ew_data;

static void ew_teardown_data(ew_data *d) {
    kb_array_free(&d->in);
    kb_array_free(&d->condition);
    kb_array_free(&d->out);
    free(d);
}

static const ew_case *find_case(const char *name) {
    for (int i = 0; i < NCASES; i++)
        if (strcmp(cases[i].name, name) == 0)
            return &cases[i];
    return NULL;
}

/* Bytes per element of a call: the inputs read and the output written. */
static double bytes_per_element(const ew_case *ec, kb_dtype dtype) {
    return (double)kb_dtype_size(dtype) * (ec->nvars + 1) + (ec->condition ? 1 : 0);
}

/* Elements: a call's working set (inputs and output) of the size axis' bytes, in whole
 * 64-element vectors. */
static int64_t elements_for(const char *size, const ew_case *ec, kb_dtype dtype) {
    int64_t bytes = kb_suite_size_bytes(size);
    int64_t n = (int64_t)((double)bytes / bytes_per_element(ec, dtype)) / 64 * 64;
    return n > 64 ? n : 64;
}

static kb_status make_condition(ew_data *d, int64_t n) {
    KB_TRY(kb_array_new(&d->condition, KB_BOOL, 1, &n, KB_ORDER_C));
    bool *c = d->condition.data;
    for (int64_t i = 0; i < n; i++)
        c[i] = d->in.dtype == KB_F32 ? ((const float *)d->vars[0].data)[i] > 0
                                     : ((const double *)d->vars[0].data)[i] > 0;
    return KB_OK;
}

static kb_status ew_prepare(ew_data *d, kb_dtype dtype, const char *size) {
    const ew_case *ec = d->ec;
    int64_t n = elements_for(size, ec, dtype);
    int64_t shape[2] = {ec->nvars, n};
    KB_TRY(kb_array_new(&d->in, dtype, 2, shape, KB_ORDER_C));
    KB_TRY(kb_bench_fill_uniform(&d->in, KB_BENCH_SEED, ec->lo, 1));
    for (int v = 0; v < ec->nvars; v++)
        KB_TRY(kb_array_view(&d->vars[v], dtype, 1, &n, d->in.strides + 1,
                             (char *)d->in.data + v * d->in.strides[0], KB_ARRAY_READONLY));
    if (ec->condition) {
        KB_TRY(make_condition(d, n));
        d->operands[d->noperands++] = &d->condition;
    }
    for (int v = 0; v < ec->nvars; v++)
        d->operands[d->noperands++] = &d->vars[v];
    /* Written once here, so that no timed call faults its pages in. */
    KB_TRY(kb_array_new_uninit(&d->out, dtype, 1, &n, KB_ORDER_C));
    memset(d->out.data, 0, (size_t)n * kb_dtype_size(dtype));
    return KB_OK;
}

static kb_status ew_setup(kb_bench_case *c) {
    const char *name = kb_bench_param(c, "op"), *dtype_name = kb_bench_param(c, "dtype");
    const char *size = kb_bench_param(c, "size");
    const ew_case *ec = name ? find_case(name) : NULL;
    kb_dtype dtype;
    if (!ec || !dtype_name || !size || kb_dtype_from_name(dtype_name, &dtype) != KB_OK ||
        (dtype != KB_F32 && dtype != KB_F64))
        return kb_bench_fail(c, KB_EINVAL, "an ew case needs a known op, f32 or f64 and a size");
    ew_data *d = calloc(1, sizeof *d);
    if (!d)
        return kb_bench_fail(c, KB_ENOMEM, "out of memory");
    d->ec = ec;
    kb_status st = ew_prepare(d, dtype, size);
    if (st != KB_OK) {
        kb_bench_fail(c, st, "%s", kb_last_error());
        ew_teardown_data(d);
        return st;
    }
    double elements = (double)d->out.shape[0];
    c->bytes_per_call = elements * bytes_per_element(ec, dtype);
    c->flops_per_call = elements * ec->flops;
    c->traffic = ec->nvars + ec->condition > 1 ? KB_BW_TRIAD : KB_BW_COPY;
    c->flop_type = dtype == KB_F64 ? KB_FLOP_F64 : KB_FLOP_F32;
    c->working_set_bytes = c->bytes_per_call;
    c->data = d;
    return KB_OK;
}

static void ew_run(kb_bench_case *c, int64_t calls) {
    ew_data *d = c->data;
    for (int64_t i = 0; i < calls; i++) {
        unsigned found;
        kb_status st =
            kb_ew_apply_into(d->ec->op, d->noperands, d->operands, d->out.dtype, &d->out, &found);
        if (st != KB_OK) {
            kb_bench_fail(c, st, "%s", kb_last_error());
            return;
        }
        kb_clobber_memory();
    }
}

static void ew_teardown(kb_bench_case *c) {
    ew_teardown_data(c->data);
}

bool kb_suite_ew_op(const char *name, kb_ew_op *op) {
    const ew_case *ec = find_case(name);
    if (ec)
        *op = ec->op;
    return ec != NULL;
}

/* The baselines evaluate the op's source on the same input, whose rows are x (and y); "ew"
 * names the call this case times, which another build of kbench times in its place
 * (kbench serve), where evaluating the source would time its expression engine instead. */
static kb_status ew_baseline_case(const kb_bench_case *c, kb_bench_baseline_case *out) {
    const ew_data *d = c->data;
    const ew_case *ec = d->ec;
    snprintf(out->spec, sizeof out->spec,
             "{\"kind\":\"expr\",\"source\":\"%s\",\"vars\":[%s],"
             "\"ew\":{\"op\":\"%s\",\"operands\":[%s]}}",
             ec->source, ec->nvars == 2 ? "\"x\",\"y\"" : "\"x\"", ec->name, ec->operands);
    out->input = &d->in;
    out->output = &d->out;
    /* add, mul, neg, abs, sqrt and where are correctly rounded on both sides. */
    out->exact = ec->op != KB_EW_EXP;
    out->atol = 0;
    return KB_OK;
}

static const kb_bench_def ew_def = {
    .name = "ew",
    .setup = ew_setup,
    .run = ew_run,
    .teardown = ew_teardown,
    .baseline_case = ew_baseline_case,
    .cost = kb_suite_size_cost,
};

kb_status kb_suite_ew_add(kb_bench_plan *plan, const char *suite) {
    static const char *const names[] = {"op", "dtype", "size", "simd", "threads"};
    static const unsigned flags[] = {KB_BENCH_AXIS_BARE, KB_BENCH_AXIS_BARE, KB_BENCH_AXIS_BARE,
                                     KB_BENCH_AXIS_IMPLEMENTATION, KB_BENCH_AXIS_IMPLEMENTATION};
    static const char *const dtypes[] = {"f32", "f64"};
    static const char *const sizes[] = {"L2", "DRAM"};
    const char *simd[2], *threads[2];
    char all_cores[16];
    int nsimd = kb_suite_levels(simd), nthreads = kb_suite_threads(all_cores, threads);

    int before = kb_bench_plan_size(plan);
    kb_status st = KB_OK;
    for (int e = 0; e < NCASES && st == KB_OK; e++)
        for (int t = 0; t < 2 && st == KB_OK; t++)
            for (int s = 0; s < 2 && st == KB_OK; s++)
                for (int l = 0; l < nsimd && st == KB_OK; l++)
                    for (int k = 0; k < nthreads && st == KB_OK; k++) {
                        const char *values[] = {cases[e].name, dtypes[t], sizes[s], simd[l],
                                                threads[k]};
                        st = kb_plan_add_case(plan, &ew_def, 5, names, values, flags,
                                              s == 1 ? 4 : 1);
                    }
    return kb_plan_finish_suite(plan, before, suite, st);
}
