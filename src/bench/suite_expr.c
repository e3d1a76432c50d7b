/* The built-in `expr` suite: the expression evaluator (fused) timed on the expressions that
 * matter in practice, in float32 and float64, with inputs the size of half the L2 cache and
 * four times the last-level cache, at scalar and the best SIMD level (auto) and every thread
 * count, into an output allocated once (kb_expr_eval_into, as a C caller calls it) and
 * allocating its output per call (kb_expr_eval_inputs, as the baselines do); each such case
 * has an eager twin (/eval=eager), the unfused reference timed in the same rounds, held to the
 * eager plan's bytes; NumPy, numexpr, PyTorch, torch.compile and JAX time the same source
 * through baselines/runner.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/inputs.h"
#include "bench/plan.h"
#include "bench/suites.h"
#include "core/internal.h"
#include "kbench/expr.h"

/* A case: its source, its variables (rows of the input), whether it works on rows of ROW
 * elements (the reductions along the last axis) or on a flat array, and its operations per
 * element of one variable. Its traffic is its plan's (kb_expr_explain): the bytes the fused
 * plan's kernels read and write, or the eager plan's for an eager twin (docs/fusion.md). */
typedef struct expr_case {
    const char *name;
    const char *source;
    const char *vars[3];
    int nvars;
    bool rows;
    double ops;
} expr_case;

enum { ROW = 1024 };

static const expr_case cases[] = {
    {"poly", "2*x**3 - 3*x**2 + x - 1", {"x"}, 1, false, 8},
    {"fma", "a*b + c", {"a", "b", "c"}, 3, false, 2},
    {"hypot", "sqrt(x**2 + y**2)", {"x", "y"}, 2, false, 4},
    {"leaky_relu", "where(x > 0, x, 0.01*x)", {"x"}, 1, false, 3},
    {"softmax",
     "m = max(x, axis=-1, keepdims=True); e = exp(x - m); s = sum(e, axis=-1, keepdims=True); "
     "e / s",
     {"x"},
     1,
     true,
     5},
    {"layer_norm",
     "m = mean(x, axis=-1, keepdims=True); d = x - m; v = mean(d*d, axis=-1, keepdims=True); "
     "d / sqrt(v + 1e-5)",
     {"x"},
     1,
     true,
     5},
    {"logsumexp",
     "m = max(x, axis=-1, keepdims=True); e = exp(x - m); s = sum(e, axis=-1, keepdims=True); "
     "m + log(s)",
     {"x"},
     1,
     true,
     4},
    {"rms_norm", "r = sqrt(mean(x*x, axis=-1, keepdims=True) + 1e-6); x / r", {"x"}, 1, true, 3},
    {"gelu_tanh", "0.5*x*(1 + tanh(0.7978845608*(x + 0.044715*x**3)))", {"x"}, 1, false, 9},
};
enum { NCASES = sizeof cases / sizeof *cases };

typedef struct expr_data {
    const expr_case *ec;
    kb_expr *expr;
    kb_array in;      /* (nvars, n) or (nvars, n / ROW, ROW) */
    kb_array vars[3]; /* views of in's rows */
    kb_expr_binding bindings[3];
    /* The last call's result: allocated by setup's call, which output=into calls write into;
     * each output=alloc call frees it and allocates its own. */
    kb_array out;
    double eager_bytes; /* the eager plan's traffic; the group's count is the fused plan's */
} expr_data;

static void expr_teardown_data(expr_data *d) {
    kb_expr_free(d->expr);
    kb_array_free(&d->in);
    kb_array_free(&d->out);
    free(d);
}

static const expr_case *find_case(const char *name) {
    for (int i = 0; i < NCASES; i++)
        if (strcmp(cases[i].name, name) == 0)
            return &cases[i];
    return NULL;
}

/* Elements per variable: the size axis' bytes (kb_suite_size_bytes) over the variables, in
 * whole rows. */
static int64_t elements_for(const char *size, const expr_case *ec, kb_dtype dtype) {
    int64_t n = kb_suite_size_bytes(size) / (int64_t)kb_dtype_size(dtype) / ec->nvars;
    n = n / ROW * ROW;
    return n > ROW ? n : ROW;
}

static kb_status expr_setup(kb_bench_case *c) {
    const char *name = kb_bench_param(c, "expr"), *dtype_name = kb_bench_param(c, "dtype");
    const char *size = kb_bench_param(c, "size");
    const expr_case *ec = name ? find_case(name) : NULL;
    kb_dtype dtype;
    if (!ec || !dtype_name || !size || kb_dtype_from_name(dtype_name, &dtype) != KB_OK)
        return kb_bench_fail(c, KB_EINVAL, "an expr case needs a known expr, dtype and size");
    expr_data *d = calloc(1, sizeof *d);
    if (!d)
        return kb_bench_fail(c, KB_ENOMEM, "out of memory");
    d->ec = ec;
    int64_t n = elements_for(size, ec, dtype);
    int64_t shape[3] = {ec->nvars, ec->rows ? n / ROW : n, ROW};
    int ndim = ec->rows ? 3 : 2;
    kb_status st = kb_expr_parse(ec->source, &d->expr);
    if (st == KB_OK)
        st = kb_array_new(&d->in, dtype, ndim, shape, KB_ORDER_C);
    if (st == KB_OK)
        st = kb_bench_fill_uniform(&d->in, KB_BENCH_SEED, -1, 1);
    for (int v = 0; v < ec->nvars && st == KB_OK; v++) {
        char *row = (char *)d->in.data + v * d->in.strides[0];
        st = kb_array_view(&d->vars[v], dtype, ndim - 1, shape + 1, d->in.strides + 1, row,
                           KB_ARRAY_READONLY);
        d->bindings[v] = (kb_expr_binding){ec->vars[v], &d->vars[v]};
    }
    if (st != KB_OK) {
        kb_bench_fail(c, st, "%s", kb_last_error());
        expr_teardown_data(d);
        return st;
    }
    kb_expr_inputs inputs = {.bindings = d->bindings, .nbindings = ec->nvars};
    kb_expr_inputs eager = inputs;
    eager.mode = KB_EXPR_EAGER;
    kb_expr_plan plan, eager_plan;
    memset(&eager_plan, 0, sizeof eager_plan);
    if ((st = kb_expr_explain(d->expr, &eager, &eager_plan)) != KB_OK ||
        (st = kb_expr_explain(d->expr, &inputs, &plan)) != KB_OK) {
        kb_bench_fail(c, st, "%s", kb_last_error());
        kb_expr_plan_free(&eager_plan);
        expr_teardown_data(d);
        return st;
    }
    d->eager_bytes = (double)eager_plan.bytes;
    kb_expr_plan_free(&eager_plan);
    /* The output output=into writes, allocated and written once before any timed call, as a
     * C caller's buffer is. */
    if ((st = kb_expr_eval_inputs(d->expr, &inputs, &d->out)) != KB_OK) {
        kb_bench_fail(c, st, "%s", kb_last_error());
        kb_expr_plan_free(&plan);
        expr_teardown_data(d);
        return st;
    }
    double item = (double)kb_dtype_size(dtype), elements = (double)n;
    c->bytes_per_call = (double)plan.bytes;
    kb_expr_plan_free(&plan);
    c->flops_per_call = elements * ec->ops;
    c->traffic = KB_BW_TRIAD;
    c->flop_type = dtype == KB_F64 ? KB_FLOP_F64 : KB_FLOP_F32;
    c->working_set_bytes = elements * item * ec->nvars;
    c->data = d;
    return KB_OK;
}

/* Whether the case is an eager twin. */
static bool eager_case(const kb_bench_case *c) {
    const char *eval = kb_bench_param(c, "eval");
    return eval && strcmp(eval, "eager") == 0;
}

/* An eager twin moves what the eager plan's kernels read and write. */
static void expr_counts(kb_bench_case *c) {
    const expr_data *d = c->data;
    if (eager_case(c))
        c->bytes_per_call = d->eager_bytes;
}

static void expr_run(kb_bench_case *c, int64_t calls) {
    expr_data *d = c->data;
    kb_expr_inputs inputs = {.bindings = d->bindings,
                             .nbindings = d->ec->nvars,
                             .mode = eager_case(c) ? KB_EXPR_EAGER : KB_EXPR_FUSED};
    const char *output = kb_bench_param(c, "output");
    bool into = !output || strcmp(output, "into") == 0;
    for (int64_t i = 0; i < calls; i++) {
        kb_status st;
        if (into) {
            st = kb_expr_eval_into(d->expr, &inputs, &d->out, 1);
        } else {
            kb_array_free(&d->out);
            st = kb_expr_eval_inputs(d->expr, &inputs, &d->out);
        }
        if (st != KB_OK) {
            kb_bench_fail(c, st, "%s", kb_last_error());
            return;
        }
        kb_clobber_memory();
    }
}

static void expr_teardown(kb_bench_case *c) {
    expr_teardown_data(c->data);
}

/* The baselines evaluate the same source on the same input, whose rows are the variables.
 * Results are of size about 1 (the inputs lie in [-1, 1]). */
static kb_status expr_baseline_case(const kb_bench_case *c, kb_bench_baseline_case *out) {
    const expr_data *d = c->data;
    const expr_case *ec = d->ec;
    char vars[64] = "";
    for (int v = 0; v < ec->nvars; v++)
        snprintf(vars + strlen(vars), sizeof vars - strlen(vars), "%s\"%s\"", v ? "," : "",
                 ec->vars[v]);
    int n = snprintf(out->spec, sizeof out->spec,
                     "{\"kind\":\"expr\",\"source\":\"%s\",\"vars\":[%s]}", ec->source, vars);
    if (n < 0 || (size_t)n >= sizeof out->spec)
        return kb_fail(KB_EINVAL, "the expr case %s does not fit a baseline spec", ec->name);
    out->input = &d->in;
    out->output = &d->out;
    out->atol = 1;
    return KB_OK;
}

static const kb_bench_def expr_def = {
    .name = "expr",
    .setup = expr_setup,
    .run = expr_run,
    .teardown = expr_teardown,
    .baseline_case = expr_baseline_case,
    .cost = kb_suite_size_cost,
    .counts = expr_counts,
};

kb_status kb_suite_expr_add(kb_bench_plan *plan, const char *suite) {
    /* An eager twin is its fused case's name and parameters with eval=eager after them, so
     * that the fused cases keep the names their history is stored under. */
    static const char *const names[] = {"expr",    "dtype",  "size", "simd",
                                        "threads", "output", "eval"};
    static const unsigned flags[] = {KB_BENCH_AXIS_BARE,           KB_BENCH_AXIS_BARE,
                                     KB_BENCH_AXIS_BARE,           KB_BENCH_AXIS_IMPLEMENTATION,
                                     KB_BENCH_AXIS_IMPLEMENTATION, KB_BENCH_AXIS_IMPLEMENTATION,
                                     KB_BENCH_AXIS_IMPLEMENTATION};
    static const char *const dtypes[] = {"f32", "f64"};
    static const char *const sizes[] = {"L2", "DRAM"};
    /* into: an output allocated once, as a C caller has; alloc: a new one per call, as the
     * baselines' users get (docs/baselines.md). */
    static const char *const outputs[] = {"into", "alloc"};
    const char *simd[2], *threads[2];
    char all_cores[16];
    int nsimd = kb_suite_levels(simd), nthreads = kb_suite_threads(all_cores, threads);

    int before = kb_bench_plan_size(plan);
    kb_status st = KB_OK;
    for (int e = 0; e < NCASES && st == KB_OK; e++)
        for (int t = 0; t < 2 && st == KB_OK; t++)
            for (int s = 0; s < 2 && st == KB_OK; s++)
                for (int l = 0; l < nsimd && st == KB_OK; l++)
                    for (int k = 0; k < nthreads && st == KB_OK; k++)
                        for (int o = 0; o < 2 && st == KB_OK; o++)
                            for (int eager = 0; eager < 2 && st == KB_OK; eager++) {
                                const char *values[] = {cases[e].name, dtypes[t],  sizes[s],
                                                        simd[l],       threads[k], outputs[o],
                                                        "eager"};
                                st = kb_plan_add_case(plan, &expr_def, 6 + eager, names, values,
                                                      flags, s == 1 ? 4 : 1);
                            }
    return kb_plan_finish_suite(plan, before, suite, st);
}
