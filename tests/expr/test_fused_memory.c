/* Fused kernels over arrays beyond the last-level cache, which prefetch their inputs ahead and
 * write their outputs with non-temporal stores (expr/fused_eval.c), give the bits the same
 * expressions give over slices that fit the caches, where neither happens: elementwise chains of
 * one and three inputs, a select, and a row softmax (rows of ROW), at one and KB_TEST_THREADS
 * (default 2) threads. */
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
#include "kbench/expr.h"
#include "kbench/threads.h"

/* The last one works on rows. */
static const char *const expressions[] = {
    "2*x**3 - 3*x**2 + x - 1", "a*b + c", "sqrt(x**2 + y**2)", "where(x > 0, x, 0.01*x)",
    "m = max(x, axis=-1, keepdims=True); e = exp(x - m); e / sum(e, axis=-1, keepdims=True)"};
static const char *const names[] = {"x", "y", "a", "b", "c"};
/* SLICE: the elements of a slice, whole rows of ROW */
enum { INPUTS = 5, ROW = 1000, SLICE = 4 * ROW };

static int test_threads(void) {
    const char *v = getenv("KB_TEST_THREADS");
    return v && atoi(v) > 0 ? atoi(v) : 2;
}

/* The expression over elements [from, from + n) of the inputs into out's first n, all float32,
 * as rows of ROW when rows is set. */
static kb_status eval_range(const kb_expr *e, bool rows, const kb_array *in, int64_t from,
                            int64_t n, const kb_array *out) {
    int64_t shape[2] = {rows ? n / ROW : n, ROW};
    int ndim = rows ? 2 : 1;
    kb_array views[INPUTS], o;
    kb_expr_binding b[INPUTS];
    kb_status st = kb_array_view(&o, KB_F32, ndim, shape, NULL, out->data, 0);
    for (int k = 0; k < INPUTS && st == KB_OK; k++) {
        st = kb_array_view(&views[k], KB_F32, ndim, shape, NULL, (float *)in[k].data + from,
                           KB_ARRAY_READONLY);
        b[k] = (kb_expr_binding){names[k], &views[k]};
    }
    if (st != KB_OK)
        return st;
    kb_expr_inputs inputs = {.bindings = b, .nbindings = INPUTS};
    return kb_expr_eval_into(e, &inputs, &o, 1);
}

static void beyond_the_caches_equals_in_the_caches(void **state) {
    (void)state;
    /* x and the output alone span twice the last-level cache */
    int64_t n = (kb_cache_llc_bytes() / 4 / ROW + 3 * SLICE / ROW) * ROW;
    kb_array in[INPUTS], whole, part;
    uint64_t seed = 12345;
    for (int k = 0; k < INPUTS; k++) {
        assert_int_equal(kb_array_new(&in[k], KB_F32, 1, &n, KB_ORDER_C), KB_OK);
        float *v = in[k].data;
        for (int64_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            v[i] = (float)((double)(seed >> 40) * 0x1p-23 - 1.0);
        }
    }
    assert_int_equal(kb_array_new(&whole, KB_F32, 1, &n, KB_ORDER_C), KB_OK);
    int64_t slice = SLICE;
    assert_int_equal(kb_array_new(&part, KB_F32, 1, &slice, KB_ORDER_C), KB_OK);
    const int64_t starts[] = {0, n / 2 / ROW * ROW - 7 * ROW, n - SLICE};
    size_t count = sizeof expressions / sizeof *expressions;
    for (size_t x = 0; x < count; x++) {
        kb_expr *e;
        assert_int_equal(kb_expr_parse(expressions[x], &e), KB_OK);
        bool rows = x == count - 1;
        for (int threads = 1; threads <= test_threads(); threads++) {
            assert_int_equal(kb_threads_set(threads), KB_OK);
            memset(whole.data, 0, (size_t)n * sizeof(float));
            assert_int_equal(eval_range(e, rows, in, 0, n, &whole), KB_OK);
            for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
                assert_int_equal(kb_threads_set(1), KB_OK);
                assert_int_equal(eval_range(e, rows, in, starts[s], SLICE, &part), KB_OK);
                int differ =
                    memcmp((float *)whole.data + starts[s], part.data, SLICE * sizeof(float));
                if (differ)
                    fprintf(stderr, "%s, %d threads: elements from %lld differ\n", expressions[x],
                            threads, (long long)starts[s]);
                assert_int_equal(differ, 0);
                assert_int_equal(kb_threads_set(threads), KB_OK);
            }
        }
        kb_expr_free(e);
    }
    for (int k = 0; k < INPUTS; k++)
        kb_array_free(&in[k]);
    kb_array_free(&whole);
    kb_array_free(&part);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(beyond_the_caches_equals_in_the_caches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
