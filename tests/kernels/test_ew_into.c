/* kb_ew_apply_into, the elementwise driver writing into a given array, at every level this
 * build and CPU run and at one and two threads (KB_TEST_THREADS): add, mul, neg, abs, sqrt and
 * where equal a plain C loop exactly (they are correctly rounded), exp equals kb_ew_apply's new
 * array bit for bit; over lengths that end in a partial vector and are large enough for threads;
 * and a wrong shape, a read-only or a strided output is refused. */
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

#include "kbench/error.h"
#include "kbench/simd.h"
#include "kbench/threads.h"
#include "kernels/ew.h"

/* Odd lengths: a partial last vector, and one beyond the driver's one-thread limit (2^16). */
static const int64_t lengths[] = {1, 7, 1029, 70001};

/* The reference of op on element i of x, y and the condition c. */
static double reference(kb_ew_op op, double x, double y, bool c) {
    switch (op) {
        case KB_EW_ADD:
            return x + y;
        case KB_EW_MUL:
            return x * y;
        case KB_EW_NEG:
            return -x;
        case KB_EW_ABS:
            return fabs(x);
        case KB_EW_SQRT:
            return sqrt(x);
        default:
            return c ? x : y;
    }
}

static float reference_f32(kb_ew_op op, float x, float y, bool c) {
    switch (op) {
        case KB_EW_ADD:
            return x + y;
        case KB_EW_MUL:
            return x * y;
        case KB_EW_NEG:
            return -x;
        case KB_EW_ABS:
            return fabsf(x);
        case KB_EW_SQRT:
            return sqrtf(x);
        default:
            return c ? x : y;
    }
}

typedef struct operands {
    kb_array x, y, c;
    const kb_array *in[3];
    int nin;
} operands;

static void make_operands(operands *o, kb_ew_op op, kb_dtype dtype, int64_t n, uint64_t seed) {
    assert_int_equal(kb_array_new(&o->x, dtype, 1, &n, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_new(&o->y, dtype, 1, &n, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_new(&o->c, KB_BOOL, 1, &n, KB_ORDER_C), KB_OK);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        double u = (double)(seed >> 11) * 0x1p-53, v = (double)((seed >> 3) & 0xffff) / 65536.0;
        double x = op == KB_EW_SQRT ? 100 * u : 8 * u - 4, y = 3 * v - 1.5;
        if (dtype == KB_F32) {
            ((float *)o->x.data)[i] = (float)x;
            ((float *)o->y.data)[i] = (float)y;
        } else {
            ((double *)o->x.data)[i] = x;
            ((double *)o->y.data)[i] = y;
        }
        ((bool *)o->c.data)[i] = x > 0;
    }
    o->nin = 0;
    if (op == KB_EW_WHERE)
        o->in[o->nin++] = &o->c;
    o->in[o->nin++] = &o->x;
    if (kb_ew_arity(op) > 1)
        o->in[o->nin++] = &o->y;
}

static void free_operands(operands *o) {
    kb_array_free(&o->x);
    kb_array_free(&o->y);
    kb_array_free(&o->c);
}

/* Elements of out that differ from the reference, or from want, bit for bit. */
static int mismatches(kb_ew_op op, const operands *o, const kb_array *out, const kb_array *want) {
    int64_t n = out->shape[0];
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const char *p = (const char *)out->data + i * out->strides[0];
        bool c = ((const bool *)o->c.data)[i];
        if (out->dtype == KB_F32) {
            float got, expect = want ? ((const float *)want->data)[i]
                                     : reference_f32(op, ((const float *)o->x.data)[i],
                                                     ((const float *)o->y.data)[i], c);
            memcpy(&got, p, sizeof got);
            bad += memcmp(&got, &expect, sizeof got) != 0;
        } else {
            double got, expect = want ? ((const double *)want->data)[i]
                                      : reference(op, ((const double *)o->x.data)[i],
                                                  ((const double *)o->y.data)[i], c);
            memcpy(&got, p, sizeof got);
            bad += memcmp(&got, &expect, sizeof got) != 0;
        }
    }
    return bad;
}

static int check_op(kb_ew_op op, kb_dtype dtype, int64_t n) {
    operands o;
    make_operands(&o, op, dtype, n, (uint64_t)n * 31 + (uint64_t)op);
    kb_array want = {0};
    unsigned found;
    if (op == KB_EW_EXP)
        assert_int_equal(kb_ew_apply(op, o.nin, o.in, dtype, dtype, &want, &found), KB_OK);
    const kb_array *reference_out = op == KB_EW_EXP ? &want : NULL;
    kb_array out;
    assert_int_equal(kb_array_new(&out, dtype, 1, &n, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_ew_apply_into(op, o.nin, o.in, dtype, &out, &found), KB_OK);
    int bad = mismatches(op, &o, &out, reference_out);
    if (bad)
        printf("op %d %s n=%lld: %d elements differ\n", (int)op, kb_dtype_name(dtype), (long long)n,
               bad);
    kb_array_free(&out);
    kb_array_free(&want);
    free_operands(&o);
    return bad;
}

/* 2, or KB_TEST_THREADS: the cross-built tests run one thread, since OpenMP teams hang under
 * qemu-user (tests/CMakeLists.txt); thread-count independence is tested natively. */
static int most_threads(void) {
    const char *v = getenv("KB_TEST_THREADS");
    return v && atoi(v) > 0 ? atoi(v) : 2;
}

static void results_match_at_every_level(void **state) {
    (void)state;
    static const kb_ew_op ops[] = {KB_EW_ADD,  KB_EW_MUL, KB_EW_NEG,  KB_EW_ABS,
                                   KB_EW_SQRT, KB_EW_EXP, KB_EW_WHERE};
    int bad = 0, levels = 0;
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        if (!kb_simd_available((kb_simd_level)l))
            continue;
        assert_int_equal(kb_simd_set(l), KB_OK);
        levels++;
        for (int threads = 1; threads <= most_threads(); threads++) {
            assert_int_equal(kb_threads_set(threads), KB_OK);
            for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
                for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
                    bad += check_op(ops[k], KB_F32, lengths[i]);
                    bad += check_op(ops[k], KB_F64, lengths[i]);
                }
        }
    }
    assert_true(levels >= 1);
    assert_int_equal(bad, 0);
}

static void bad_outputs_are_refused(void **state) {
    (void)state;
    int64_t n = 10, m = 11;
    operands o;
    make_operands(&o, KB_EW_ADD, KB_F64, n, 1);
    kb_array out, readonly;
    unsigned found;
    assert_int_equal(kb_array_new(&out, KB_F64, 1, &m, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_ew_apply_into(KB_EW_ADD, 2, o.in, KB_F64, &out, &found), KB_EINVAL);
    assert_string_equal(kb_last_error(),
                        "output of shape (11,) for operands broadcast to shape (10,)");
    assert_int_equal(
        kb_array_view(&readonly, KB_F64, 1, &n, out.strides, out.data, KB_ARRAY_READONLY), KB_OK);
    assert_int_equal(kb_ew_apply_into(KB_EW_ADD, 2, o.in, KB_F64, &readonly, &found), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "read-only"));
    kb_array strided;
    int64_t step = 2 * out.strides[0], half = 5;
    assert_int_equal(kb_array_view(&strided, KB_F64, 1, &half, &step, out.data, 0), KB_OK);
    assert_int_equal(kb_ew_apply_into(KB_EW_NEG, 1, o.in, KB_F64, &strided, &found), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "C-contiguous"));
    kb_array_free(&out);
    free_operands(&o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(results_match_at_every_level),
        cmocka_unit_test(bad_outputs_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
