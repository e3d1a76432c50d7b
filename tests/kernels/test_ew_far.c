/* The elementwise loops for operands streamed from memory (kb_ew_float_loop with far, which
 * prefetch ahead) give the plain loops' results bit for bit, at every level this build and CPU
 * run: every op that has one, float32 and float64, lengths that end inside a cache line, a
 * vector or a whole trip, on values with NaN, infinities, signed zeros and subnormals. */
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

static const kb_ew_op ops[] = {KB_EW_ADD,     KB_EW_SUB,     KB_EW_MUL,       KB_EW_DIV,
                               KB_EW_MAXIMUM, KB_EW_MINIMUM, KB_EW_NEG,       KB_EW_ABS,
                               KB_EW_SQRT,    KB_EW_SQUARE,  KB_EW_RECIPROCAL};
static const int64_t lengths[] = {1, 5, 15, 16, 17, 33, 1029, 4099};
enum { MAX_N = 4099 };

static double value(uint64_t *seed) {
    static const double special[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 0x1p-1060, -0x1p-140};
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    uint64_t r = *seed >> 11;
    if (r % 13 == 0)
        return special[(r >> 8) % (sizeof special / sizeof *special)];
    return ((double)(r >> 12) * 0x1p-41 - 0.5) * 1e3;
}

/* Elements where the far loop's bits differ from the plain loop's. */
static int differences(kb_ew_loop plain, kb_ew_loop far, kb_dtype dtype, int64_t n, uint64_t seed) {
    static double x[MAX_N], y[MAX_N], a[MAX_N + 1], b[MAX_N + 1];
    size_t item = dtype == KB_F32 ? sizeof(float) : sizeof(double);
    for (int64_t i = 0; i < n; i++) {
        double u = value(&seed), v = value(&seed);
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
    const void *in[2] = {x, y};
    unsigned found = 0;
    plain(n, a, in, &found);
    far(n, b, in, &found);
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += memcmp((char *)a + i * item, (char *)b + i * item, item) != 0;
    /* nothing written past the end */
    bad += memcmp((char *)a + n * item, (char *)b + n * item, item) != 0;
    return bad;
}

static void far_loops_equal_plain_loops(void **state) {
    (void)state;
    int bad = 0, levels = 0, distinct = 0;
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        if (!kb_simd_available((kb_simd_level)l))
            continue;
        levels++;
        for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
            for (int t = 0; t < 2; t++) {
                kb_dtype dtype = t ? KB_F64 : KB_F32;
                kb_ew_loop plain = kb_ew_float_loop(ops[k], dtype, (kb_simd_level)l, false);
                kb_ew_loop far = kb_ew_float_loop(ops[k], dtype, (kb_simd_level)l, true);
                assert_non_null(plain);
                assert_non_null(far);
                distinct += far != plain;
                for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
                    int d = differences(plain, far, dtype, lengths[i], 7 + k * 31 + i);
                    if (d)
                        fprintf(stderr, "%s: op %d %s n=%lld: %d elements differ\n",
                                kb_simd_name((kb_simd_level)l), (int)ops[k], t ? "f64" : "f32",
                                (long long)lengths[i], d);
                    bad += d;
                }
            }
    }
    assert_true(levels >= 1);
    /* the vector levels have far loops of their own (the scalar level streams with its plain
     * loops), so some pair differs where the CPU runs one */
    if (levels > 1)
        assert_true(distinct > 0);
    assert_int_equal(bad, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(far_loops_equal_plain_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
