/* kb_reduce against an independent reference: a slow loop over every output and its reduced
 * elements in logical order, accumulating in long double, written from NumPy's definitions.
 * Random shapes, axes, keepdims, dtypes and views (slices, negative and zero strides,
 * Fortran order), at every available SIMD level (or the one KB_TEST_LEVEL names) and at 1 and 2
 * threads, which must agree bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/cache_size.h"
#include "kbench/array.h"
#include "kbench/half.h"
#include "kbench/reduce.h"
#include "kbench/simd.h"
#include "kbench/threads.h"
#include "kernels/reduce_kernels.h"
#include "test_cache_sizes.h"
#include "test_util.h"
#include "test_levels.h"

/* Cross-built aarch64 tests run under qemu, where long double is software quad precision and
 * the reference is some fifty times slower: fewer random cases there. */
#if defined(__aarch64__)
#define CASE_DIVISOR 10
#else
#define CASE_DIVISOR 1
#endif

/* The thread counts compared: 1 and KB_TEST_THREADS (default 2). The cross-built tests set
 * it to 1, because OpenMP teams of two or more hang under qemu-user here. */
static int max_threads(void) {
    const char *v = getenv("KB_TEST_THREADS");
    int n = v ? atoi(v) : 2;
    return n >= 1 ? n : 1;
}

static test_rng rng = {0x243f6a8885a308d3u};

static long double value_at(kb_dtype dtype, const char *p) {
    switch (dtype) {
        case KB_BOOL:
            return *(const uint8_t *)p != 0;
        case KB_INT8:
            return *(const int8_t *)p;
        case KB_INT16:
            return *(const int16_t *)p;
        case KB_INT32:
            return *(const int32_t *)p;
        case KB_INT64:
            return *(const int64_t *)p;
        case KB_UINT8:
            return *(const uint8_t *)p;
        case KB_UINT16:
            return *(const uint16_t *)p;
        case KB_UINT32:
            return *(const uint32_t *)p;
        case KB_UINT64:
            return *(const uint64_t *)p;
        case KB_F16:
            return kb_f16_to_f32(*(const uint16_t *)p);
        case KB_BF16:
            return kb_bf16_to_f32(*(const uint16_t *)p);
        case KB_F32:
            return *(const float *)p;
        case KB_F64:
            return *(const double *)p;
        default:
            return 0;
    }
}

static void fill_random(kb_array *a, int special) {
    char *p = a->data;
    size_t size = kb_dtype_size(a->dtype);
    for (int64_t i = 0; i < kb_array_size(a); i++, p += size) {
        double v = test_rng_unit(&rng) * 200 - 100;
        if (special && test_rng_next(&rng) % 50 == 0)
            v = test_rng_next(&rng) % 3 == 0 ? NAN : test_rng_next(&rng) % 2 ? INFINITY : -INFINITY;
        if (test_rng_next(&rng) % 8 == 0)
            v = 7; /* repeated values make ties for argmin/argmax */
        switch (a->dtype) {
            case KB_BOOL:
                *(uint8_t *)p = test_rng_next(&rng) % 2;
                break;
            case KB_F16: {
                uint16_t h = kb_f32_to_f16((float)v);
                memcpy(p, &h, 2);
                break;
            }
            case KB_BF16: {
                uint16_t h = kb_f32_to_bf16((float)v);
                memcpy(p, &h, 2);
                break;
            }
            case KB_F32: {
                float f = (float)v;
                memcpy(p, &f, 4);
                break;
            }
            case KB_F64:
                memcpy(p, &v, 8);
                break;
            default: {
                uint64_t bits = test_rng_next(&rng);
                memcpy(p, &bits, size);
                break;
            }
        }
    }
}

typedef struct reference {
    long double value; /* float results and indices */
    uint64_t bits;     /* integer sums and products, min/max element bytes */
    bool nan;
} reference;

/* The reference result for one output, given its reduced elements in logical order. */
static reference reference_of(const kb_reduce_args *args, kb_dtype dtype, const char **el,
                              int64_t n) {
    reference r = {0};
    bool is_float = kb_dtype_is_float(dtype);
    switch (args->op) {
        case KB_REDUCE_SUM:
        case KB_REDUCE_PROD:
            if (!is_float) {
                uint64_t acc = args->op == KB_REDUCE_PROD;
                for (int64_t i = 0; i < n; i++) {
                    uint64_t v = (uint64_t)(int64_t)value_at(dtype, el[i]);
                    if (kb_dtype_is_integer(dtype) && !kb_dtype_is_signed(dtype))
                        v = (uint64_t)value_at(dtype, el[i]);
                    acc = args->op == KB_REDUCE_PROD ? acc * v : acc + v;
                }
                r.bits = acc;
                return r;
            }
            r.value = args->op == KB_REDUCE_PROD;
            for (int64_t i = 0; i < n; i++)
                r.value = args->op == KB_REDUCE_PROD ? r.value * value_at(dtype, el[i])
                                                     : r.value + value_at(dtype, el[i]);
            return r;
        case KB_REDUCE_MEAN:
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD: {
            long double sum = 0;
            for (int64_t i = 0; i < n; i++)
                sum += value_at(dtype, el[i]);
            long double mean = sum / n;
            if (args->op == KB_REDUCE_MEAN) {
                r.value = mean;
                return r;
            }
            long double dev = 0;
            for (int64_t i = 0; i < n; i++)
                dev += (value_at(dtype, el[i]) - mean) * (value_at(dtype, el[i]) - mean);
            long double dof = (long double)n - args->ddof;
            r.value = dev / (dof > 0 ? dof : 0);
            if (args->op == KB_REDUCE_STD)
                r.value = sqrtl(r.value);
            return r;
        }
        default: {
            bool want_min = args->op == KB_REDUCE_MIN || args->op == KB_REDUCE_ARGMIN;
            int64_t best = 0;
            for (int64_t i = 0; i < n; i++) {
                long double v = value_at(dtype, el[i]), b = value_at(dtype, el[best]);
                if (isnan(b))
                    break;
                if (isnan(v) || (want_min ? v < b : v > b))
                    best = i;
            }
            if (args->op == KB_REDUCE_ARGMIN || args->op == KB_REDUCE_ARGMAX) {
                r.value = (long double)best;
            } else {
                memcpy(&r.bits, el[best], kb_dtype_size(dtype));
                r.nan = isnan(value_at(dtype, el[best]));
            }
            return r;
        }
    }
}

static double eps_of(kb_dtype dtype) {
    switch (dtype) {
        case KB_F16:
            return 0x1p-10;
        case KB_BF16:
            return 0x1p-7;
        case KB_F32:
            return 0x1p-23;
        default:
            return 0x1p-52;
    }
}

/* Whether args reduce an axis of in (longer than 1) whose elements are adjacent in memory. */
static bool reduces_a_contiguous_axis(const kb_reduce_args *args, const kb_array *in) {
    int64_t item = (int64_t)kb_dtype_size(in->dtype);
    for (int i = 0; i < in->ndim; i++) {
        bool reduced = args->naxes == -1;
        for (int k = 0; k < args->naxes; k++)
            reduced |= (args->axes[k] + in->ndim) % in->ndim == i;
        if (reduced && in->shape[i] > 1 && (in->strides[i] == item || in->strides[i] == -item))
            return true;
    }
    return false;
}

/* What one output must be: the reference, and the scale of its terms that the tolerance allows
 * for (computed once per output, however many levels are checked against it). */
typedef struct expectation {
    reference r;
    long double scale;
} expectation;

static expectation expectation_of(const kb_reduce_args *args, const kb_array *in, const char **el,
                                  int64_t n) {
    expectation x = {reference_of(args, in->dtype, el, n), 0};
    bool is_float = kb_dtype_is_float(in->dtype);
    if (args->op == KB_REDUCE_MIN || args->op == KB_REDUCE_MAX || args->op == KB_REDUCE_ARGMIN ||
        args->op == KB_REDUCE_ARGMAX ||
        (!is_float && (args->op == KB_REDUCE_SUM || args->op == KB_REDUCE_PROD)))
        return x; /* exact results: no tolerance */
    for (int64_t i = 0; i < n; i++) {
        long double v = fabsl(value_at(in->dtype, el[i]));
        if (args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD)
            v *= v;
        x.scale += v;
    }
    if (args->op == KB_REDUCE_MEAN)
        x.scale /= n;
    if (args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD)
        x.scale /= n > args->ddof ? n - args->ddof : 1;
    if (args->op == KB_REDUCE_STD)
        x.scale = sqrtl(x.scale);
    if (args->op == KB_REDUCE_PROD)
        x.scale = fabsl(x.r.value);
    return x;
}

static void check_output(const kb_reduce_args *args, const kb_array *in, const kb_array *out,
                         const char *got, const expectation *x, const char *where) {
    reference r = x->r;
    long double scale = x->scale;
    kb_dtype od = out->dtype;
    bool integer_result =
        !kb_dtype_is_float(od) && args->op != KB_REDUCE_ARGMIN && args->op != KB_REDUCE_ARGMAX;
    if (args->op == KB_REDUCE_MIN || args->op == KB_REDUCE_MAX || integer_result) {
        uint64_t g = 0;
        memcpy(&g, got, kb_dtype_size(od));
        if (r.nan && isnan(value_at(od, got)))
            return;
        if (g != r.bits)
            fail_msg("%s: got bits %llx, expected %llx", where, (unsigned long long)g,
                     (unsigned long long)r.bits);
        return;
    }
    long double g = value_at(od, got);
    if (args->op == KB_REDUCE_ARGMIN || args->op == KB_REDUCE_ARGMAX) {
        if (g != r.value)
            fail_msg("%s: got index %lld, expected %lld", where, (long long)g, (long long)r.value);
        return;
    }
    if (isnan(r.value) || isnan(g)) {
        if (!(isnan(r.value) && isnan(g)))
            fail_msg("%s: got %Lg, expected %Lg", where, g, r.value);
        return;
    }
    /* The exact result rounded to the output type, which may overflow to infinity. */
    long double rounded = od == KB_F64   ? (long double)(double)r.value
                          : od == KB_F32 ? (long double)(float)r.value
                          : od == KB_F16
                              ? (long double)kb_f16_to_f32(kb_f32_to_f16((float)r.value))
                              : (long double)kb_bf16_to_f32(kb_f32_to_bf16((float)r.value));
    if (isinf(rounded) || isinf(g)) {
        if (g != rounded)
            fail_msg("%s: got %Lg, expected %Lg", where, g, rounded);
        return;
    }
    if (isinf(r.value)) {
        if (g != r.value)
            fail_msg("%s: got %Lg, expected %Lg", where, g, r.value);
        return;
    }
    /* The tolerance covers rounding of the terms' magnitude (scale). Accumulation in double is far
     * below the output's own rounding (one half ulp), so allow one ulp of the output type plus
     * 2^-40 of the scale. */
    long double tol = eps_of(od) * fabsl(r.value) + 0x1p-40L * scale + 1e-300L;
    if (kb_dtype_is_float(od) && od != KB_F64)
        tol += eps_of(od) * 1e-30L; /* subnormal results */
    /* float32 sums keep partials of at most 16 elements in float32 (docs/reductions.md). */
    if (in->dtype == KB_F32 && (args->op == KB_REDUCE_SUM || args->op == KB_REDUCE_MEAN))
        tol += 16 * 0x1p-24L * scale;
    /* float32 var and std along a kept contiguous axis (no reduced axis contiguous) keep
     * deviations, squares and their sums over a few rows in float32 lanes: within 80 float32
     * roundings of the variance, half that of the standard deviation (docs/reductions.md) */
    if (in->dtype == KB_F32 && (args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD) &&
        !reduces_a_contiguous_axis(args, in))
        tol += (args->op == KB_REDUCE_VAR ? 80 : 40) * 0x1p-24L * fabsl(r.value);
    if (fabsl(g - r.value) > tol)
        fail_msg("%s: got %.17Lg, expected %.17Lg (tolerance %Lg)", where, g, r.value, tol);
}

/* The expectations of every output of one reduction of one input, kept by a test that checks
 * several levels' results against them (under emulation the long double reference is software
 * quad precision and takes most of the test's time): empty until check_all fills it. */
typedef struct expectations {
    expectation *of; /* per output, in the order check_all visits them */
    int64_t count;   /* outputs */
} expectations;

static void expectations_free(expectations *memo) {
    free(memo->of);
    memo->of = NULL;
}

/* Checks every output of out = reduce(in) against the reference: memo's expectations, computed
 * into it first when it is empty (memo NULL: computed and dropped). */
static void check_all(const kb_reduce_args *args, const kb_array *in, const kb_array *out,
                      const char *where, expectations *memo) {
    bool reduced[KB_MAX_DIMS] = {0};
    for (int i = 0; i < in->ndim; i++)
        reduced[i] = args->naxes == -1;
    for (int k = 0; k < args->naxes; k++)
        reduced[(args->axes[k] + in->ndim) % in->ndim] = true;
    int64_t count = 1;
    for (int i = 0; i < in->ndim; i++)
        if (reduced[i])
            count *= in->shape[i];
    const char **el = malloc((size_t)(count ? count : 1) * sizeof *el);
    int64_t oindex[KB_MAX_DIMS] = {0}; /* over the input's kept dimensions */
    int64_t nout = kb_array_size(in) / (count ? count : 1);
    if (count == 0) {
        nout = 1;
        for (int i = 0; i < in->ndim; i++)
            if (!reduced[i])
                nout *= in->shape[i];
    }
    bool known = memo && memo->of;
    if (known)
        assert_int_equal(memo->count, nout);
    if (memo && !known) {
        memo->of = malloc((size_t)nout * sizeof *memo->of);
        assert_non_null(memo->of);
        memo->count = nout;
    }
    for (int64_t o = 0; o < nout; o++) {
        /* Gather this output's elements in logical C order. */
        int64_t idx[KB_MAX_DIMS];
        memcpy(idx, oindex, sizeof idx);
        for (int64_t r = 0, rr; r < count; r++) {
            rr = r;
            for (int i = in->ndim - 1; i >= 0; i--) {
                if (!reduced[i])
                    continue;
                idx[i] = rr % in->shape[i];
                rr /= in->shape[i];
            }
            el[r] = kb_array_at(in, idx);
        }
        int64_t out_idx[KB_MAX_DIMS];
        int od = 0;
        for (int i = 0; i < in->ndim; i++) {
            if (!reduced[i])
                out_idx[od++] = oindex[i];
            else if (args->keepdims)
                out_idx[od++] = 0;
        }
        expectation x = known ? memo->of[o] : expectation_of(args, in, el, count);
        if (memo && !known)
            memo->of[o] = x;
        check_output(args, in, out, kb_array_at(out, out_idx), &x, where);
        for (int i = in->ndim - 1; i >= 0; i--) {
            if (reduced[i])
                continue;
            if (++oindex[i] < in->shape[i])
                break;
            oindex[i] = 0;
        }
    }
    free(el);
}

static const kb_dtype all_dtypes[] = {KB_BOOL,  KB_INT8,   KB_INT16,  KB_INT32,  KB_INT64,
                                      KB_UINT8, KB_UINT16, KB_UINT32, KB_UINT64, KB_F16,
                                      KB_BF16,  KB_F32,    KB_F64};

/* A random view into a fresh buffer: a random shape, then per dimension a slice step that
 * may be negative, a broadcast (zero stride), or plain; sometimes Fortran order. */
static void random_view(kb_array *base, kb_array *view, kb_dtype dtype, int max_extent,
                        int64_t max_elements) {
    int ndim = 1 + (int)(test_rng_next(&rng) % 4);
    int64_t shape[KB_MAX_DIMS], full[KB_MAX_DIMS], elements = 1;
    for (int i = 0; i < ndim; i++) {
        shape[i] = 1 + (int64_t)(test_rng_next(&rng) % (uint64_t)max_extent);
        if (test_rng_next(&rng) % 20 == 0 || elements * shape[i] > max_elements)
            shape[i] = 1;
        elements *= shape[i];
        full[i] = shape[i] * 2;
    }
    kb_order order = test_rng_next(&rng) % 3 == 0 ? KB_ORDER_F : KB_ORDER_C;
    assert_int_equal(kb_array_new(base, dtype, ndim, full, order), KB_OK);
    fill_random(base, kb_dtype_is_float(dtype));
    int64_t strides[KB_MAX_DIMS];
    char *data = base->data;
    int kind = (int)(test_rng_next(&rng) % 3); /* 0 contiguous, 1 sliced/negative, 2 mixed */
    for (int i = 0; i < ndim; i++) {
        strides[i] = base->strides[i];
        if (kind == 0)
            continue;
        switch (test_rng_next(&rng) % 4) {
            case 0:
                strides[i] = base->strides[i] * 2; /* x[::2] */
                break;
            case 1:
                data += (shape[i] - 1) * base->strides[i]; /* x[n-1::-1] */
                strides[i] = -base->strides[i];
                break;
            case 2:
                if (kind == 2)
                    strides[i] = 0; /* broadcast */
                break;
            default:
                break;
        }
    }
    if (kind == 0) {
        for (int i = 0; i < ndim; i++)
            shape[i] = full[i];
    }
    assert_int_equal(kb_array_view(view, dtype, ndim, shape, strides, data, 0), KB_OK);
}

static kb_reduce_args random_args(int ndim) {
    kb_reduce_args args = {.op = (kb_reduce_op)(test_rng_next(&rng) % KB_REDUCE_OP_COUNT)};
    bool arg = args.op == KB_REDUCE_ARGMIN || args.op == KB_REDUCE_ARGMAX;
    int pick = (int)(test_rng_next(&rng) % 4);
    if (pick == 0) {
        args.naxes = -1;
    } else if (pick == 1 || arg) {
        args.naxes = 1;
        args.axes[0] =
            (int)(test_rng_next(&rng) % (uint64_t)ndim) - (test_rng_next(&rng) % 2 ? ndim : 0);
    } else {
        args.naxes = 0;
        for (int i = 0; i < ndim; i++)
            if (test_rng_next(&rng) % 2)
                args.axes[args.naxes++] = i;
    }
    args.keepdims = test_rng_next(&rng) % 3 == 0;
    if (args.op == KB_REDUCE_VAR || args.op == KB_REDUCE_STD)
        args.ddof = (int)(test_rng_next(&rng) % 2);
    return args;
}

static void run_cases(int trials, int max_extent, int64_t max_elements, bool floats_only) {
    char where[256];
    for (int t = 0; t < trials; t++) {
        kb_dtype dtype = floats_only ? (test_rng_next(&rng) % 2 ? KB_F32 : KB_F64)
                                     : all_dtypes[test_rng_next(&rng) % 13];
        kb_array base, view;
        random_view(&base, &view, dtype, max_extent, max_elements);
        kb_reduce_args args = random_args(view.ndim);
        kb_dtype odt;
        int ond;
        int64_t oshape[KB_MAX_DIMS];
        if (kb_reduce_result(&view, &args, &odt, &ond, oshape) != KB_OK) {
            kb_array_free(&base);
            continue;
        }
        kb_array first = {0};
        expectations memo = {0};
        for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
            if (!test_level_runs((kb_simd_level)level))
                continue;
            assert_int_equal(kb_simd_set(level), KB_OK);
            int counts[2] = {1, max_threads()};
            for (int c = 0; c < (counts[1] > 1 ? 2 : 1); c++) {
                int threads = counts[c];
                assert_int_equal(kb_threads_set(threads), KB_OK);
                kb_array out;
                kb_status st = kb_reduce(&view, &args, &out);
                if (st != KB_OK)
                    fail_msg("trial %d: %s", t, kb_last_error());
                snprintf(where, sizeof where, "trial %d %s %s %dd naxes=%d level=%s threads=%d", t,
                         kb_reduce_op_name(args.op), kb_dtype_name(dtype), view.ndim, args.naxes,
                         kb_simd_name((kb_simd_level)level), threads);
                if (threads == 1) {
                    check_all(&args, &view, &out, where, &memo);
                    kb_array_free(&first);
                    first = out;
                } else {
                    /* Same level, different thread count: identical bytes. */
                    size_t bytes = (size_t)kb_array_size(&out) * kb_dtype_size(out.dtype);
                    if (memcmp(first.data, out.data, bytes) != 0)
                        fail_msg("%s: differs from 1 thread", where);
                    kb_array_free(&out);
                }
            }
        }
        expectations_free(&memo);
        kb_array_free(&first);
        kb_array_free(&base);
    }
    kb_simd_set(KB_SIMD_AUTO_REQUEST);
    kb_threads_set(max_threads());
}

static void small_random_views_match_reference(void **state) {
    run_cases(500 / CASE_DIVISOR, 7, 1000, false);
}

/* Larger floats: long runs that cross blocks and chunks, wide and narrow columns. */
static void large_float_views_match_reference(void **state) {
    run_cases(25 / CASE_DIVISOR + 1, 300, 100000, true);
}

/* a reduced at one thread against the reference, and at the most threads to the same bits. */
static void check_threads(const kb_array *a, const kb_reduce_args *args, const char *where,
                          expectations *memo) {
    kb_array out1, out2;
    kb_threads_set(1);
    assert_int_equal(kb_reduce(a, args, &out1), KB_OK);
    kb_threads_set(max_threads());
    assert_int_equal(kb_reduce(a, args, &out2), KB_OK);
    check_all(args, a, &out1, where, memo);
    size_t bytes = (size_t)kb_array_size(&out1) * kb_dtype_size(out1.dtype);
    if (memcmp(out1.data, out2.data, bytes) != 0)
        fail_msg("%s: 2 threads differ from 1", where);
    kb_array_free(&out1);
    kb_array_free(&out2);
}

static void shapes_that_cross_blocks_and_chunks(void **state) {
    /* (rows, cols) pairs chosen to hit the inner, cols and narrow paths with several
     * blocks and chunks each, including the splitting across threads. */
    static const int64_t shapes[][2] = {{70000, 3},  {3, 70000},   {2500, 40},
                                        {1, 140000}, {1100, 1100}, {12000, 17}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int d = 0; d < 2; d++) {
            if (CASE_DIVISOR > 1 && (s + (size_t)d) % 4 != 0)
                continue;
            kb_array a;
            assert_int_equal(kb_array_new(&a, d ? KB_F64 : KB_F32, 2, shapes[s], KB_ORDER_C),
                             KB_OK);
            fill_random(&a, s % 3 == 0);
            for (int op = 0; op < KB_REDUCE_OP_COUNT; op++) {
                for (int axis = -1; axis < 2; axis++) {
                    kb_reduce_args args = axis < 0 ? kb_reduce_args_all((kb_reduce_op)op)
                                                   : kb_reduce_args_axis((kb_reduce_op)op, axis);
                    expectations memo = {0};
                    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
                        if (!test_level_runs((kb_simd_level)level))
                            continue;
                        kb_simd_set(level);
                        char where[160];
                        snprintf(where, sizeof where, "%lldx%lld %s %s axis=%d level=%s",
                                 (long long)shapes[s][0], (long long)shapes[s][1],
                                 kb_dtype_name(a.dtype), kb_reduce_op_name((kb_reduce_op)op), axis,
                                 kb_simd_name((kb_simd_level)level));
                        check_threads(&a, &args, where, &memo);
                    }
                    expectations_free(&memo);
                }
            }
            kb_array_free(&a);
        }
    }
    kb_simd_set(KB_SIMD_AUTO_REQUEST);
    kb_threads_set(max_threads());
}

/* An input of at least half the last-level cache takes the kernels that prefetch from memory
 * (kb_cache_far): column sums of eight rows at a time, float64 var and std's first pass through
 * them, float32 var and std's one pass of eight rows, the extremes' prefetching rows; sums and
 * extremes of long rows and of whole blocks several at once, and argmin of long rows, along
 * axis 1 and over all (axis=-1 in a failure's message); each way of reading memory. float64 and
 * float32, along axis 0 (and 1 and all) at every level the CPU runs (under emulation the best level
 * only), against the long double reference, and 2 threads give 1 thread's bits. */
static void check_from_memory(const kb_array *a, kb_reduce_op op, int axis, int level, int way) {
    kb_reduce_args args = axis < 0 ? kb_reduce_args_all(op) : kb_reduce_args_axis(op, axis);
    char where[160];
    int at = 0;
    for (int i = 0; i < a->ndim; i++)
        at += snprintf(where + at, sizeof where - (size_t)at, "%s%lld", i ? "x" : "",
                       (long long)a->shape[i]);
    snprintf(where + at, sizeof where - (size_t)at, " %s %s axis=%d level=%s way=%d",
             kb_dtype_name(a->dtype), kb_reduce_op_name(op), axis,
             kb_simd_name((kb_simd_level)level), way);
    check_threads(a, &args, where, NULL);
    if (axis < 0 && max_threads() > 1) {
        /* three threads take other spans of chunks than one and two (reduce_inner) */
        kb_array out1, out3;
        kb_threads_set(1);
        assert_int_equal(kb_reduce(a, &args, &out1), KB_OK);
        kb_threads_set(3);
        assert_int_equal(kb_reduce(a, &args, &out3), KB_OK);
        kb_threads_set(max_threads());
        size_t bytes = (size_t)kb_array_size(&out1) * kb_dtype_size(out1.dtype);
        if (memcmp(out1.data, out3.data, bytes) != 0)
            fail_msg("%s: 3 threads differ from 1", where);
        kb_array_free(&out1);
        kb_array_free(&out3);
    }
}

static void inputs_from_memory_match_reference(void **state) {
    (void)state;
    static const kb_reduce_op ops[] = {KB_REDUCE_SUM,   KB_REDUCE_MEAN, KB_REDUCE_VAR,
                                       KB_REDUCE_STD,   KB_REDUCE_MAX,  KB_REDUCE_MIN,
                                       KB_REDUCE_ARGMIN};
    static const kb_dtype dtypes[] = {KB_F64, KB_F32};
    int64_t cols = 1100;
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        int64_t item = (int64_t)kb_dtype_size(dtypes[d]);
        int64_t shape[2] = {kb_cache_llc_bytes() / 2 / (cols * item) + 37, cols};
        kb_array a;
        assert_int_equal(kb_array_new(&a, dtypes[d], 2, shape, KB_ORDER_C), KB_OK);
        fill_random(&a, 0);
        /* a NaN in one column, which the far kernels' detectors send to the reference */
        int64_t nan_at = (shape[0] / 2 + 3) * cols + 13;
        if (dtypes[d] == KB_F64)
            ((double *)a.data)[nan_at] = NAN;
        else
            ((float *)a.data)[nan_at] = NAN;
        for (int level = KB_SIMD_LEVEL_COUNT - 1; level >= 0; level--) {
            if (!test_level_runs((kb_simd_level)level))
                continue;
            kb_simd_set(level);
            /* Both ways of reading memory (kb_reduce_memory_set): rows one at a time and the
             * rows ahead of a column kernel prefetched, or several rows at once and no
             * prefetch; under emulation the second, along axis 0 only (the kernel tests hold
             * the rows read several at once to one at a time there). */
            static const kb_reduce_op along[] = {KB_REDUCE_SUM, KB_REDUCE_MAX, KB_REDUCE_MIN,
                                                 KB_REDUCE_VAR, KB_REDUCE_ARGMIN};
            size_t nalong = CASE_DIVISOR > 1 ? 0 : sizeof along / sizeof *along;
            for (int way = CASE_DIVISOR > 1; way < 2; way++) {
                kb_reduce_memory_set(way, !way);
                for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
                    check_from_memory(&a, ops[o], 0, level, way);
                for (size_t o = 0; o < nalong; o++) {
                    check_from_memory(&a, along[o], 1, level, way);
                    check_from_memory(&a, along[o], -1, level, way);
                }
            }
            if (CASE_DIVISOR > 1)
                break;
        }
        kb_array_free(&a);
    }
    kb_simd_set(KB_SIMD_AUTO_REQUEST);
    kb_threads_set(max_threads());
}

/* argmin and argmax over all of an input from memory, whose whole blocks are read several at
 * once: an extreme placed at the first or last element of a block, in the first 20 blocks and
 * in 20 blocks towards the end (every place of a chunk's 16 blocks and of a group of blocks read
 * at once), with an equal value later on, is found at its place at every level, each way of
 * reading memory and thread count.
 * The random values (within -100 and 100) elsewhere leave the found place to the kernels alone. */
static void set_value(kb_array *a, int64_t i, double v) {
    if (a->dtype == KB_F64)
        ((double *)a->data)[i] = v;
    else
        ((float *)a->data)[i] = (float)v;
}

static void arg_over_all_from_memory_finds_the_place(void **state) {
    (void)state;
    static const kb_dtype dtypes[] = {KB_F64, KB_F32};
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        int64_t item = (int64_t)kb_dtype_size(dtypes[d]);
        /* from memory, and 160 blocks at least, for the places below */
        int64_t elements = kb_cache_llc_bytes() / 2 / item;
        if (elements < 160 * KB_REDUCE_BLOCK)
            elements = 160 * KB_REDUCE_BLOCK;
        int64_t shape[1] = {elements + 12345};
        int64_t blocks = shape[0] / KB_REDUCE_BLOCK;
        kb_array a;
        assert_int_equal(kb_array_new(&a, dtypes[d], 1, shape, KB_ORDER_C), KB_OK);
        fill_random(&a, 0);
        for (int level = KB_SIMD_LEVEL_COUNT - 1; level >= 0; level--) {
            if (!test_level_runs((kb_simd_level)level))
                continue;
            kb_simd_set(level);
            for (int way = CASE_DIVISOR > 1; way < 2; way++) {
                kb_reduce_memory_set(way, !way);
                for (int64_t b = 0; b < 40; b++) {
                    int64_t block = b < 20 ? b : blocks - 1 - (b - 20) * 7;
                    int64_t at = block * KB_REDUCE_BLOCK + (b % 2 ? KB_REDUCE_BLOCK - 1 : 0);
                    int64_t tie = at + 3 * KB_REDUCE_BLOCK + 1;
                    for (int max = 0; max < 2; max++) {
                        double extreme = max ? 1000.0 : -1000.0;
                        double old = (double)value_at(a.dtype, (char *)a.data + at * item);
                        double old_tie =
                            tie < shape[0] ? (double)value_at(a.dtype, (char *)a.data + tie * item)
                                           : 0;
                        set_value(&a, at, extreme);
                        if (tie < shape[0])
                            set_value(&a, tie, extreme);
                        kb_reduce_args args =
                            kb_reduce_args_all(max ? KB_REDUCE_ARGMAX : KB_REDUCE_ARGMIN);
                        for (int threads = 1; threads <= max_threads(); threads++) {
                            kb_threads_set(threads);
                            kb_array out;
                            assert_int_equal(kb_reduce(&a, &args, &out), KB_OK);
                            int64_t found = *(const int64_t *)out.data;
                            kb_array_free(&out);
                            if (found != at)
                                fail_msg("%s %s of %lld from memory, level %s, way %d, %d "
                                         "threads: %lld, not %lld",
                                         kb_dtype_name(a.dtype), max ? "argmax" : "argmin",
                                         (long long)shape[0], kb_simd_name((kb_simd_level)level),
                                         way, threads, (long long)found, (long long)at);
                        }
                        set_value(&a, at, old);
                        if (tie < shape[0])
                            set_value(&a, tie, old_tie);
                    }
                }
            }
            if (CASE_DIVISOR > 1)
                break;
        }
        kb_array_free(&a);
    }
    kb_simd_set(KB_SIMD_AUTO_REQUEST);
    kb_threads_set(max_threads());
}

/* Narrow rows from memory (rows 288 or 576 bytes apart, which memory sees as one stream however
 * many are read at once, and wide enough for vectors at every level): the column sums read
 * blocks of rows several at once (cols_ranges), or one block at a time, and give the
 * reference's values and 1 thread's bits at 2 threads, float64 and float32, sum and mean along
 * axis 0, and the sum of the same rows as two groups (a (2, N / 2, 72) view along axis 1,
 * so that a thread's share of the chunks spans both), each way, at every level (under
 * emulation the best, the several-at-once way). */
static void narrow_columns_from_memory_match_reference(void **state) {
    (void)state;
    static const kb_dtype dtypes[] = {KB_F64, KB_F32};
    int64_t cols = 72;
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        int64_t item = (int64_t)kb_dtype_size(dtypes[d]);
        int64_t rows = kb_cache_llc_bytes() / 2 / (cols * item) + 1998;
        int64_t shape[2] = {rows, cols}, grouped[3] = {2, rows / 2, cols};
        kb_array a, g;
        assert_int_equal(kb_array_new(&a, dtypes[d], 2, shape, KB_ORDER_C), KB_OK);
        fill_random(&a, 0);
        assert_int_equal(kb_array_view(&g, dtypes[d], 3, grouped, NULL, a.data, 0), KB_OK);
        for (int level = KB_SIMD_LEVEL_COUNT - 1; level >= 0; level--) {
            if (!test_level_runs((kb_simd_level)level))
                continue;
            kb_simd_set(level);
            for (int way = CASE_DIVISOR > 1; way < 2; way++) {
                kb_reduce_memory_set(way, !way);
                check_from_memory(&a, KB_REDUCE_SUM, 0, level, way);
                check_from_memory(&a, KB_REDUCE_MEAN, 0, level, way);
                check_from_memory(&g, KB_REDUCE_SUM, 1, level, way);
            }
            if (CASE_DIVISOR > 1)
                break;
        }
        kb_array_free(&a);
    }
    kb_simd_set(KB_SIMD_AUTO_REQUEST);
    kb_threads_set(max_threads());
}

/* Column sums and means store their results in a typed loop when the output is contiguous
 * and element by element when it is not: an output view with every other element gets the
 * bits the contiguous one gets, float32 and float64, sum and mean. */
static void column_sums_into_strided_outputs(void **state) {
    static const kb_dtype dtypes[] = {KB_F32, KB_F64};
    static const kb_reduce_op ops[] = {KB_REDUCE_SUM, KB_REDUCE_MEAN};
    for (size_t d = 0; d < 2; d++)
        for (size_t o = 0; o < 2; o++) {
            int64_t shape[2] = {300, 70}, out_shape[1] = {70};
            size_t item = kb_dtype_size(dtypes[d]);
            kb_array in, contiguous, spread, strided;
            assert_int_equal(kb_array_new(&in, dtypes[d], 2, shape, KB_ORDER_C), KB_OK);
            fill_random(&in, 0);
            kb_reduce_args args = kb_reduce_args_axis(ops[o], 0);
            assert_int_equal(kb_reduce(&in, &args, &contiguous), KB_OK);
            int64_t wide[1] = {140}, stride[1] = {2 * (int64_t)item};
            assert_int_equal(kb_array_new(&spread, dtypes[d], 1, wide, KB_ORDER_C), KB_OK);
            assert_int_equal(
                kb_array_view(&strided, dtypes[d], 1, out_shape, stride, spread.data, 0), KB_OK);
            assert_int_equal(kb_reduce_into(&in, &args, &strided), KB_OK);
            for (int64_t j = 0; j < 70; j++)
                if (memcmp((char *)spread.data + 2 * j * (int64_t)item,
                           (char *)contiguous.data + j * (int64_t)item, item) != 0)
                    fail_msg("%s %s column %lld differs with a strided output",
                             kb_reduce_op_name(ops[o]), kb_dtype_name(dtypes[d]), (long long)j);
            kb_array_free(&in);
            kb_array_free(&contiguous);
            kb_array_free(&spread);
        }
}

static void numpy_cases_that_must_hold_exactly(void **state) {
    /* ones((20_000_000, 2), float32).mean(axis=0) is exactly 1 (NumPy: 0.8388608). */
    int64_t shape[2] = {20000000, 2};
    kb_array a, out;
    assert_int_equal(kb_array_new(&a, KB_F32, 2, shape, KB_ORDER_C), KB_OK);
    float *x = a.data;
    for (int64_t i = 0; i < 40000000; i++)
        x[i] = 1.0f;
    kb_reduce_args args = kb_reduce_args_axis(KB_REDUCE_MEAN, 0);
    assert_int_equal(kb_reduce(&a, &args, &out), KB_OK);
    assert_true(((float *)out.data)[0] == 1.0f && ((float *)out.data)[1] == 1.0f);
    kb_array_free(&out);
    kb_array_free(&a);

    /* std of a constant column or row is exactly 0, on every axis and over all of it, float32
     * and float64 (0.1 is inexact in both: a mean formed as a plain sum over the count would
     * round, and so would its deviations), but for float64 columns fewer than 64 wide, whose
     * blocks take two passes around their rounded means (docs/reductions.md). */
    static const int64_t shapes[][2] = {{100003, 3}, {3, 100003}, {7, 300}, {5, 100}};
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            assert_int_equal(kb_array_new(&a, f64 ? KB_F64 : KB_F32, 2, shapes[s], KB_ORDER_C),
                             KB_OK);
            for (int64_t i = 0; i < shapes[s][0] * shapes[s][1]; i++)
                if (f64)
                    ((double *)a.data)[i] = 0.1;
                else
                    ((float *)a.data)[i] = 0.1f;
            for (int axis = -1; axis < 2; axis++) {
                if (f64 && axis == 0 && shapes[s][1] < 64)
                    continue;
                args = axis < 0 ? kb_reduce_args_all(KB_REDUCE_STD)
                                : kb_reduce_args_axis(KB_REDUCE_STD, axis);
                assert_int_equal(kb_reduce(&a, &args, &out), KB_OK);
                for (int64_t i = 0; i < kb_array_size(&out); i++)
                    if (f64 ? ((double *)out.data)[i] != 0.0 : ((float *)out.data)[i] != 0.0f)
                        fail_msg("std of a constant %s (%lld, %lld) along %d: not 0",
                                 f64 ? "float64" : "float32", (long long)shapes[s][0],
                                 (long long)shapes[s][1], axis);
                kb_array_free(&out);
            }
            kb_array_free(&a);
        }
}

/* a's var or std under args (float32 or float64, as a's type), at every SIMD level and thread count
 * (up to the tests' own), each of its n results within rel times exact[i]; what names the case
 * in a failure. */
static void results_hold_to(const kb_array *a, const kb_reduce_args *args, const long double *exact,
                            int64_t n, long double rel, const char *what) {
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
        if (!test_level_runs((kb_simd_level)level))
            continue;
        assert_int_equal(kb_simd_set(level), KB_OK);
        for (int threads = 1; threads <= max_threads(); threads++) {
            kb_array out;
            assert_int_equal(kb_threads_set(threads), KB_OK);
            assert_int_equal(kb_reduce(a, args, &out), KB_OK);
            for (int64_t i = 0; i < n; i++) {
                double got = out.dtype == KB_F32 ? ((const float *)out.data)[i]
                                                 : ((const double *)out.data)[i];
                if (fabsl(got - exact[i]) > rel * exact[i])
                    fail_msg("%s, %s, %d threads, result %lld: %.17g, exact %.17Lg", what,
                             kb_simd_name((kb_simd_level)level), threads, (long long)i, got,
                             exact[i]);
            }
            kb_array_free(&out);
        }
    }
    kb_simd_set(KB_SIMD_AUTO_REQUEST);
    kb_threads_set(max_threads());
}

/* var along axis 0 of columns of base to 5 base plus noise of about 1, some with outlier added
 * to their first row (which a fixed center taken from the first row would pay for in proportion
 * to n (center - mean)^2 / M2), some drifting down the rows (block means far apart), in dtype,
 * within rel of the exact variance at every SIMD level and thread count (up to the tests' own,
 * max_threads); several blocks each. */
static void offset_columns_hold(kb_dtype dtype, double base, double outlier, uint32_t seed,
                                long double rel, const char *what) {
    static const int64_t shapes[][2] = {{1100, 67}, {450, 300}, {9000, 64}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t rows = shapes[s][0], cols = shapes[s][1];
        kb_array a;
        assert_int_equal(kb_array_new(&a, dtype, 2, shapes[s], KB_ORDER_C), KB_OK);
        test_rng r = {seed + (uint32_t)s};
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                double v = base * (double)(1 + j % 5) + (2 * test_rng_unit(&r) - 1) * (1 + j % 3);
                if (j % 2 == 1 && i == 0)
                    v += outlier;
                if (j % 4 == 2)
                    v += 1e-3 * (double)i;
                set_value(&a, i * cols + j, v);
            }
        int64_t item = (int64_t)kb_dtype_size(dtype);
        long double *exact = malloc((size_t)cols * sizeof *exact);
        assert_non_null(exact);
        for (int64_t j = 0; j < cols; j++) {
            long double sum = 0, dev = 0;
            for (int64_t i = 0; i < rows; i++)
                sum += value_at(dtype, (const char *)a.data + (i * cols + j) * item);
            long double mean = sum / rows;
            for (int64_t i = 0; i < rows; i++) {
                long double e =
                    value_at(dtype, (const char *)a.data + (i * cols + j) * item) - mean;
                dev += e * e;
            }
            exact[j] = dev / rows;
        }
        kb_reduce_args args = kb_reduce_args_axis(KB_REDUCE_VAR, 0);
        results_hold_to(&a, &args, exact, cols, rel, what);
        free(exact);
        kb_array_free(&a);
    }
}

/* float64 var along axis 0 of data far from zero (1e9, an outlier of 1e5) keeps the accuracy
 * of the exact two-pass formula: Chan's merge of blocks whose means are rounded near 1e9 loses
 * the difference of two means to that rounding; partial means kept as b + d, and the running
 * mean of moments_chunk, keep it (docs/reductions.md). */
static void offset_float64_variance_stays_accurate(void **state) {
    (void)state;
    offset_columns_hold(KB_F64, 1e9, 1e5, 0x51ed2701u, 0x1p-40L, "float64 columns");
    /* The same along a contiguous axis: four blocks of at most 4096 elements merged pairwise. */
    int64_t n = 13001;
    kb_array a;
    assert_int_equal(kb_array_new(&a, KB_F64, 1, &n, KB_ORDER_C), KB_OK);
    double *x = a.data;
    test_rng r = {0x7a11u};
    long double sum = 0, dev = 0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = 3e9 + (2 * test_rng_unit(&r) - 1) + (i == 0 ? 1e5 : 0);
        sum += x[i];
    }
    for (int64_t i = 0; i < n; i++)
        dev += (x[i] - sum / n) * (x[i] - sum / n);
    long double exact = dev / n;
    kb_reduce_args all = kb_reduce_args_all(KB_REDUCE_VAR);
    results_hold_to(&a, &all, &exact, 1, 0x1p-40L, "13001 elements over all");
    kb_array_free(&a);
}

/* float32 var along axis 0 keeps its deviations and their squares in float32 lanes around
 * the running mean of the rows before each block (moments_chunk, reduce_moments.h): columns of
 * 1e3 to 5e3 with an outlier of 100 in the first row (a center taken from the first row would
 * cost the float32 roundings of d^2 in proportion to n (center - mean)^2 / M2, 3e4 times here)
 * keep within the documented 80 float32 roundings of the exact variance. */
static void float32_columns_centered_off_their_mean_stay_accurate(void **state) {
    (void)state;
    offset_columns_hold(KB_F32, 1e3, 100, 0x2f3a9u, 80 * 0x1p-24L, "float32 columns");
}

/* float32 std along axis 0 of columns whose deviations are so large that their squares
 * overflow float32 (about 1e20, a std of about 1e20, which float32 holds) or so small that they
 * underflow it (about 1e-21): the blocks that float32 lanes cannot hold are read again widened
 * (float_lanes_held, reduce_float.c), and the std keeps within the documented 40 float32
 * roundings of the exact value at every level and thread count. */
static void float32_columns_of_extreme_spread_stay_accurate(void **state) {
    (void)state;
    static const double scales[] = {1e20, 1e-21};
    int64_t shape[2] = {1100, 67};
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
        kb_array a;
        assert_int_equal(kb_array_new(&a, KB_F32, 2, shape, KB_ORDER_C), KB_OK);
        float *x = a.data;
        test_rng r = {0x5ca1eu + (uint32_t)s};
        for (int64_t i = 0; i < shape[0] * shape[1]; i++)
            x[i] = (float)(scales[s] * (2 * test_rng_unit(&r) - 1));
        long double exact[67];
        for (int64_t j = 0; j < shape[1]; j++) {
            long double sum = 0, dev = 0;
            for (int64_t i = 0; i < shape[0]; i++)
                sum += x[i * shape[1] + j];
            for (int64_t i = 0; i < shape[0]; i++)
                dev +=
                    (x[i * shape[1] + j] - sum / shape[0]) * (x[i * shape[1] + j] - sum / shape[0]);
            exact[j] = sqrtl(dev / shape[0]);
        }
        kb_reduce_args args = kb_reduce_args_axis(KB_REDUCE_STD, 0);
        results_hold_to(&a, &args, exact, shape[1], 40 * 0x1p-24L,
                        s == 0 ? "float32 columns of squares beyond float32"
                               : "float32 columns of squares below float32's normals");
        kb_array_free(&a);
    }
}

/* A float64 run is centered on the mean of each block's first 256 elements
 * (reduce_moments.h): blocks whose first elements sit far from the rest (at 1e6, the rest about
 * 0, the farthest a mean of 256 of 4096 values can be from theirs), or whose first element alone
 * does, keep the variance to 2^-40 of the exact value along the contiguous axis of (3, 4096)
 * and (3, 5000) and over all of them (whose blocks of 4096 then fall across the rows), at every
 * level and thread count. */
static void float64_runs_centered_off_their_mean_stay_accurate(void **state) {
    (void)state;
    static const int64_t shapes[][2] = {{3, 5000}, {3, 4096}};
    for (int far_first = 0; far_first < 2; far_first++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t rows = shapes[s][0], cols = shapes[s][1];
            kb_array a;
            assert_int_equal(kb_array_new(&a, KB_F64, 2, shapes[s], KB_ORDER_C), KB_OK);
            double *x = a.data;
            test_rng r = {0x3c1e5u + (uint32_t)s};
            for (int64_t i = 0; i < rows * cols; i++) {
                int64_t in_block = i % cols % 4096;
                bool high = far_first ? in_block == 0 : in_block < 256;
                x[i] = (high ? 1e6 : 0) + (2 * test_rng_unit(&r) - 1);
            }
            long double all_sum = 0, all_dev = 0, *exact = malloc((size_t)rows * sizeof *exact);
            assert_non_null(exact);
            for (int64_t i = 0; i < rows * cols; i++)
                all_sum += x[i];
            for (int64_t i = 0; i < rows * cols; i++)
                all_dev += (x[i] - all_sum / (rows * cols)) * (x[i] - all_sum / (rows * cols));
            for (int64_t i = 0; i < rows; i++) {
                long double sum = 0, dev = 0;
                for (int64_t j = 0; j < cols; j++)
                    sum += x[i * cols + j];
                for (int64_t j = 0; j < cols; j++)
                    dev += (x[i * cols + j] - sum / cols) * (x[i * cols + j] - sum / cols);
                exact[i] = dev / cols;
            }
            long double all_exact = all_dev / (rows * cols);
            kb_reduce_args along = kb_reduce_args_axis(KB_REDUCE_VAR, 1);
            kb_reduce_args all = kb_reduce_args_all(KB_REDUCE_VAR);
            results_hold_to(&a, &along, exact, rows, 0x1p-40L,
                            far_first ? "first of a block far, rows"
                                      : "first 256 of a block far, rows");
            results_hold_to(&a, &all, &all_exact, 1, 0x1p-40L,
                            far_first ? "first of a block far, over all"
                                      : "first 256 of a block far, over all");
            free(exact);
            kb_array_free(&a);
        }
}

/* kb_reduce_into's shortcut for small calls (a whole 1-d contiguous float32 or float64 array
 * summed or averaged into a 0-d output) gives the bits of the planned path, which a (1, n)
 * view of the same memory takes, at every SIMD level, and a value within rounding of the
 * long double reference; lengths cross the vector widths and the one-block limit (4096). */
static void small_calls_match_planned_path(void **state) {
    static const int64_t lengths[] = {1,  2,  3,  7,   8,    9,    15,   16,  17,
                                      31, 33, 64, 100, 1000, 4095, 4096, 4097};
    static const kb_dtype types[] = {KB_F32, KB_F64};
    static const kb_reduce_op ops[] = {KB_REDUCE_SUM, KB_REDUCE_MEAN};
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
        if (!test_level_runs((kb_simd_level)level))
            continue;
        assert_int_equal(kb_simd_set(level), KB_OK);
        for (size_t t = 0; t < 2; t++)
            for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
                int64_t n = lengths[l], row[2] = {1, n};
                size_t itemsize = kb_dtype_size(types[t]);
                kb_array flat, wide, a, b;
                assert_int_equal(kb_array_new(&flat, types[t], 1, &n, KB_ORDER_C), KB_OK);
                fill_random(&flat, 0);
                assert_int_equal(
                    kb_array_view(&wide, types[t], 2, row, NULL, flat.data, KB_ARRAY_READONLY),
                    KB_OK);
                assert_int_equal(kb_array_new(&a, types[t], 0, NULL, KB_ORDER_C), KB_OK);
                assert_int_equal(kb_array_new(&b, types[t], 0, NULL, KB_ORDER_C), KB_OK);
                for (size_t o = 0; o < 2; o++) {
                    kb_reduce_args args = kb_reduce_args_all(ops[o]);
                    assert_int_equal(kb_reduce_into(&flat, &args, &a), KB_OK);
                    assert_int_equal(kb_reduce_into(&wide, &args, &b), KB_OK);
                    assert_memory_equal(a.data, b.data, itemsize);
                    long double ref = 0;
                    for (int64_t i = 0; i < n; i++)
                        ref += value_at(types[t], (const char *)flat.data + i * (int64_t)itemsize);
                    if (ops[o] == KB_REDUCE_MEAN)
                        ref /= n;
                    double got = types[t] == KB_F32 ? *(float *)a.data : *(double *)a.data;
                    /* |x| <= 100, float32 partials of at most 16 elements: an error far
                     * below 32 units of the type's precision per element's 100, plus the
                     * final rounding */
                    double tol = eps_of(types[t]) *
                                 (fabs((double)ref) +
                                  3200.0 * (double)n / (ops[o] == KB_REDUCE_MEAN ? n : 1));
                    assert_true(fabs(got - (double)ref) <= tol + 1e-300);
                }
                kb_array_free(&a);
                kb_array_free(&b);
                kb_array_free(&flat);
            }
    }
    assert_int_equal(kb_simd_set(KB_SIMD_AUTO_REQUEST), KB_OK);

    /* Outputs the shortcut must not write: errors come from the planned path's checks. */
    int64_t n = 8;
    kb_array x, ro, wrong;
    assert_int_equal(kb_array_new(&x, KB_F32, 1, &n, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_new(&wrong, KB_F64, 0, NULL, KB_ORDER_C), KB_OK);
    float zero = 0;
    assert_int_equal(kb_array_view(&ro, KB_F32, 0, NULL, NULL, &zero, KB_ARRAY_READONLY), KB_OK);
    kb_reduce_args sum = kb_reduce_args_all(KB_REDUCE_SUM);
    assert_int_equal(kb_reduce_into(&x, &sum, &wrong), KB_EINVAL);
    assert_int_equal(kb_reduce_into(&x, &sum, &ro), KB_EINVAL);
    assert_true(zero == 0);
    kb_array_free(&wrong);
    kb_array_free(&x);
}

static void errors_follow_numpy(void **state) {
    int64_t shape[2] = {3, 0};
    kb_array a, out;
    assert_int_equal(kb_array_new(&a, KB_F32, 2, shape, KB_ORDER_C), KB_OK);
    kb_reduce_args args = kb_reduce_args_axis(KB_REDUCE_MAX, 1);
    assert_int_equal(kb_reduce(&a, &args, &out), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "zero-size"));
    args = kb_reduce_args_axis(KB_REDUCE_SUM, 1);
    assert_int_equal(kb_reduce(&a, &args, &out), KB_OK);
    for (int i = 0; i < 3; i++)
        assert_true(((float *)out.data)[i] == 0.0f);
    kb_array_free(&out);
    args = kb_reduce_args_axis(KB_REDUCE_PROD, 1);
    assert_int_equal(kb_reduce(&a, &args, &out), KB_OK);
    assert_true(((float *)out.data)[0] == 1.0f);
    kb_array_free(&out);
    args = kb_reduce_args_axis(KB_REDUCE_MAX, 0); /* reduces 3 elements into 0 outputs */
    assert_int_equal(kb_reduce(&a, &args, &out), KB_OK);
    assert_int_equal(kb_array_size(&out), 0);
    kb_array_free(&out);

    args = kb_reduce_args_axis(KB_REDUCE_SUM, 2);
    assert_int_equal(kb_reduce(&a, &args, &out), KB_EINVAL);
    assert_string_equal(kb_last_error(), "axis 2 out of range for a 2-d array");
    args = kb_reduce_args_axis(KB_REDUCE_SUM, -3);
    assert_int_equal(kb_reduce(&a, &args, &out), KB_EINVAL);
    kb_reduce_args twice = {.op = KB_REDUCE_SUM, .naxes = 2, .axes = {0, -2}};
    assert_int_equal(kb_reduce(&a, &twice, &out), KB_EINVAL);
    kb_reduce_args arg_tuple = {.op = KB_REDUCE_ARGMAX, .naxes = 2, .axes = {0, 1}};
    assert_int_equal(kb_reduce(&a, &arg_tuple, &out), KB_EINVAL);
    kb_reduce_args ddof = {.op = KB_REDUCE_SUM, .naxes = -1, .ddof = 1};
    assert_int_equal(kb_reduce(&a, &ddof, &out), KB_EINVAL);

    kb_array wrong;
    int64_t one[1] = {3};
    assert_int_equal(kb_array_new(&wrong, KB_F64, 1, one, KB_ORDER_C), KB_OK);
    args = kb_reduce_args_axis(KB_REDUCE_SUM, 1);
    assert_int_equal(kb_reduce_into(&a, &args, &wrong), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "float32"));
    kb_array_free(&wrong);
    kb_array_free(&a);
}

int main(void) {
    test_cache_sizes();
    /* Rows from memory one at a time and the rows ahead prefetched, unless a test sets another
     * way: no test waits for this machine's choice to be measured (kb_reduce_streams reads 64
     * MiB several times, slow under qemu or the sanitizers). */
    kb_reduce_memory_set(false, true);
    kb_threads_set(max_threads());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_random_views_match_reference),
        cmocka_unit_test(large_float_views_match_reference),
        cmocka_unit_test(shapes_that_cross_blocks_and_chunks),
        cmocka_unit_test(inputs_from_memory_match_reference),
        cmocka_unit_test(arg_over_all_from_memory_finds_the_place),
        cmocka_unit_test(narrow_columns_from_memory_match_reference),
        cmocka_unit_test(numpy_cases_that_must_hold_exactly),
        cmocka_unit_test(offset_float64_variance_stays_accurate),
        cmocka_unit_test(float64_runs_centered_off_their_mean_stay_accurate),
        cmocka_unit_test(float32_columns_centered_off_their_mean_stay_accurate),
        cmocka_unit_test(float32_columns_of_extreme_spread_stay_accurate),
        cmocka_unit_test(column_sums_into_strided_outputs),
        cmocka_unit_test(small_calls_match_planned_path),
        cmocka_unit_test(errors_follow_numpy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
