/* The elementwise loops for operands beyond the caches (kb_ew_float_loop with a reach: far
 * loops, which prefetch ahead, and non-temporal loops, which also write with non-temporal
 * stores) give the plain loops' results bit for bit, at every level this build and CPU run:
 * every vector op and where, float32 and float64, lengths that end inside a cache line, a vector or
 * a whole trip, outputs at element offsets 0, 1, 4 and 8 from a cache line's start (aligned, off by
 * one element, off by a whole AVX2 vector of float64 or of float32), on values with NaN,
 * infinities, signed zeros and subnormals; and write nothing past their output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/simd.h"
#include "kernels/ew.h"

static const kb_ew_op ops[] = {
    KB_EW_ADD,    KB_EW_SUB,   KB_EW_MUL,  KB_EW_DIV,    KB_EW_MAXIMUM,    KB_EW_MINIMUM,
    KB_EW_NEG,    KB_EW_ABS,   KB_EW_SQRT, KB_EW_SQUARE, KB_EW_RECIPROCAL, KB_EW_POW,
    KB_EW_EXP,    KB_EW_EXPM1, KB_EW_EXP2, KB_EW_LOG,    KB_EW_LOG1P,      KB_EW_LOG2,
    KB_EW_LOG10,  KB_EW_SIN,   KB_EW_COS,  KB_EW_TAN,    KB_EW_ARCSIN,     KB_EW_ARCCOS,
    KB_EW_ARCTAN, KB_EW_TANH,  KB_EW_SINH, KB_EW_COSH,   KB_EW_ERF,        KB_EW_SIGMOID,
    KB_EW_WHERE};
static const int64_t lengths[] = {1, 5, 15, 16, 17, 33, 1029, 4099};
static const int offsets[] = {0, 1, 4, 8};
enum { MAX_N = 4099, OFFSETS = 8 };

static double value(uint64_t *seed) {
    static const double special[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 0x1p-1060, -0x1p-140};
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    uint64_t r = *seed >> 11;
    if (r % 13 == 0)
        return special[(r >> 8) % (sizeof special / sizeof *special)];
    return ((double)(r >> 12) * 0x1p-41 - 0.5) * 1e3;
}

/* Elements where the other loop's bits differ from the plain loop's, its output starting off
 * elements past a 64-byte boundary; and whether it wrote past its output. */
static int differences(kb_ew_op op, kb_ew_loop plain, kb_ew_loop other, kb_dtype dtype, int64_t n,
                       int off, uint64_t seed) {
    static double x[MAX_N], y[MAX_N];
    static unsigned char condition[MAX_N];
    static _Alignas(64) double a[MAX_N + OFFSETS + 1], b[MAX_N + OFFSETS + 1];
    size_t item = dtype == KB_F32 ? sizeof(float) : sizeof(double);
    for (int64_t i = 0; i < n; i++) {
        double u = value(&seed), v = value(&seed);
        condition[i] = u > v;
        if (dtype == KB_F32) {
            ((float *)x)[i] = (float)u;
            ((float *)y)[i] = (float)v;
        } else {
            x[i] = u;
            y[i] = v;
        }
    }
    memset(a, 0x55, sizeof a);
    memset(b, 0x55, sizeof b);
    char *pa = (char *)a + off * item, *pb = (char *)b + off * item;
    const void *two[2] = {x, y}, *three[3] = {condition, x, y};
    const void *const *in = op == KB_EW_WHERE ? three : two;
    unsigned found = 0;
    plain(n, pa, in, &found);
    other(n, pb, in, &found);
    kb_nt_fence();
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += memcmp(pa + i * item, pb + i * item, item) != 0;
    /* nothing written before or past the output */
    bad += memcmp(a, b, off * item) != 0;
    bad += memcmp(pa + n * item, pb + n * item, item) != 0;
    return bad;
}

static void loops_beyond_the_caches_equal_plain_loops(void **state) {
    (void)state;
    static const kb_reach reaches[] = {KB_REACH_FAR, KB_REACH_BEYOND};
    int bad = 0, levels = 0, distinct[2] = {0, 0};
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        if (!kb_simd_available((kb_simd_level)l))
            continue;
        levels++;
        for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
            for (int t = 0; t < 2; t++) {
                kb_dtype dtype = t ? KB_F64 : KB_F32;
                kb_ew_loop plain =
                    kb_ew_float_loop(ops[k], dtype, (kb_simd_level)l, KB_REACH_CACHE);
                assert_non_null(plain);
                for (int r = 0; r < 2; r++) {
                    kb_ew_loop other =
                        kb_ew_float_loop(ops[k], dtype, (kb_simd_level)l, reaches[r]);
                    assert_non_null(other);
                    distinct[r] += other != plain;
                    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
                        for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++) {
                            int off = offsets[o];
                            int d = differences(ops[k], plain, other, dtype, lengths[i], off,
                                                7 + k * 31 + i * 7 + (uint64_t)off);
                            if (d)
                                fprintf(
                                    stderr,
                                    "%s: op %d %s reach %d n=%lld offset %d: %d elements differ\n",
                                    kb_simd_name((kb_simd_level)l), (int)ops[k], t ? "f64" : "f32",
                                    (int)reaches[r], (long long)lengths[i], off, d);
                            bad += d;
                        }
                }
            }
    }
    assert_true(levels >= 1);
    /* the vector levels have loops of their own for both reaches (the scalar level streams
     * with its plain loops), so some pair differs where the CPU runs one */
    if (levels > 1) {
        assert_true(distinct[0] > 0);
        assert_true(distinct[1] > 0);
    }
    assert_int_equal(bad, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loops_beyond_the_caches_equal_plain_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
