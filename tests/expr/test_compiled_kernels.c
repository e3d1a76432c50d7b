/* Compiled kernels (expr/kernel_source.c, expr/kernel_compile.c) give the bits the same
 * elementwise kernels give op by op (NaN for any NaN): every op they compute, float32 and float64,
 * lengths that end in a partial vector, span several tasks or stream beyond the last-level cache
 * (prefetches and non-temporal stores), inputs with NaN, infinities, zeros of both signs and values
 * beyond the functions' ranges, at every level compiled kernels are written for (AVX2, AVX-512,
 * NEON) that this machine runs (NEON under qemu, the cross compiler run from there). The AVX-512
 * source compiles where the CPU lacks AVX-512. A compiler that cannot be run fails KB_COMPILE=1
 * with a message that names KB_CC, and leaves KB_COMPILE=auto to run op by op. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cache_size.h"
#include "expr/kernel_compile.h"
#include "kbench/expr.h"
#include "kbench/simd.h"
#include "test_util.h"
#include "util/rng.h"

/* Every op the compiled kernels compute, in tuples of at most 14 results (with x and y, the 16
 * inputs and outputs a compiled kernel takes), each tuple one kernel that compiles. (!= is
 * not compiled: the layer's compares cannot give its NaN lanes.) */
static const char *const tuples[] = {
    "(x + y, x - y, x * y, x / y, maximum(x, y), minimum(x, y), -x, abs(x), sqrt(x), x**2, "
    "reciprocal(x), x ** y, exp(x), expm1(x))",
    "(exp2(x), log(x), log1p(x), log2(x), log10(x), sin(x), cos(x), tan(x), arcsin(x), "
    "arccos(x), arctan(x), tanh(x), sinh(x), cosh(x))",
    "(erf(x), sigmoid(x), where(x < y, x, y), where(x <= y, 2*x, y), where(x > y, x, 0.5), "
    "where(x >= 0, x, 0.01*x), where(x == y, -y, x), "
    "2*x**3 - 3*x**2 + x - 1, 0.5*x*(1 + tanh(0.7978845608*(x + 0.044715*x**3))))",
};

/* The levels compiled kernels are written for, where this machine runs them. */
static bool compiles_at(int level) {
    return (level == KB_SIMD_AVX2 || level == KB_SIMD_AVX512 || level == KB_SIMD_NEON) &&
           kb_simd_available((kb_simd_level)level);
}

/* Whether the level in force compiles kernels (its elementwise loops' level does). */
static bool compiles_here(void) {
    kb_simd_level level;
    assert_int_equal(kb_simd_current(&level), KB_OK);
    return compiles_at(kb_simd_table_level(KB_SIMD_FAMILY_ELEMENTWISE, level));
}

/* x and y: uniform in [-4, 4], a special value now and then. */
static void fill(kb_array *a, kb_rng *rng) {
    static const double specials[] = {NAN,  INFINITY, -INFINITY, 0.0,    -0.0, 1e30, -1e-30,
                                      88.7, -104.5,   710.0,     -746.0, 1.0,  -1.0, 0.25};
    int64_t n = kb_array_size(a);
    for (int64_t i = 0; i < n; i++) {
        double v = 8 * kb_rng_uniform(rng) - 4;
        if (kb_rng_next(rng) % 13 == 0)
            v = specials[kb_rng_next(rng) % (sizeof specials / sizeof *specials)];
        if (a->dtype == KB_F32)
            ((float *)a->data)[i] = (float)v;
        else
            ((double *)a->data)[i] = v;
    }
}

/* Whether n elements of type t agree bit for bit, NaN matching any NaN: which of two NaN
 * operands an instruction passes on is the compiler's choice (it may swap the operands of a
 * commutative one), for the library's loops and a compiled kernel alike. The index of the first
 * that does not, or -1. */
static int64_t first_difference(kb_dtype t, const void *a, const void *b, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        double x = t == KB_F32 ? ((const float *)a)[i] : ((const double *)a)[i];
        double y = t == KB_F32 ? ((const float *)b)[i] : ((const double *)b)[i];
        size_t item = kb_dtype_size(t);
        if (memcmp((const char *)a + i * (int64_t)item, (const char *)b + i * (int64_t)item,
                   item) != 0 &&
            !(isnan(x) && isnan(y)))
            return i;
    }
    return -1;
}

/* The count results a (op by op) and c (compiled) agree as first_difference says; what names
 * them in the failure. Frees both. */
static void same_results(kb_array *a, kb_array *c, int count, const char *what) {
    for (int r = 0; r < count; r++) {
        int64_t at = first_difference(a[r].dtype, a[r].data, c[r].data, kb_array_size(&a[r]));
        if (at >= 0)
            fail_msg("%s: result %d differs compiled at %lld", what, r, (long long)at);
        kb_array_free(&a[r]);
        kb_array_free(&c[r]);
    }
}

/* The tuple's results with KB_COMPILE set to compile, into out. */
static void eval(const kb_expr *e, kb_array *x, kb_array *y, const char *compile, kb_array *out,
                 int count) {
    kb_expr_binding b[2] = {{"x", x}, {"y", y}};
    kb_expr_inputs in = {.bindings = b, .nbindings = 2, .mode = KB_EXPR_FUSED};
    setenv("KB_COMPILE", compile, 1);
    kb_status st = kb_expr_eval_results(e, &in, out, count);
    if (st != KB_OK)
        fail_msg("KB_COMPILE=%s: %s", compile, kb_last_error());
}

static void same_bits_as_op_by_op(void **state) {
    (void)state;
    test_dir cache;
    assert_int_equal(test_dir_create(&cache), 0);
    setenv("KB_CACHE_DIR", cache.root, 1);
    int levels = 0;
    /* 16 arrays span the last-level cache; not under emulation (KB_TEST_EMULATED), where
     * NEON's stores are plain anyway and the 14 functions over them take minutes */
    int64_t beyond = kb_cache_llc_bytes() / (16 * 4) + 1001;
    const int64_t lengths[] = {1, 5, 8, 13, 100, 8192 * 2 + 3, beyond};
    size_t nlengths = sizeof lengths / sizeof *lengths - (getenv("KB_TEST_EMULATED") ? 1 : 0);
    kb_rng rng;
    kb_rng_seed(&rng, 7);
    int compared = 0;
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
        if (!compiles_at(level))
            continue;
        assert_int_equal(kb_simd_set(level), KB_OK);
        levels++;
        for (int t = 0; t < 2; t++) {
            kb_dtype dtype = t ? KB_F64 : KB_F32;
            for (size_t l = 0; l < nlengths; l++) {
                int64_t n = lengths[l];
                kb_array x, y;
                assert_int_equal(kb_array_new(&x, dtype, 1, &n, KB_ORDER_C), KB_OK);
                assert_int_equal(kb_array_new(&y, dtype, 1, &n, KB_ORDER_C), KB_OK);
                fill(&x, &rng);
                fill(&y, &rng);
                for (size_t k = 0; k < sizeof tuples / sizeof *tuples; k++) {
                    kb_expr *e;
                    assert_int_equal(kb_expr_parse(tuples[k], &e), KB_OK);
                    int count = kb_expr_result_count(e);
                    kb_array a[16], c[16];
                    eval(e, &x, &y, "0", a, count);
                    eval(e, &x, &y, "1", c, count);
                    char what[512];
                    snprintf(what, sizeof what, "%s %s n=%lld: %s",
                             kb_simd_name((kb_simd_level)level), kb_dtype_name(dtype), (long long)n,
                             tuples[k]);
                    same_results(a, c, count, what);
                    compared++;
                    kb_expr_free(e);
                }
                kb_array_free(&x);
                kb_array_free(&y);
            }
        }
    }
    /* each tuple of each type at each level compiled (one that ran op by op would compare
     * nothing) */
    int made = test_dir_count_in(&cache, "kernels", ".so");
    printf("%d tuples compared, %d kernels compiled\n", compared, made);
    assert_int_equal(made, levels * 2 * (int)(sizeof tuples / sizeof *tuples));
    assert_true(levels > 0 || !(kb_simd_compiled(KB_SIMD_AVX2) || kb_simd_compiled(KB_SIMD_NEON)));
    assert_int_equal(kb_simd_set(KB_SIMD_AUTO_REQUEST), KB_OK);
    unsetenv("KB_COMPILE");
    unsetenv("KB_CACHE_DIR");
    assert_int_equal(test_dir_destroy(&cache), 0);
}

/* The AVX-512 kernels' source compiles and loads here, whether or not the CPU runs it (it is
 * not called). */
static void avx512_source_compiles(void **state) {
    (void)state;
    if (!kb_simd_compiled(KB_SIMD_AVX512))
        skip();
    const kb_ck_op ops[] = {{KB_EW_MUL, 2, {0, 1, 0}, -1},
                            {KB_EW_TANH, 1, {3, 0, 0}, 0},
                            {KB_EW_GT, 2, {0, 2, 0}, -1},
                            {KB_EW_WHERE, 3, {5, 4, 1}, 1}};
    for (int t = 0; t < 2; t++) {
        kb_ck k = {.type = t ? KB_F64 : KB_F32,
                   .ninputs = 2,
                   .nconsts = 1,
                   .nouts = 2,
                   .nops = 4,
                   .ops = ops};
        kb_ck_fn fn = NULL;
        kb_status st = kb_ck_compile(&k, KB_SIMD_AVX512, &fn);
        if (st != KB_OK)
            fail_msg("%s", kb_last_error());
        assert_non_null(fn);
    }
}

/* With a compiler that cannot be run: KB_COMPILE=1 fails and says so; auto runs op by op. */
static void a_missing_compiler(void **state) {
    (void)state;
    if (!compiles_at(KB_SIMD_AVX2) && !compiles_at(KB_SIMD_NEON))
        skip();
    int64_t n = 100000;
    kb_array x, y, out[1], ref[1];
    assert_int_equal(kb_array_new(&x, KB_F32, 1, &n, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_new(&y, KB_F32, 1, &n, KB_ORDER_C), KB_OK);
    kb_rng rng;
    kb_rng_seed(&rng, 9);
    fill(&x, &rng);
    fill(&y, &rng);
    kb_expr *e;
    /* a kernel no other test compiles, so that no process table or cache has it */
    assert_int_equal(kb_expr_parse("x * 1.25 - y * 0.75 + 3", &e), KB_OK);
    kb_expr_binding b[2] = {{"x", &x}, {"y", &y}};
    kb_expr_inputs in = {.bindings = b, .nbindings = 2, .mode = KB_EXPR_FUSED};
    test_dir cache;
    assert_int_equal(test_dir_create(&cache), 0);
    setenv("KB_CACHE_DIR", cache.root, 1);
    setenv("KB_CC", "/nonexistent/cc", 1);
    setenv("KB_COMPILE", "1", 1);
    assert_int_equal(kb_expr_eval_results(e, &in, out, 1), KB_EUNSUPPORTED);
    assert_non_null(strstr(kb_last_error(), "/nonexistent/cc"));
    assert_non_null(strstr(kb_last_error(), "KB_CC"));
    setenv("KB_COMPILE", "auto", 1);
    assert_int_equal(kb_expr_eval_results(e, &in, out, 1), KB_OK);
    setenv("KB_COMPILE", "0", 1);
    assert_int_equal(kb_expr_eval_results(e, &in, ref, 1), KB_OK);
    assert_int_equal(first_difference(KB_F32, out[0].data, ref[0].data, n), -1);
    kb_array_free(&out[0]);
    setenv("KB_COMPILE", "sometimes", 1);
    assert_int_equal(kb_expr_eval_results(e, &in, out + 0, 1), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "KB_COMPILE"));
    unsetenv("KB_COMPILE");
    unsetenv("KB_CC");
    unsetenv("KB_CACHE_DIR");
    assert_int_equal(test_dir_destroy(&cache), 0);
    kb_array_free(&out[0]);
    kb_array_free(&ref[0]);
    kb_array_free(&x);
    kb_array_free(&y);
    kb_expr_free(e);
}

/* kb_expr_explain names the kernels that run compiled: with KB_COMPILE=1 where a level compiles
 * them, never with KB_COMPILE=0; a kernel with a reduction whose rows stay in the caches, by its
 * compiled runs. */
static void explain_says_compiled(void **state) {
    (void)state;
    bool compiles = compiles_here();
    int64_t n = 1000;
    kb_array x;
    assert_int_equal(kb_array_new(&x, KB_F64, 1, &n, KB_ORDER_C), KB_OK);
    kb_expr_binding b[1] = {{"x", &x}};
    kb_expr_inputs in = {.bindings = b, .nbindings = 1, .mode = KB_EXPR_FUSED};
    const char *sources[] = {"exp(x) * 2 - x", "x - sum(x)"};
    for (int s = 0; s < 2; s++)
        for (int on = 0; on < 2; on++) {
            kb_expr *e;
            assert_int_equal(kb_expr_parse(sources[s], &e), KB_OK);
            setenv("KB_COMPILE", on ? "1" : "0", 1);
            kb_expr_plan plan;
            assert_int_equal(kb_expr_explain(e, &in, &plan), KB_OK);
            bool said = false;
            for (int k = 0; k < plan.nkernels; k++)
                said |= strstr(plan.kernels[k].loops,
                               s == 0 ? ", compiled (a vector through all its ops)"
                                      : "its elementwise runs compiled") != NULL;
            assert_int_equal(said, on && compiles);
            kb_expr_plan_free(&plan);
            kb_expr_free(e);
        }
    unsetenv("KB_COMPILE");
    kb_array_free(&x);
}

/* Strided operands: a transposed input, one broadcast along rows, and an output that is not
 * aligned for non-temporal stores beyond the last-level cache (the chunk streams with plain
 * stores) give the op-by-op bits too. */
static void strided_operands(void **state) {
    (void)state;
    if (!compiles_here())
        skip();
    kb_rng rng;
    kb_rng_seed(&rng, 11);
    int64_t side = getenv("KB_TEST_EMULATED") ? 300 : 2900; /* 2900^2 * 4 arrays: beyond LLC */
    int64_t sq[2] = {side, side}, row = side, flat = side * side + 1;
    kb_array x, y, a, c, whole;
    assert_int_equal(kb_array_new(&x, KB_F32, 2, sq, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_new(&y, KB_F32, 1, &row, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_new(&a, KB_F32, 2, sq, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_new(&whole, KB_F32, 1, &flat, KB_ORDER_C), KB_OK);
    fill(&x, &rng);
    fill(&y, &rng);
    /* c: a view one element into whole, so that no chunk of it is 64-byte aligned */
    assert_int_equal(kb_array_view(&c, KB_F32, 2, sq, NULL, (float *)whole.data + 1, 0), KB_OK);
    kb_expr *e;
    assert_int_equal(kb_expr_parse("exp(-abs(transpose(x))) * y + sqrt(abs(x))", &e), KB_OK);
    kb_expr_binding b[2] = {{"x", &x}, {"y", &y}};
    kb_expr_inputs in = {.bindings = b, .nbindings = 2, .mode = KB_EXPR_FUSED};
    setenv("KB_COMPILE", "0", 1);
    assert_int_equal(kb_expr_eval_into(e, &in, &a, 1), KB_OK);
    setenv("KB_COMPILE", "1", 1);
    assert_int_equal(kb_expr_eval_into(e, &in, &c, 1), KB_OK);
    unsetenv("KB_COMPILE");
    assert_int_equal(first_difference(KB_F32, a.data, c.data, side * side), -1);
    kb_expr_free(e);
    kb_array_free(&x);
    kb_array_free(&y);
    kb_array_free(&a);
    kb_array_free(&whole);
}

/* e's one result evaluated (KB_COMPILE as set) into a transposed view of a new buffer, then
 * copied back into *out, which it replaces. */
static void into_transposed(const kb_expr *e, const kb_expr_inputs *in, kb_array *out) {
    int64_t rows = out->shape[0], cols = out->shape[1], flipped[2] = {cols, rows};
    kb_array buf, view;
    assert_int_equal(kb_array_new(&buf, out->dtype, 2, flipped, KB_ORDER_C), KB_OK);
    int64_t item = (int64_t)kb_dtype_size(out->dtype), strides[2] = {item, rows * item};
    assert_int_equal(kb_array_view(&view, out->dtype, 2, out->shape, strides, buf.data, 0), KB_OK);
    kb_status st = kb_expr_eval_into(e, in, &view, 1);
    if (st != KB_OK)
        fail_msg("into a transposed view: %s", kb_last_error());
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < cols; k++)
            memcpy((char *)out->data + (r * cols + k) * item,
                   (char *)buf.data + (k * rows + r) * item, (size_t)item);
    kb_array_free(&buf);
}

/* Row expressions (a kernel that keeps each row in the caches, its elementwise runs between the
 * reductions compiled, row values among their constants) give the op-by-op bits: a softmax, a
 * layer norm, an RMS norm, a mask against a row value, a value that is both a result and a
 * reduction's operand, an operand of the other float type (y, cast as it is read), float32 and
 * float64, rows with NaN and infinities, into a transposed output (scattered), at every level
 * that compiles, each checked to have compiled. */
static void row_runs_same_bits(void **state) {
    (void)state;
    static const char *const sources[] = {
        "m = max(x, axis=-1, keepdims=True); e = exp(x - m); e / sum(e, axis=-1, keepdims=True)",
        "m = mean(x, axis=-1, keepdims=True); d = x - m; "
        "d / sqrt(mean(d*d, axis=-1, keepdims=True) + 1e-5)",
        "x / sqrt(mean(x*x, axis=-1, keepdims=True) + 1e-6)",
        "m = min(x, axis=-1, keepdims=True); where(x > m + 1, x * 2, m - x)",
        "e = exp(x * 0.5); (e, sum(e, axis=-1), e * max(x, axis=-1, keepdims=True))",
        "x + y - mean(x, axis=-1, keepdims=True)",
        "x + y",
    };
    /* rows that fit half of any L2 (256 KiB or more) with the kernels' values; the last shape
     * spans the last-level cache (non-temporal stores), not under emulation */
    int64_t shapes[][2] = {{7, 13}, {40, 300}, {kb_cache_llc_bytes() / (500 * 4) + 7, 500}};
    size_t nshapes = sizeof shapes / sizeof *shapes - (getenv("KB_TEST_EMULATED") ? 1 : 0);
    kb_rng rng;
    kb_rng_seed(&rng, 13);
    int compared = 0;
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
        if (!compiles_at(level))
            continue;
        assert_int_equal(kb_simd_set(level), KB_OK);
        for (int t = 0; t < 2; t++)
            for (size_t s = 0; s < nshapes; s++) {
                kb_array x, y;
                assert_int_equal(kb_array_new(&x, t ? KB_F64 : KB_F32, 2, shapes[s], KB_ORDER_C),
                                 KB_OK);
                assert_int_equal(
                    kb_array_new(&y, t ? KB_F32 : KB_F64, 1, &shapes[s][1], KB_ORDER_C), KB_OK);
                fill(&x, &rng);
                fill(&y, &rng);
                for (size_t k = 0; k < sizeof sources / sizeof *sources; k++) {
                    kb_expr *e;
                    assert_int_equal(kb_expr_parse(sources[k], &e), KB_OK);
                    kb_expr_binding b[2] = {{"x", &x}, {"y", &y}};
                    kb_expr_inputs in = {.bindings = b, .nbindings = 2, .mode = KB_EXPR_FUSED};
                    setenv("KB_COMPILE", "1", 1);
                    kb_expr_plan plan;
                    assert_int_equal(kb_expr_explain(e, &in, &plan), KB_OK);
                    bool compiled = false;
                    for (int p = 0; p < plan.nkernels; p++)
                        compiled |= strstr(plan.kernels[p].loops, "compiled") != NULL;
                    kb_expr_plan_free(&plan);
                    if (!compiled)
                        fail_msg("%s %lldx%lld: %s not compiled",
                                 kb_simd_name((kb_simd_level)level), (long long)shapes[s][0],
                                 (long long)shapes[s][1], sources[k]);
                    int count = kb_expr_result_count(e);
                    kb_array a[3], c[3];
                    eval(e, &x, &y, "0", a, count);
                    eval(e, &x, &y, "1", c, count);
                    if (count == 1) /* the same into a transposed view: scattered */
                        into_transposed(e, &in, &c[0]);
                    char what[512];
                    snprintf(what, sizeof what, "%s %s %lldx%lld: %s",
                             kb_simd_name((kb_simd_level)level), kb_dtype_name(x.dtype),
                             (long long)shapes[s][0], (long long)shapes[s][1], sources[k]);
                    same_results(a, c, count, what);
                    compared++;
                    kb_expr_free(e);
                }
                kb_array_free(&x);
                kb_array_free(&y);
            }
    }
    printf("%d row expressions compared\n", compared);
    unsetenv("KB_COMPILE");
    assert_int_equal(kb_simd_set(KB_SIMD_AUTO_REQUEST), KB_OK);
}

/* A compiler that fails: KB_COMPILE=auto runs op by op, having run the compiler once for the
 * kernel, not once a call. */
static void a_failing_compiler_runs_once(void **state) {
    (void)state;
    if (!compiles_here())
        skip();
    test_dir dir;
    assert_int_equal(test_dir_create(&dir), 0);
    char script[512], counter[512], text[1200];
    test_dir_path(&dir, "cc", script, sizeof script);
    test_dir_path(&dir, "count", counter, sizeof counter);
    snprintf(text, sizeof text, "#!/bin/sh\necho run >> '%s'\necho 'no, not today' >&2\nexit 1\n",
             counter);
    test_write_text(script, text);
    assert_int_equal(chmod(script, 0755), 0);
    setenv("KB_CACHE_DIR", dir.root, 1);
    setenv("KB_CC", script, 1);
    int64_t n = 70000;
    kb_array x, out[1];
    assert_int_equal(kb_array_new(&x, KB_F64, 1, &n, KB_ORDER_C), KB_OK);
    kb_rng rng;
    kb_rng_seed(&rng, 5);
    fill(&x, &rng);
    kb_expr *e;
    assert_int_equal(kb_expr_parse("x * 0.375 + 11", &e), KB_OK);
    kb_expr_binding b[1] = {{"x", &x}};
    kb_expr_inputs in = {.bindings = b, .nbindings = 1, .mode = KB_EXPR_FUSED};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(kb_expr_eval_results(e, &in, out, 1), KB_OK);
        kb_array_free(&out[0]);
    }
    size_t size;
    char *runs = test_read_file(counter, &size);
    assert_int_equal(size, strlen("run\n"));
    free(runs);
    setenv("KB_COMPILE", "1", 1);
    assert_int_equal(kb_expr_eval_results(e, &in, out, 1), KB_EUNSUPPORTED);
    assert_non_null(strstr(kb_last_error(), "no, not today"));
    unsetenv("KB_COMPILE");
    unsetenv("KB_CC");
    unsetenv("KB_CACHE_DIR");
    kb_expr_free(e);
    kb_array_free(&x);
    assert_int_equal(test_dir_destroy(&dir), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_bits_as_op_by_op), cmocka_unit_test(avx512_source_compiles),
        cmocka_unit_test(a_missing_compiler),    cmocka_unit_test(explain_says_compiled),
        cmocka_unit_test(strided_operands),      cmocka_unit_test(a_failing_compiler_runs_once),
        cmocka_unit_test(row_runs_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
