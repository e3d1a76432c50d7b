/* The fusion fuzzer: random float expressions (elementwise chains, broadcasting, transposes,
 * reductions with and without keepdims whose values broadcast back, assignments and tuples of
 * results) evaluated fused and eagerly at every SIMD level this machine runs. Both must refuse
 * the same expressions with the same message; the results must have the same shapes and types
 * and agree within the tolerance docs/fusion.md states; fused results must be bit-identical on
 * 1 and KB_TEST_THREADS (default 2) threads; the fused plan's numel must never exceed the eager
 * plan's. Every COMPILE_EVERY-th expression is evaluated again with its elementwise kernels
 * compiled (KB_COMPILE=1, expr/kernel_compile.h), which must give the same bits as op by op
 * (NaN for any NaN)
 * (KB_COMPILE=0, as every other evaluation here); the kernels go to a new cache directory,
 * which must hold some afterwards at a level that compiles them. KB_FUSION_FUZZ_COUNT sets the
 * number of expressions (default 200), KB_FUSION_FUZZ_SEED the seed; a failure names the seed,
 * level and source that replay it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/expr.h"
#include "kbench/simd.h"
#include "kbench/threads.h"
#include "test_util.h"
#include "util/rng.h"

typedef struct gen {
    kb_rng rng;
    char *buf;
    size_t used, size;
    bool square;   /* the shape is square: transposes keep it */
    bool reducing; /* a reduction is being generated: none inside it */
    int64_t rows, cols;
    int64_t longest; /* elements of the longest reduction generated; 0 for none */
} gen;

static int pick(gen *g, int n) {
    return (int)(kb_rng_next(&g->rng) % (uint64_t)n);
}

static void put(gen *g, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void put(gen *g, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(g->buf + g->used, g->size - g->used, format, ap);
    va_end(ap);
    if (n > 0 && g->used + (size_t)n < g->size)
        g->used += (size_t)n;
}

/* An expression whose value is the full shape. Only continuous functions of reduced values
 * are generated (where(e > f, e, f) is maximum), so that a reduction's last-bit difference
 * between the two evaluators cannot flip a choice and be magnified without bound; exp is
 * applied to elementwise values of the inputs only, which lie in [-1, 1]. */
static void full(gen *g, int depth, bool reduced_below);

/* A variable, or a transposed one. Python scalars appear only beside an array (in binary
 * ops): arithmetic on them alone is Python's, which the fused executor leaves to the eager
 * one (docs/fusion.md). */
static void leaf(gen *g) {
    static const char *const vars[] = {"a", "b", "c"};
    int k = pick(g, g->square ? 4 : 3);
    if (k < 3)
        put(g, "%s", vars[k]);
    else
        put(g, "transpose(%s)", vars[pick(g, 3)]);
}

/* A reduction of an elementwise value, kept in the full shape (keepdims) or broadcast back
 * along the right axis, so that its consumers are the fusing kind. */
static void reduction(gen *g, int depth) {
    static const char *const ops[] = {"sum", "mean", "max", "min"};
    const char *op = ops[pick(g, 4)];
    int form = pick(g, 4);
    int axis = form == 0 ? (pick(g, 2) ? -1 : 0) : 0;
    int64_t length = form == 2 ? g->rows * g->cols : form == 1 || axis == 0 ? g->rows : g->cols;
    if (length > g->longest)
        g->longest = length;
    g->reducing = true;
    if (form == 0) {
        put(g, "%s(", op);
        full(g, depth, false);
        put(g, ", axis=%d, keepdims=True)", axis);
    } else if (form == 1) { /* axis 0 without keepdims broadcasts along the rows */
        put(g, "%s(", op);
        full(g, depth, false);
        put(g, ", axis=0)");
    } else if (form == 2) { /* over everything: a 0-d value */
        put(g, "%s(", op);
        full(g, depth, false);
        put(g, ")");
    } else { /* axis 1 without keepdims: (R,), broadcast where it fits, refused where not */
        put(g, "%s(", op);
        full(g, depth, false);
        put(g, ", axis=1)");
    }
    g->reducing = false;
}

static void full(gen *g, int depth, bool reduced_below) {
    int k = depth <= 0 ? 0 : pick(g, g->reducing ? 9 : 11);
    switch (k) {
        case 0:
            leaf(g);
            return;
        case 1:
        case 2: {
            static const char *const ops[] = {" + ", " - ", " * "};
            put(g, "(");
            full(g, depth - 1, reduced_below);
            put(g, "%s", ops[pick(g, 3)]);
            if (pick(g, 4) == 0)
                put(g, "%s", pick(g, 2) ? "0.5" : "2");
            else
                full(g, depth - 1, reduced_below);
            put(g, ")");
            return;
        }
        case 3: {
            static const char *const fns[] = {"tanh", "sin", "cos", "abs", "sigmoid", "-"};
            put(g, "%s(", fns[pick(g, 6)]);
            full(g, depth - 1, reduced_below);
            put(g, ")");
            return;
        }
        case 4:
            if (!reduced_below && !g->reducing) {
                put(g, "exp(");
                full(g, 0, false);
                put(g, ")");
                return;
            }
            put(g, "sqrt(abs(");
            full(g, depth - 1, reduced_below);
            put(g, "))");
            return;
        case 5:
            put(g, "(");
            full(g, depth - 1, reduced_below);
            put(g, ") / (1 + abs(");
            full(g, depth - 1, reduced_below);
            put(g, "))");
            return;
        case 6: {
            static const char *const fns[] = {"maximum", "minimum"};
            put(g, "%s(", fns[pick(g, 2)]);
            full(g, depth - 1, reduced_below);
            put(g, ", ");
            full(g, depth - 1, reduced_below);
            put(g, ")");
            return;
        }
        case 7:
            put(g, "clip(");
            full(g, depth - 1, reduced_below);
            put(g, ", -0.5, 0.5)");
            return;
        case 8:
            put(g, "(");
            full(g, depth - 1, reduced_below);
            put(g, ")**2");
            return;
        default: /* a reduced value broadcast back */
            put(g, "(");
            full(g, depth - 1, true);
            put(g, " %s ", pick(g, 2) ? "-" : "*");
            reduction(g, depth - 1);
            put(g, ")");
            return;
    }
}

/* A softmax or logsumexp (or both) along the rows of an elementwise value: phased kernels
 * where a row fits the cache, a running max and rescaled sum where it does not (2 x 40000). */
static void softmax(gen *g) {
    put(g, "X = ");
    full(g, 1 + pick(g, 2), true); /* no exp of what the rows sum: it could overflow */
    put(g, "; m = max(X, axis=-1, keepdims=True); e = exp(X - m); "
           "s = sum(e, axis=-1, keepdims=True); ");
    static const char *const results[] = {"e / s", "m + log(s)", "(e / s, m + log(s))"};
    put(g, "%s", results[pick(g, 3)]);
    if (g->cols > g->longest)
        g->longest = g->cols;
}

/* A program: an optional assignment, then one result or a tuple of two; or a softmax. */
static void program(gen *g) {
    g->used = 0;
    g->longest = 0;
    if (pick(g, 6) == 0) {
        softmax(g);
        return;
    }
    g->buf[0] = '\0';
    int depth = 1 + pick(g, 4);
    bool assign = pick(g, 3) == 0;
    if (assign) {
        put(g, "t = ");
        full(g, depth, false);
        put(g, "; ");
    }
    const char *use = assign ? "t" : NULL;
    if (pick(g, 4) == 0) {
        put(g, "(");
        full(g, depth, false);
        put(g, use ? " + %s, " : ", ", use);
        if (pick(g, 2))
            reduction(g, depth);
        else
            full(g, depth, false);
        put(g, ")");
    } else {
        full(g, depth, false);
        if (use)
            put(g, " * %s", use);
    }
}

typedef struct inputs {
    kb_array arrays[3];
    kb_expr_binding bindings[3];
} inputs;

/* a (R, C); b broadcasts as (C,), (R, 1) or (R, C); c as (1, C) or (R, C); values in [-1, 1],
 * now and then a NaN or an infinity. */
static void make_inputs(gen *g, kb_dtype dtype, int64_t rows, int64_t cols, inputs *in) {
    int64_t shapes[3][2] = {{rows, cols}, {rows, cols}, {rows, cols}};
    int ndims[3] = {2, 2, 2};
    int b = pick(g, 3), c = pick(g, 2);
    if (b == 0) {
        shapes[1][0] = cols;
        ndims[1] = 1;
    } else if (b == 1) {
        shapes[1][1] = 1;
    }
    if (c == 0)
        shapes[2][0] = 1;
    bool special = pick(g, 10) == 0;
    static const char *const names[] = {"a", "b", "c"};
    for (int v = 0; v < 3; v++) {
        assert_int_equal(kb_array_new(&in->arrays[v], dtype, ndims[v], shapes[v], KB_ORDER_C),
                         KB_OK);
        int64_t n = kb_array_size(&in->arrays[v]);
        for (int64_t i = 0; i < n; i++) {
            double x = 2 * kb_rng_uniform(&g->rng) - 1;
            if (special && pick(g, 97) == 0)
                x = pick(g, 2) ? NAN : (pick(g, 2) ? INFINITY : -INFINITY);
            if (dtype == KB_F32)
                ((float *)in->arrays[v].data)[i] = (float)x;
            else
                ((double *)in->arrays[v].data)[i] = x;
        }
        in->bindings[v] = (kb_expr_binding){names[v], &in->arrays[v]};
    }
}

static void free_inputs(inputs *in) {
    for (int v = 0; v < 3; v++)
        kb_array_free(&in->arrays[v]);
}

/* The tolerance of docs/fusion.md: without a reduction, fused and eager results are the same
 * bits; with one, they differ only where its partial sums combine in another order, by at most
 * 4 units of the type's precision per element of the longest reduction, relative to the
 * largest magnitude of the result (and at least 1). */
static bool close_enough(const kb_array *f, const kb_array *e, int64_t longest, double *worst) {
    int64_t n = kb_array_size(e);
    double eps = e->dtype == KB_F32 ? 0x1p-23 : 0x1p-52, scale = 1;
    for (int64_t i = 0; i < n; i++) {
        double v = e->dtype == KB_F32 ? ((const float *)e->data)[i] : ((const double *)e->data)[i];
        if (isfinite(v) && fabs(v) > scale)
            scale = fabs(v);
    }
    *worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double a = f->dtype == KB_F32 ? ((const float *)f->data)[i] : ((const double *)f->data)[i];
        double b = e->dtype == KB_F32 ? ((const float *)e->data)[i] : ((const double *)e->data)[i];
        if (longest == 0 && memcmp(&a, &b, sizeof a) != 0 && !(isnan(a) && isnan(b))) {
            *worst = INFINITY;
            return false;
        }
        if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) {
            if (!(isnan(a) && isnan(b)) && a != b)
                return false;
            continue;
        }
        double d = fabs(a - b) / (scale * eps);
        if (d > *worst)
            *worst = d;
    }
    return *worst <= 4.0 * (double)(1 + longest);
}

static int test_threads(void) {
    const char *v = getenv("KB_TEST_THREADS");
    return v && atoi(v) > 0 ? atoi(v) : 2;
}

typedef struct tally {
    int expressions, fused, refused, compiled;
    double worst;
} tally;

enum { COMPILE_EVERY = 8 };

/* The fused results again with the kernels compiled, bit for bit those of the kernels run op
 * by op, NaN for any NaN (close_enough without a reduction). */
static void compiled_matches(const kb_expr *e, const kb_expr_inputs *fi, const kb_array *fused,
                             int count, uint64_t seed, const char *where, const char *source) {
    kb_array compiled[2];
    setenv("KB_COMPILE", "1", 1);
    kb_status st = kb_expr_eval_results(e, fi, compiled, count);
    setenv("KB_COMPILE", "0", 1);
    if (st != KB_OK)
        fail_msg("seed %llu %s: '%s': compiled: %s", (unsigned long long)seed, where, source,
                 kb_last_error());
    for (int r = 0; r < count; r++) {
        double worst;
        if (!close_enough(&compiled[r], &fused[r], 0, &worst))
            fail_msg("seed %llu %s: '%s': result %d differs compiled", (unsigned long long)seed,
                     where, source, r);
        kb_array_free(&compiled[r]);
    }
}

static void check_one(gen *g, uint64_t seed, kb_simd_level level, tally *t) {
    static const int64_t shapes[][2] = {{7, 7},     {64, 64}, {300, 300}, {3, 5000},
                                        {2, 40000}, {1, 1},   {5, 1}};
    int s = pick(g, 7);
    int64_t rows = shapes[s][0], cols = shapes[s][1];
    g->square = rows == cols;
    g->rows = rows;
    g->cols = cols;
    program(g);
    kb_dtype dtype = pick(g, 2) ? KB_F32 : KB_F64;
    inputs in;
    make_inputs(g, dtype, rows, cols, &in);
    kb_expr *e;
    if (kb_expr_parse(g->buf, &e) != KB_OK)
        fail_msg("seed %llu: '%s' does not parse: %s", (unsigned long long)seed, g->buf,
                 kb_last_error());
    int count = kb_expr_result_count(e);
    kb_array fused[2], eager[2], again[2];
    kb_expr_inputs fi = {.bindings = in.bindings, .nbindings = 3, .mode = KB_EXPR_FUSED};
    kb_expr_inputs ei = fi;
    ei.mode = KB_EXPR_EAGER;
    const char *where = kb_simd_name(level);
    assert_int_equal(kb_threads_set(1), KB_OK);
    kb_status sf = kb_expr_eval_results(e, &fi, fused, count);
    char fused_error[512] = "";
    if (sf != KB_OK)
        snprintf(fused_error, sizeof fused_error, "%s", kb_last_error());
    kb_status se = kb_expr_eval_results(e, &ei, eager, count);
    if ((sf == KB_OK) != (se == KB_OK))
        fail_msg("seed %llu %s: '%s': fused %s, eager %s", (unsigned long long)seed, where, g->buf,
                 sf == KB_OK ? "evaluates" : fused_error,
                 se == KB_OK ? "evaluates" : kb_last_error());
    t->expressions++;
    if (se != KB_OK) {
        if (strcmp(fused_error, kb_last_error()) != 0)
            fail_msg("seed %llu %s: '%s': fused says '%s', eager '%s'", (unsigned long long)seed,
                     where, g->buf, fused_error, kb_last_error());
        t->refused++;
        kb_expr_free(e);
        free_inputs(&in);
        return;
    }
    for (int r = 0; r < count; r++) {
        double worst;
        if (fused[r].dtype != eager[r].dtype || fused[r].ndim != eager[r].ndim ||
            memcmp(fused[r].shape, eager[r].shape, sizeof(int64_t) * (size_t)eager[r].ndim) != 0)
            fail_msg("seed %llu %s: '%s': result %d's type or shape differs",
                     (unsigned long long)seed, where, g->buf, r);
        if (!close_enough(&fused[r], &eager[r], g->longest, &worst))
            fail_msg("seed %llu %s: '%s' (%s, %lldx%lld): result %d differs by %g units "
                     "(other bits without a reduction, NaN or infinity where the other has "
                     "none, or beyond 4 per element of the longest reduction)",
                     (unsigned long long)seed, where, g->buf, kb_dtype_name(dtype), (long long)rows,
                     (long long)cols, r, worst);
        if (g->longest > 0 && worst / (double)g->longest > t->worst)
            t->worst = worst / (double)g->longest;
    }
    /* bit-identical on more threads */
    assert_int_equal(kb_threads_set(test_threads()), KB_OK);
    assert_int_equal(kb_expr_eval_results(e, &fi, again, count), KB_OK);
    for (int r = 0; r < count; r++) {
        size_t bytes = (size_t)kb_array_size(&again[r]) * kb_dtype_size(again[r].dtype);
        if (memcmp(again[r].data, fused[r].data, bytes) != 0)
            fail_msg("seed %llu %s: '%s': result %d differs on %d threads",
                     (unsigned long long)seed, where, g->buf, r, test_threads());
    }
    assert_int_equal(kb_threads_set(1), KB_OK);
    if (t->expressions % COMPILE_EVERY == 0) {
        compiled_matches(e, &fi, fused, count, seed, where, g->buf);
        t->compiled++;
    }
    /* the fused plan never moves more than the eager one */
    kb_expr_plan pf, pe;
    assert_int_equal(kb_expr_explain(e, &fi, &pf), KB_OK);
    assert_int_equal(kb_expr_explain(e, &ei, &pe), KB_OK);
    if (pf.numel > pe.numel)
        fail_msg("seed %llu: '%s': fused numel %lld above eager %lld", (unsigned long long)seed,
                 g->buf, (long long)pf.numel, (long long)pe.numel);
    t->fused += pf.note[0] == '\0';
    if (pf.note[0] && getenv("KB_FUSION_FUZZ_VERBOSE"))
        printf("%s: %s\n", g->buf, pf.note);
    kb_expr_plan_free(&pf);
    kb_expr_plan_free(&pe);
    for (int r = 0; r < count; r++) {
        kb_array_free(&fused[r]);
        kb_array_free(&eager[r]);
        kb_array_free(&again[r]);
    }
    kb_expr_free(e);
    free_inputs(&in);
}

static void fused_matches_eager(void **state) {
    (void)state;
    test_dir cache;
    assert_int_equal(test_dir_create(&cache), 0);
    setenv("KB_CACHE_DIR", cache.root, 1);
    setenv("KB_COMPILE", "0", 1);
    const char *c = getenv("KB_FUSION_FUZZ_COUNT"), *s = getenv("KB_FUSION_FUZZ_SEED");
    int count = c ? atoi(c) : 200;
    uint64_t seed0 = s ? strtoull(s, NULL, 10) : 23;
    char buf[8192];
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
        if (!kb_simd_available((kb_simd_level)level))
            continue;
        assert_int_equal(kb_simd_set(level), KB_OK);
        tally t = {0};
        for (int i = 0; i < count; i++) {
            uint64_t seed = seed0 + (uint64_t)i;
            gen g = {.buf = buf, .size = sizeof buf};
            kb_rng_seed(&g.rng, seed);
            check_one(&g, seed, (kb_simd_level)level, &t);
        }
        printf("%s: %d expressions, %d refused by both, %d fused plans, worst %.3f units per "
               "reduced element, %d evaluated compiled\n",
               kb_simd_name((kb_simd_level)level), t.expressions, t.refused, t.fused, t.worst,
               t.compiled);
        /* the generator's expressions are the fusing kind: a planner that gave up on them
         * would pass the comparisons vacuously */
        assert_true(t.fused >= (t.expressions - t.refused) * 9 / 10);
    }
    assert_int_equal(kb_simd_set(KB_SIMD_AUTO_REQUEST), KB_OK);
    /* a level that compiles kernels made some (a comparison that never ran one would pass) */
    bool compiles = kb_simd_available(KB_SIMD_AVX2) || kb_simd_available(KB_SIMD_AVX512) ||
                    kb_simd_available(KB_SIMD_NEON);
    int made = test_dir_count_in(&cache, "kernels", ".so");
    printf("%d compiled kernels made\n", made);
    if (compiles)
        assert_true(made > 0);
    unsetenv("KB_COMPILE");
    unsetenv("KB_CACHE_DIR");
    assert_int_equal(test_dir_destroy(&cache), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fused_matches_eager),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
