/* The float reduction kernels of every compiled level the CPU can run (scalar included; or the
 * one KB_TEST_LEVEL names), against references computed here, in long double, from the
 * definitions in reduce_kernels.h rather than from any level's code.
 *
 * Sums and squared deviations may differ from the exact value by rounding only: within
 * n * 2^-50 of the sum of the terms' magnitudes (double accumulation in any order stays far
 * inside that), plus, for float32 sums, 16 * 2^-24 of it (float32 partials of at most 16
 * terms). min, max and the arg kernels are exact; signed zeros compare equal, since
 * which zero of a tie a level keeps is not part of the contract.
 *
 * The data are built to reach every code path: every run length 1..70 (each tail of every
 * vector width and accumulator count), longer runs up to KB_REDUCE_BLOCK, starting pointers
 * at any element offset, ties, NaN at the first, last or random positions, infinities and
 * signed zeros; cols blocks of 1..300 rows and 1..70 columns (and a few wide ones), both
 * adjacent rows (the narrow (N, m) case) and padded strides, with accumulators that already
 * hold values, NaN and infinities, and arg blocks that do not start at row 0. */
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

#include "kbench/cpu.h"
#include "kbench/half.h"
#include "kbench/simd.h"
#include "core/dispatch.h"
#include "kernels/reduce_kernels.h"
#include "test_cache_sizes.h"
#include "test_util.h"
#include "test_levels.h"

typedef struct level {
    kb_simd_level id;
    const kb_reduce_kernels *table;
} level;

/* Every compiled level this CPU can run with a table of its own, as the dispatch registry
 * lists them; a level that runs another level's table is tested as that level, and
 * compiled levels the CPU cannot run are skipped, not failed. */
static level levels[KB_SIMD_LEVEL_COUNT];
static int nlevels;

/* ---- Deterministic data ---- */
static test_rng rng = {0x9e3779b97f4a7c15u};

typedef enum kind {
    REAL,     /* wide spread of magnitudes and signs */
    TIES,     /* small integers: repeated extremes */
    CONSTANT, /* one value throughout (an infinity, zeros of both signs, ...) */
    SPECIAL,  /* infinities and signed zeros among ties */
    NANS,     /* as SPECIAL, with NaN too */
    KINDS
} kind;

static const char *kind_names[] = {"real", "ties", "constant", "special", "nan"};

static double special(void) {
    static const double values[] = {INFINITY, -INFINITY, 0.0, -0.0};
    return values[test_rng_below(&rng, 4)];
}

/* Where NANS puts its NaNs. */
typedef enum nan_place { NAN_FIRST, NAN_LAST, NAN_ONE, NAN_SOME, NAN_ANYWHERE } nan_place;

/* n values of a kind; NANS also places NaN as asked (NAN_ANYWHERE: any of the others). */
static void generate(double *v, int64_t n, kind k, nan_place place) {
    double constant = test_rng_below(&rng, 2) ? special() : (double)(test_rng_below(&rng, 7) - 3);
    for (int64_t i = 0; i < n; i++) {
        switch (k) {
            case REAL:
                v[i] = (2 * test_rng_unit(&rng) - 1) * ldexp(1, (int)test_rng_below(&rng, 41) - 20);
                break;
            case TIES:
                v[i] = (double)(test_rng_below(&rng, 7) - 3);
                break;
            case CONSTANT:
                v[i] = constant == 0 ? (test_rng_below(&rng, 2) ? 0.0 : -0.0) : constant;
                break;
            case SPECIAL:
            case NANS:
                v[i] = test_rng_below(&rng, 10) == 0 ? special()
                                                     : (double)(test_rng_below(&rng, 7) - 3);
                break;
            default:
                break;
        }
    }
    if (k != NANS)
        return;
    switch (place == NAN_ANYWHERE ? (nan_place)test_rng_below(&rng, NAN_ANYWHERE) : place) {
        case NAN_FIRST:
            v[0] = NAN;
            break;
        case NAN_LAST:
            v[n - 1] = NAN;
            break;
        case NAN_ONE:
            v[test_rng_below(&rng, n)] = NAN;
            break;
        default:
            for (int64_t i = 0; i < n; i++)
                if (test_rng_below(&rng, 50) == 0)
                    v[i] = NAN;
    }
}

/* A buffer of exactly the bytes asked for, so the sanitizers see any read past its end. */
typedef struct buffer {
    char *base;
    char *data; /* base + off elements: any alignment modulo the vector width */
} buffer;

static buffer buffer_new(int64_t bytes, int64_t size) {
    int64_t off = test_rng_below(&rng, 16);
    buffer b;
    b.base = malloc((size_t)(off * size + bytes));
    assert_non_null(b.base);
    b.data = b.base + off * size;
    return b;
}

static void put(char *p, bool f32, double v) {
    if (f32) {
        float f = (float)v;
        memcpy(p, &f, sizeof f);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

static double get(const char *p, bool f32) {
    if (f32) {
        float f;
        memcpy(&f, p, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, p, sizeof d);
    return d;
}

/* ---- Comparisons ---- */
static bool same_value(double got, double want) {
    return (isnan(got) && isnan(want)) || got == want;
}

/* A rounded sum against its exact value: same class when not finite, else within bound. */
static bool close_sum(double got, long double want, long double magnitude, int64_t terms) {
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == (double)want;
    return fabsl((long double)got - want) <= (long double)terms * 0x1p-50L * magnitude;
}

/* A float32 sum may also carry the rounding of its float32 partials: up to KB_SUM_DEPTH terms
 * added in float32 per lane before the double accumulation (reduce_kernels.h). */
static bool close_sum_of(bool f32, double got, long double want, long double magnitude,
                         int64_t terms) {
    long double extra = f32 ? 16 * 0x1p-24L * magnitude : 0;
    if (isnan(want) || isinf(want))
        return close_sum(got, want, magnitude, terms);
    return fabsl((long double)got - want) <= (long double)terms * 0x1p-50L * magnitude + extra;
}

/* ---- Runs ---- */
typedef struct run_ref {
    long double sum, sum_abs, sqdev;
    double min, max;
    int64_t argmin, argmax;
} run_ref;

static run_ref run_reference(const double *v, int64_t n, double center) {
    run_ref r = {0, 0, 0, v[0], v[0], 0, 0};
    int64_t first_nan = -1;
    for (int64_t i = 0; i < n; i++) {
        long double d = (long double)v[i] - center;
        r.sum += v[i];
        r.sum_abs += fabsl((long double)v[i]);
        r.sqdev += d * d;
        if (isnan(v[i])) {
            if (first_nan < 0)
                first_nan = i;
            continue;
        }
        if (v[i] < v[r.argmin] || isnan(v[r.argmin]))
            r.argmin = i;
        if (v[i] > v[r.argmax] || isnan(v[r.argmax]))
            r.argmax = i;
    }
    if (first_nan >= 0) {
        r.min = r.max = NAN;
        r.argmin = r.argmax = first_nan;
    } else {
        r.min = v[r.argmin];
        r.max = v[r.argmax];
    }
    return r;
}

static void check_run(const level *lv, bool f32, const char *x, const double *v, int64_t n,
                      kind k) {
    const kb_reduce_kernels *t = lv->table;
    const char *name = kb_simd_name(lv->id), *ty = f32 ? "f32" : "f64";
    const float *xf = (const float *)(const void *)x;
    const double *xd = (const double *)(const void *)x;
    double center = v[test_rng_below(&rng, n)];
    if (!isfinite(center))
        center = 0.5;
    run_ref r = run_reference(v, n, center);
    long double dev_mag = isfinite(r.sqdev) ? r.sqdev : 0;

    double sum = t->sum[f32 ? KB_SUM_F32 : KB_SUM_F64].run(x, n, false);
    /* The prefetching form (an input from memory) changes what is read when, not the bits
     * (of a NaN, which one: the compiler may swap an addition's operands). */
    double far = t->sum[f32 ? KB_SUM_F32 : KB_SUM_F64].run(x, n, true);
    if (!(isnan(far) && isnan(sum)) && memcmp(&far, &sum, sizeof sum) != 0)
        fail_msg("%s sum_%s n=%lld (%s): far %a, near %a", name, ty, (long long)n, kind_names[k],
                 far, sum);
    if (!close_sum_of(f32, sum, r.sum, r.sum_abs, n))
        fail_msg("%s sum_%s n=%lld (%s): got %a, want %La", name, ty, (long long)n, kind_names[k],
                 sum, r.sum);
    /* The moments of var and std accumulate in double from the first element: the tight
     * bound, float32 or not. float32 takes one pass around a center of the caller's choice
     * (here a random element), float64 one pass around the mean of its first elements, which
     * it returns: that center's sums are checked, and the center itself against the mean of
     * those elements. */
    double sumd, dev;
    if (f32) {
        t->moments_f32(xf, n, (float)center, &sumd, &dev);
    } else {
        t->moments_f64(xd, n, &center, &sumd, &dev);
        int64_t m = n < 256 ? n : 256;
        run_ref pilot = run_reference(v, m, v[0]);
        long double want = pilot.sum / m;
        if (isfinite(want) && !(fabsl(center - want) <= 1e-12L * (pilot.sum_abs / m)))
            fail_msg("%s moments_f64 n=%lld (%s): center %a, want the mean of the first %lld, %La",
                     name, (long long)n, kind_names[k], center, (long long)m, want);
        r = run_reference(v, n, center);
        dev_mag = isfinite(r.sqdev) ? r.sqdev : 0;
    }
    long double shift_sum = r.sum - (long double)n * center;
    long double shift_mag = r.sum_abs + (long double)n * fabs(center);
    if (!close_sum(sumd, shift_sum, shift_mag, n))
        fail_msg("%s moments_%s n=%lld (%s): sum got %a, want %La", name, ty, (long long)n,
                 kind_names[k], sumd, shift_sum);
    if (!close_sum(dev, r.sqdev, dev_mag, n))
        fail_msg("%s moments_%s n=%lld (%s): squares got %a, want %La", name, ty, (long long)n,
                 kind_names[k], dev, r.sqdev);
    /* The run as a single row of the rows form. */
    double row_sum;
    t->sum[f32 ? KB_SUM_F32 : KB_SUM_F64].rows(x, 1, n * (f32 ? 4 : 8), n, &row_sum, n & 1);
    if (!close_sum_of(f32, row_sum, r.sum, r.sum_abs, n))
        fail_msg("%s sum_rows_%s n=%lld (%s): got %a, want %La", name, ty, (long long)n,
                 kind_names[k], row_sum, r.sum);
    double mn = f32 ? t->min_f32(xf, n) : t->min_f64(xd, n);
    double mx = f32 ? t->max_f32(xf, n) : t->max_f64(xd, n);
    if (!same_value(mn, r.min) || !same_value(mx, r.max))
        fail_msg("%s min/max_%s n=%lld (%s): got %a/%a, want %a/%a", name, ty, (long long)n,
                 kind_names[k], mn, mx, r.min, r.max);
    /* The run as a single row of the rows forms. */
    double row_mn, row_mx;
    if (f32) {
        float m32[2];
        t->min_rows_f32(x, 1, n * 4, n, (char *)m32, 4, n & 1);
        t->max_rows_f32(x, 1, n * 4, n, (char *)(m32 + 1), 4, n & 1);
        row_mn = m32[0];
        row_mx = m32[1];
    } else {
        t->min_rows_f64(x, 1, n * 8, n, (char *)&row_mn, 8, n & 1);
        t->max_rows_f64(x, 1, n * 8, n, (char *)&row_mx, 8, n & 1);
    }
    if (!same_value(row_mn, r.min) || !same_value(row_mx, r.max))
        fail_msg("%s min/max_rows_%s n=%lld (%s): got %a/%a, want %a/%a", name, ty, (long long)n,
                 kind_names[k], row_mn, row_mx, r.min, r.max);
    int64_t amin = f32 ? t->argmin_f32(xf, n) : t->argmin_f64(xd, n);
    int64_t amax = f32 ? t->argmax_f32(xf, n) : t->argmax_f64(xd, n);
    if (amin != r.argmin || amax != r.argmax)
        fail_msg("%s argmin/argmax_%s n=%lld (%s): got %lld/%lld, want %lld/%lld", name, ty,
                 (long long)n, kind_names[k], (long long)amin, (long long)amax, (long long)r.argmin,
                 (long long)r.argmax);
    /* The run as a single row of the rows forms. */
    int64_t row_amin, row_amax, size = f32 ? 4 : 8;
    (f32 ? t->argmin_rows_f32 : t->argmin_rows_f64)(x, 1, n * size, n, &row_amin, false);
    (f32 ? t->argmax_rows_f32 : t->argmax_rows_f64)(x, 1, n * size, n, &row_amax, false);
    if (row_amin != r.argmin || row_amax != r.argmax)
        fail_msg("%s argmin/argmax_rows_%s n=%lld (%s): got %lld/%lld, want %lld/%lld", name, ty,
                 (long long)n, kind_names[k], (long long)row_amin, (long long)row_amax,
                 (long long)r.argmin, (long long)r.argmax);
}

static void run_case(bool f32, int64_t n, kind k) {
    int64_t size = f32 ? 4 : 8;
    double *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    generate(v, n, k, NAN_ANYWHERE);
    buffer b = buffer_new(n * size, size);
    for (int64_t i = 0; i < n; i++) {
        put(b.data + i * size, f32, v[i]);
        v[i] = get(b.data + i * size, f32); /* the value as stored */
    }
    for (int l = 0; l < nlevels; l++)
        check_run(&levels[l], f32, b.data, v, n, k);
    free(b.base);
    free(v);
}

static void runs(bool f32) {
    for (int64_t n = 1; n <= 70; n++)
        for (int k = 0; k < KINDS; k++)
            for (int rep = 0; rep < 3; rep++)
                run_case(f32, n, (kind)k);
    for (int rep = 0; rep < 60; rep++)
        for (int k = 0; k < KINDS; k++)
            run_case(f32, rep == 0 ? KB_REDUCE_BLOCK : 1 + test_rng_below(&rng, KB_REDUCE_BLOCK),
                     (kind)k);
}

static void runs_f32(void **state) {
    runs(true);
}

static void runs_f64(void **state) {
    runs(false);
}

/* ---- Narrow rows ---- */
/* Rows of 2..KB_REDUCE_NARROW adjacent elements (reduce_narrow.h): sums within the run bound
 * (float32's with its partials in float, as the vector levels add a row's lanes),
 * squared deviations about the mean the kernel must take (float64: x0 + the row's deviations
 * from x0 added in double in order, divided by n; float32: the row's sum so, divided by n;
 * computed the same way here), extremes and indices exactly, and a NaN
 * anywhere in the rows reported for min, max and the arg ops (then the caller redoes them). */
static void narrow_case(bool f32, int64_t rows, int64_t n, kind k) {
    int64_t size = f32 ? 4 : 8, total = rows * n;
    double *v = malloc((size_t)total * sizeof *v), *val = malloc((size_t)rows * sizeof *val);
    int64_t *idx = malloc((size_t)rows * sizeof *idx);
    assert_true(v && val && idx);
    buffer b = buffer_new(total * size, size);
    bool any_nan = false;
    for (int64_t i = 0; i < rows; i++) {
        generate(v + i * n, n, test_rng_below(&rng, 8) == 0 ? k : (k == NANS ? SPECIAL : k),
                 NAN_ANYWHERE);
        for (int64_t j = 0; j < n; j++) {
            put(b.data + (i * n + j) * size, f32, v[i * n + j]);
            v[i * n + j] = get(b.data + (i * n + j) * size, f32);
            any_nan |= isnan(v[i * n + j]);
        }
    }
    const kb_reduce_op ops[] = {KB_REDUCE_SUM, KB_REDUCE_VAR,    KB_REDUCE_MIN,
                                KB_REDUCE_MAX, KB_REDUCE_ARGMIN, KB_REDUCE_ARGMAX};
    for (int l = 0; l < nlevels; l++) {
        const kb_reduce_kernels *t = levels[l].table;
        const char *name = kb_simd_name(levels[l].id), *ty = f32 ? "f32" : "f64";
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            kb_reduce_op op = ops[o];
            int nan =
                f32 ? t->narrow_rows_f32(op, (const float *)(const void *)b.data, rows, n, val, idx)
                    : t->narrow_rows_f64(op, (const double *)(const void *)b.data, rows, n, val,
                                         idx);
            bool compares = op != KB_REDUCE_SUM && op != KB_REDUCE_VAR;
            if (compares && (nan != 0) != any_nan)
                fail_msg("%s narrow_rows_%s op %d n=%lld rows=%lld: NaN reported %d, rows hold "
                         "one: %d",
                         name, ty, (int)op, (long long)n, (long long)rows, nan, any_nan);
            if (!compares && nan)
                fail_msg("%s narrow_rows_%s op %d n=%lld: asks for a redo", name, ty, (int)op,
                         (long long)n);
            if (compares && any_nan)
                continue; /* the caller redoes these rows by the reference */
            /* A row's result does not depend on where it falls: the same rows but the first. */
            if (rows > 1 && (op == KB_REDUCE_SUM || op == KB_REDUCE_MIN)) {
                double *later = malloc((size_t)rows * sizeof *later);
                assert_non_null(later);
                if (f32)
                    t->narrow_rows_f32(op, (const float *)(const void *)(b.data + n * size),
                                       rows - 1, n, later, idx);
                else
                    t->narrow_rows_f64(op, (const double *)(const void *)(b.data + n * size),
                                       rows - 1, n, later, idx);
                for (int64_t i = 1; i < rows; i++)
                    if (memcmp(&later[i - 1], &val[i], sizeof *val) != 0)
                        fail_msg("%s narrow_rows_%s op %d n=%lld row %lld: %a, %a a row earlier",
                                 name, ty, (int)op, (long long)n, (long long)i, val[i],
                                 later[i - 1]);
                free(later);
            }
            for (int64_t i = 0; i < rows; i++) {
                const double *r = v + i * n;
                double x0 = f32 ? 0 : r[0], mean = r[0] - x0;
                for (int64_t j = 1; j < n; j++)
                    mean += r[j] - x0;
                mean = x0 + mean / (double)n;
                run_ref ref = run_reference(r, n, mean);
                bool ok = true;
                switch (op) {
                    case KB_REDUCE_SUM:
                        ok = close_sum_of(f32, val[i], ref.sum, ref.sum_abs, n);
                        break;
                    case KB_REDUCE_VAR:
                        ok = close_sum(val[i], ref.sqdev, isfinite(ref.sqdev) ? ref.sqdev : 0, n) ||
                             (isnan(val[i]) && !isfinite(mean));
                        break;
                    case KB_REDUCE_MIN:
                        ok = same_value(val[i], ref.min);
                        break;
                    case KB_REDUCE_MAX:
                        ok = same_value(val[i], ref.max);
                        break;
                    case KB_REDUCE_ARGMIN:
                        ok = idx[i] == ref.argmin;
                        break;
                    default:
                        ok = idx[i] == ref.argmax;
                        break;
                }
                if (!ok)
                    fail_msg("%s narrow_rows_%s op %d n=%lld (%s) row %lld: got %a / %lld", name,
                             ty, (int)op, (long long)n, kind_names[k], (long long)i, val[i],
                             (long long)idx[i]);
            }
        }
    }
    free(b.base);
    free(v);
    free(val);
    free(idx);
}

static void narrow_rows(void **state) {
    for (int f32 = 0; f32 < 2; f32++)
        for (int64_t n = 2; n <= 16; n++)
            for (int k = 0; k < KINDS; k++)
                for (int rep = 0; rep < 4; rep++)
                    narrow_case(f32, rep == 0 ? 1 : 1 + test_rng_below(&rng, 300), n, (kind)k);
}

/* ---- Sums and extremes of many rows ---- */
/* min_rows and max_rows of the same rows, exactly, into results adjacent and strided (every
 * other slot; the slots between, and those past the last, are left alone); argmin_rows and
 * argmax_rows of them, exactly. */
static void check_rows_extremes(const level *lv, bool f32, const char *x, const double *v,
                                int64_t rows, int64_t n, int64_t stride) {
    const kb_reduce_kernels *t = lv->table;
    int64_t size = f32 ? 4 : 8;
    char *out = malloc((size_t)(2 * rows * size));
    assert_non_null(out);
    for (int is_max = 0; is_max < 2; is_max++)
        for (int64_t spread = 1; spread <= 2; spread++) {
            memset(out, 0x5a, (size_t)(2 * rows * size));
            bool far = spread == 2; /* from memory: long rows several at once (main) */
            if (f32)
                (is_max ? t->max_rows_f32 : t->min_rows_f32)(x, rows, stride, n, out, spread * 4,
                                                             far);
            else
                (is_max ? t->max_rows_f64 : t->min_rows_f64)(x, rows, stride, n, out, spread * 8,
                                                             far);
            for (int64_t i = 0; i < rows; i++) {
                run_ref r = run_reference(v + i * n, n, 0);
                double want = is_max ? r.max : r.min, got = get(out + i * spread * size, f32);
                if (!same_value(got, want))
                    fail_msg("%s %s_rows_%s rows=%lld n=%lld stride=%lld out stride %lld row %lld: "
                             "got %a, want %a",
                             kb_simd_name(lv->id), is_max ? "max" : "min", f32 ? "f32" : "f64",
                             (long long)rows, (long long)n, (long long)stride,
                             (long long)(spread * size), (long long)i, got, want);
                if (spread == 2 && (unsigned char)out[(2 * i + 1) * size] != 0x5a)
                    fail_msg("%s %s_rows: wrote between strided results", kb_simd_name(lv->id),
                             is_max ? "max" : "min");
            }
            for (int64_t b = spread * rows * size; b < 2 * rows * size; b++)
                if ((unsigned char)out[b] != 0x5a)
                    fail_msg("%s %s_rows: wrote past the last result", kb_simd_name(lv->id),
                             is_max ? "max" : "min");
        }
    free(out);
    /* argmin and argmax of the same rows, one at a time and (far) several at once */
    int64_t *idx = malloc((size_t)rows * sizeof *idx);
    assert_non_null(idx);
    for (int is_max = 0; is_max < 2; is_max++)
        for (int far = 0; far < 2; far++) {
            if (f32)
                (is_max ? t->argmax_rows_f32 : t->argmin_rows_f32)(x, rows, stride, n, idx, far);
            else
                (is_max ? t->argmax_rows_f64 : t->argmin_rows_f64)(x, rows, stride, n, idx, far);
            for (int64_t i = 0; i < rows; i++) {
                run_ref r = run_reference(v + i * n, n, 0);
                int64_t want = is_max ? r.argmax : r.argmin;
                if (idx[i] != want)
                    fail_msg("%s %s_rows_%s rows=%lld n=%lld stride=%lld far=%d row %lld: got "
                             "%lld, want %lld",
                             kb_simd_name(lv->id), is_max ? "argmax" : "argmin",
                             f32 ? "f32" : "f64", (long long)rows, (long long)n, (long long)stride,
                             far, (long long)i, (long long)idx[i], (long long)want);
            }
        }
    free(idx);
}

/* The rows forms of the sums and of min and max (reduce_sum.h, reduce_rows.h: short rows a
 * group of VF64_LANES at a time, their partial vectors taken across into one vector of
 * results) against each row's long double sum, and its min and max exactly.
 * A wrong lane or row in that transpose shows as another row's result: the rows are each of a
 * kind drawn at random (NaN and infinity rows beside finite ones, so a NaN that leaks into a
 * neighbour's lane is seen) or, one case in three, integers distinct per row and per column
 * whose sums are exact in either type, so they are compared exactly. Row counts that are no
 * multiple of any group, every length to 70 (every whole vector count and tail of every
 * width, and rows past four vectors), adjacent and padded rows, any alignment. A row's sum
 * has the same bits whichever row it is and whether the input is far, and nothing is stored
 * past the last row. */
static void rows_sums_case(bool f32, int64_t rows, int64_t n, int64_t pad) {
    int64_t size = f32 ? 4 : 8, stride = (n + pad) * size;
    bool exact = test_rng_below(&rng, 3) == 0;
    double *v = malloc((size_t)(rows * n) * sizeof *v);
    long double *want = malloc((size_t)rows * sizeof *want),
                *mag = malloc((size_t)rows * sizeof *mag);
    enum { GUARD = 8 };
    double *got = malloc((size_t)(rows + GUARD) * sizeof *got);
    double *shifted = malloc((size_t)(rows + GUARD) * sizeof *got);
    double *far = malloc((size_t)(rows + GUARD) * sizeof *got);
    assert_true(v && want && mag && got && shifted && far);
    buffer b = buffer_new((rows - 1) * stride + n * size, size);
    for (int64_t i = 0; i < rows; i++) {
        double *r = v + i * n;
        if (exact)
            for (int64_t j = 0; j < n; j++)
                r[j] = (double)((i + 1) * 128 + j) * (i % 2 ? -1 : 1);
        else
            generate(r, n, (kind)test_rng_below(&rng, KINDS), NAN_ANYWHERE);
        want[i] = mag[i] = 0;
        for (int64_t j = 0; j < n; j++) {
            put(b.data + i * stride + j * size, f32, r[j]);
            r[j] = get(b.data + i * stride + j * size, f32);
            want[i] += r[j];
            mag[i] += fabsl((long double)r[j]);
        }
    }
    const char *ty = f32 ? "f32" : "f64";
    for (int l = 0; l < nlevels; l++)
        check_rows_extremes(&levels[l], f32, b.data, v, rows, n, stride);
    for (int l = 0; l < nlevels; l++) {
        const kb_sum_kernels *k = &levels[l].table->sum[f32 ? KB_SUM_F32 : KB_SUM_F64];
        const char *name = kb_simd_name(levels[l].id);
        for (int64_t i = 0; i < rows + GUARD; i++)
            got[i] = shifted[i] = far[i] = -1234.5;
        k->rows(b.data, rows, stride, n, got, false);
        k->rows(b.data, rows, stride, n, far, true);
        /* rows 1 .. as rows 0 ..: each lands in another lane of its group */
        shifted[0] = got[0];
        k->rows(b.data + stride, rows - 1, stride, n, shifted + 1, false);
        for (int64_t i = rows; i < rows + GUARD; i++)
            if (got[i] != -1234.5 || far[i] != -1234.5 || shifted[i] != -1234.5)
                fail_msg("%s sum_rows_%s rows=%lld n=%lld: stored past the last row", name, ty,
                         (long long)rows, (long long)n);
        for (int64_t i = 0; i < rows; i++) {
            bool ok =
                exact ? got[i] == (double)want[i] : close_sum_of(f32, got[i], want[i], mag[i], n);
            if (!ok)
                fail_msg("%s sum_rows_%s rows=%lld n=%lld stride=%lld (%s) row %lld: got %a, "
                         "want %La",
                         name, ty, (long long)rows, (long long)n, (long long)stride,
                         exact ? "exact" : "mixed", (long long)i, got[i], want[i]);
            bool same_far =
                memcmp(&far[i], &got[i], sizeof got[i]) == 0 || (isnan(far[i]) && isnan(got[i]));
            bool same_shifted = memcmp(&shifted[i], &got[i], sizeof got[i]) == 0 ||
                                (isnan(shifted[i]) && isnan(got[i]));
            if (!same_far || !same_shifted)
                fail_msg("%s sum_rows_%s rows=%lld n=%lld row %lld: %a, far %a, one row later %a",
                         name, ty, (long long)rows, (long long)n, (long long)i, got[i], far[i],
                         shifted[i]);
        }
    }
    free(b.base);
    free(v);
    free(want);
    free(mag);
    free(got);
    free(shifted);
    free(far);
}

static void rows_sums(void **state) {
    for (int f32 = 0; f32 < 2; f32++)
        for (int64_t n = 1; n <= 70; n++)
            for (int rep = 0; rep < 4; rep++) {
                int64_t rows =
                    rep == 0 ? 1 + test_rng_below(&rng, 8) : 1 + test_rng_below(&rng, 70);
                rows_sums_case(f32, rows, n, rep % 2 ? 1 + test_rng_below(&rng, 9) : 0);
            }
    for (int f32 = 0; f32 < 2;
         f32++) /* a batch of the driver (KB_REDUCE_ROWS_BATCH), and one more */
        rows_sums_case(f32, 256 + f32, 32, 0);
    /* Rows long enough to fold their partials several times, which come from memory a few
     * rows at once (sum_body's streams). */
    static const int64_t long_rows[] = {257, 1031, 2053, KB_REDUCE_BLOCK};
    for (int f32 = 0; f32 < 2; f32++)
        for (size_t i = 0; i < sizeof long_rows / sizeof long_rows[0]; i++)
            rows_sums_case(f32, 1 + test_rng_below(&rng, 9), long_rows[i], test_rng_below(&rng, 3));
}

/* float64 var and std's rows form (moments_rows_f64) against its run kernel row by row: with
 * the sums asked for (whole blocks over all, reduce_float.c), each row's center and sums have
 * the bits moments_f64 gives it alone, and without them, rows longer than its center's 256
 * elements have its M2's bits too (shorter ones take two passes: a few ulps); near and far,
 * where long rows from memory go NSTREAMS at once (row counts of one to four groups and a
 * rest). */
static bool same_bits(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

/* Equal to a few ulps of the larger, or both NaN, or both of the same infinity. */
static bool near_value(double a, double b) {
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
        return same_bits(a, b) || (isnan(a) && isnan(b));
    return fabs(a - b) <= 1e-13 * fmax(fabs(a), fabs(b));
}

static void moments_rows_case(int64_t rows, int64_t n, int64_t pad) {
    int64_t stride = (n + pad) * 8;
    double *v = malloc((size_t)n * sizeof *v);
    double *dev = malloc((size_t)rows * 4 * sizeof *dev), *sums = dev + rows;
    assert_true(v && dev);
    buffer b = buffer_new((rows - 1) * stride + n * 8, 8);
    for (int64_t i = 0; i < rows; i++) {
        generate(v, n, (kind)test_rng_below(&rng, KINDS), NAN_ANYWHERE);
        memcpy(b.data + i * stride, v, (size_t)n * sizeof *v);
    }
    for (int l = 0; l < nlevels; l++) {
        const kb_reduce_kernels *t = levels[l].table;
        for (int ask = 0; ask < 2; ask++)
            for (int far = 0; far < 2; far++) {
                for (int64_t i = 0; i < 4 * rows; i++)
                    dev[i] = -1234.5; /* so that a row left unwritten shows */
                t->moments_rows_f64(b.data, rows, stride, n, dev, ask ? sums : NULL, far);
                for (int64_t i = 0; i < rows; i++) {
                    const double *r = (const double *)(const void *)(b.data + i * stride);
                    double c, s1, s2;
                    t->moments_f64(r, n, &c, &s1, &s2);
                    double m2 = s2 - s1 * (s1 / (double)n);
                    m2 = m2 < 0 ? 0 : m2;
                    bool ok = ask ? same_bits(sums[3 * i], c) && same_bits(sums[3 * i + 1], s1) &&
                                        same_bits(sums[3 * i + 2], s2) && same_bits(dev[i], -1234.5)
                              : n > 256 ? same_bits(dev[i], m2)
                                        : near_value(dev[i], m2);
                    if (!ok)
                        fail_msg("%s moments_rows_f64 rows=%lld n=%lld far=%d sums=%d row %lld: "
                                 "M2 %a sums %a %a %a, alone %a %a %a %a",
                                 kb_simd_name(levels[l].id), (long long)rows, (long long)n, far,
                                 ask, (long long)i, dev[i], ask ? sums[3 * i] : 0.0,
                                 ask ? sums[3 * i + 1] : 0.0, ask ? sums[3 * i + 2] : 0.0, m2, c,
                                 s1, s2);
                }
            }
    }
    free(b.base);
    free(v);
    free(dev);
}

/* float32's rows form (moments_rows_f32) against moments_f32 row by row: each long row's M2,
 * or with the sums asked for, its sums of deviations from its first element and of their
 * squares, have the bits the run kernel gives it alone, near and far, where long rows from
 * memory go NSTREAMS at once (segments of each in turn). */
static void moments_rows_f32_case(int64_t rows, int64_t n, int64_t pad) {
    int64_t stride = (n + pad) * 4;
    double *v = malloc((size_t)n * sizeof *v);
    double *dev = malloc((size_t)rows * 3 * sizeof *dev), *sums = dev + rows;
    assert_true(v && dev);
    buffer b = buffer_new((rows - 1) * stride + n * 4, 4);
    for (int64_t i = 0; i < rows; i++) {
        generate(v, n, (kind)test_rng_below(&rng, KINDS), NAN_ANYWHERE);
        for (int64_t j = 0; j < n; j++)
            put(b.data + i * stride + j * 4, true, v[j]);
    }
    for (int l = 0; l < nlevels; l++) {
        const kb_reduce_kernels *t = levels[l].table;
        for (int ask = 0; ask < 2; ask++)
            for (int far = 0; far < 2; far++) {
                for (int64_t i = 0; i < 3 * rows; i++)
                    dev[i] = -1234.5; /* so that a row left unwritten shows */
                t->moments_rows_f32(b.data, rows, stride, n, dev, ask ? sums : NULL, far);
                for (int64_t i = 0; i < rows; i++) {
                    const float *r = (const float *)(const void *)(b.data + i * stride);
                    double s1, s2;
                    t->moments_f32(r, n, r[0], &s1, &s2);
                    double m2 = s2 - s1 * (s1 / (double)n);
                    m2 = m2 < 0 ? 0 : m2;
                    /* rows of at most four vectors of the widest target (64 floats) may go
                     * the short rows' way, another order of the same additions */
                    bool (*same)(double, double) = n > 64 ? same_bits : near_value;
                    bool ok = ask ? same(sums[2 * i], s1) && same(sums[2 * i + 1], s2) &&
                                        same_bits(dev[i], -1234.5)
                                  : same(dev[i], m2);
                    if (!ok)
                        fail_msg("%s moments_rows_f32 rows=%lld n=%lld far=%d sums=%d row %lld: "
                                 "M2 %a sums %a %a, alone %a %a %a",
                                 kb_simd_name(levels[l].id), (long long)rows, (long long)n, far,
                                 ask, (long long)i, dev[i], ask ? sums[2 * i] : 0.0,
                                 ask ? sums[2 * i + 1] : 0.0, m2, s1, s2);
                }
            }
    }
    free(b.base);
    free(v);
    free(dev);
}

static void moments_rows(void **state) {
    static const int64_t lengths[] = {5, 23, 33, 257, 1031, KB_REDUCE_BLOCK};
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
        for (int64_t rows = 1; rows <= 18; rows++) { /* to four groups of four, and two */
            moments_rows_case(rows, lengths[i], test_rng_below(&rng, 3));
            moments_rows_f32_case(rows, lengths[i], test_rng_below(&rng, 3));
        }
}

/* ---- Cols ---- */
/* A column's sums in long double from the accumulator before the call: of the elements (s), of
 * their magnitudes (sa), of the squared deviations from the center (d, da), of the deviations and
 * their magnitudes (ms, msa); da and msa 0 where not finite. */
typedef struct cols_reference {
    long double s, sa, d, da, ms, msa;
} cols_reference;

typedef struct cols_case {
    bool f32;
    int64_t rows, m, stride, first;
    kind k;
    buffer x;
    double *v;             /* v[i*m + j]: element (i, j) as stored */
    double *acc0, *center; /* sums: accumulators before the call, centers */
    double *best0;         /* min/max/arg: accumulators before the call */
    int64_t *index0;       /* arg: indices before the call */
    cols_reference *ref;   /* per column, for check_cols_sums: cols_reference_fill, once for
                            * every level */
} cols_case;

static double pick_accumulator(void) {
    switch (test_rng_below(&rng, 8)) {
        case 0:
            return NAN;
        case 1:
            return special();
        default:
            return (double)(test_rng_below(&rng, 7) - 3);
    }
}

/* stride 0: rows m elements apart (adjacent) or a few more; else stride bytes apart. */
static cols_case cols_new(bool f32, int64_t rows, int64_t m, bool adjacent, int64_t stride, kind k,
                          nan_place place) {
    cols_case c = {.f32 = f32, .rows = rows, .m = m, .k = k};
    int64_t size = f32 ? 4 : 8;
    c.stride = stride ? stride : (m + (adjacent ? 0 : 1 + test_rng_below(&rng, 9))) * size;
    c.first = test_rng_below(&rng, 4) == 0 ? INT64_C(3000000000) + test_rng_below(&rng, 1000)
                                           : test_rng_below(&rng, 1000000);
    c.x = buffer_new((rows - 1) * c.stride + m * size, size);
    c.v = malloc((size_t)(rows * m) * sizeof *c.v);
    c.acc0 = malloc((size_t)m * sizeof *c.acc0);
    c.center = malloc((size_t)m * sizeof *c.center);
    c.best0 = malloc((size_t)m * sizeof *c.best0);
    c.index0 = malloc((size_t)m * sizeof *c.index0);
    assert_true(c.v && c.acc0 && c.center && c.best0 && c.index0);
    generate(c.v, rows * m, k, place);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < m; j++) {
            char *p = c.x.data + i * c.stride + j * size;
            put(p, f32, c.v[i * m + j]);
            c.v[i * m + j] = get(p, f32);
        }
    for (int64_t j = 0; j < m; j++) {
        c.acc0[j] = (2 * test_rng_unit(&rng) - 1) * 8;
        c.center[j] = (double)(test_rng_below(&rng, 7) - 3) + 0.25;
        c.best0[j] = f32 ? (double)(float)pick_accumulator() : pick_accumulator();
        c.index0[j] = -1 - j;
    }
    return c;
}

/* c's references for check_cols_sums, once its values are final. */
static void cols_reference_fill(cols_case *c) {
    int64_t m = c->m;
    c->ref = malloc((size_t)m * sizeof *c->ref);
    assert_non_null(c->ref);
    for (int64_t j = 0; j < m; j++) {
        long double a = c->acc0[j];
        cols_reference r = {a, fabsl(a), a, fabsl(a), a, fabsl(a)};
        for (int64_t i = 0; i < c->rows; i++) {
            long double x = c->v[i * m + j], e = x - c->center[j];
            r.s += x;
            r.sa += fabsl(x);
            r.d += e * e;
            r.da += e * e;
            r.ms += e;
            r.msa += fabsl(e);
        }
        if (!isfinite(r.da))
            r.da = 0;
        if (!isfinite(r.msa))
            r.msa = 0;
        c->ref[j] = r;
    }
}

static void cols_free(cols_case *c) {
    free(c->x.base);
    free(c->v);
    free(c->acc0);
    free(c->center);
    free(c->best0);
    free(c->index0);
    free(c->ref);
}

static void check_cols_sums(const level *lv, const cols_case *c) {
    const kb_reduce_kernels *t = lv->table;
    const char *name = kb_simd_name(lv->id), *ty = c->f32 ? "f32" : "f64";
    int64_t m = c->m;
    double *sum = malloc((size_t)m * sizeof *sum), *dev = malloc((size_t)m * sizeof *dev);
    assert_true(sum && dev);
    memcpy(sum, c->acc0, (size_t)m * sizeof *sum);
    memcpy(dev, c->acc0, (size_t)m * sizeof *dev);
    double *sumd = malloc((size_t)m * sizeof *sumd);
    assert_non_null(sumd);
    memcpy(sumd, c->acc0, (size_t)m * sizeof *sumd);
    (c->f32 ? t->sumd_cols_f32 : t->sumd_cols_f64)(c->x.data, c->rows, c->stride, m, sumd);
    /* far as the driver sets it, so that rows far apart take the prefetching form */
    t->sum[c->f32 ? KB_SUM_F32 : KB_SUM_F64].cols(c->x.data, c->rows, c->stride, m, sum,
                                                  kb_cache_far(c->rows * c->stride));
    (c->f32 ? t->sqdev_cols_f32 : t->sqdev_cols_f64)(c->x.data, c->rows, c->stride, m, c->center,
                                                     dev);
    /* the one-pass moments, around the same centers (float32 values) */
    double *msum = malloc((size_t)m * sizeof *msum), *msq = malloc((size_t)m * sizeof *msq);
    float *center32 = malloc((size_t)m * sizeof *center32);
    assert_true(msum && msq && center32);
    memcpy(msum, c->acc0, (size_t)m * sizeof *msum);
    memcpy(msq, c->acc0, (size_t)m * sizeof *msq);
    for (int64_t j = 0; j < m; j++)
        center32[j] = (float)c->center[j];
    bool far = kb_cache_far(c->rows * c->stride);
    if (c->f32)
        t->moments_cols_f32(c->x.data, c->rows, c->stride, m, center32, msum, msq, far);
    else
        t->moments_cols_f64(c->x.data, c->rows, c->stride, m, c->center, msum, msq, far);
    /* and float32's form in float32 lanes */
    double *nsum = malloc((size_t)m * sizeof *nsum), *nsq = malloc((size_t)m * sizeof *nsq);
    assert_true(nsum && nsq);
    memcpy(nsum, c->acc0, (size_t)m * sizeof *nsum);
    memcpy(nsq, c->acc0, (size_t)m * sizeof *nsq);
    if (c->f32)
        t->moments_cols_near_f32(c->x.data, c->rows, c->stride, m, center32, nsum, nsq, far);
    for (int64_t j = 0; j < m; j++) {
        long double s = c->ref[j].s, sa = c->ref[j].sa, d = c->ref[j].d, da = c->ref[j].da;
        if (!close_sum_of(c->f32, sum[j], s, sa, c->rows + 1) ||
            !close_sum(dev[j], d, da, c->rows + 1))
            fail_msg("%s sum/sqdev_cols_%s rows=%lld m=%lld stride=%lld (%s) column %lld: "
                     "got %a/%a, want %La/%La",
                     name, ty, (long long)c->rows, (long long)m, (long long)c->stride,
                     kind_names[c->k], (long long)j, sum[j], dev[j], s, d);
        long double ms = c->ref[j].ms, msa = c->ref[j].msa;
        if (!close_sum(msum[j], ms, msa, c->rows + 1) || !close_sum(msq[j], d, da, c->rows + 1))
            fail_msg("%s moments_cols_%s rows=%lld m=%lld stride=%lld (%s) column %lld: "
                     "got %a/%a, want %La/%La",
                     name, ty, (long long)c->rows, (long long)m, (long long)c->stride,
                     kind_names[c->k], (long long)j, msum[j], msq[j], ms, d);
        /* moments_cols_near_f32 keeps d = x - c, d * d and their sums over at most
         * KB_MOMENTS_COLS_F32 rows in float32 lanes (reduce_moments.h): a few float32
         * roundings of each term, within the partials' allowance */
        if (c->f32 && (!close_sum_of(true, nsum[j], ms, msa, c->rows + 1) ||
                       !close_sum_of(true, nsq[j], d, da, c->rows + 1)))
            fail_msg("%s moments_cols_near_f32 rows=%lld m=%lld stride=%lld (%s) column %lld: "
                     "got %a/%a, want %La/%La",
                     name, (long long)c->rows, (long long)m, (long long)c->stride, kind_names[c->k],
                     (long long)j, nsum[j], nsq[j], ms, d);
        if (!close_sum(sumd[j], s, sa, c->rows + 1))
            fail_msg("%s sumd_cols_%s rows=%lld m=%lld stride=%lld (%s) column %lld: got %a, "
                     "want %La",
                     name, ty, (long long)c->rows, (long long)m, (long long)c->stride,
                     kind_names[c->k], (long long)j, sumd[j], s);
    }
    free(sum);
    free(sumd);
    free(dev);
    free(msum);
    free(msq);
    free(nsum);
    free(nsq);
    free(center32);
}

/* cols_ranges over 1 to 7 blocks of the rows of x (fewer, as many and more than a kernel reads
 * at once, a ragged group last) gives each block the bits cols gives it alone, far. */
static void check_cols_ranges(const level *lv, const kb_sum_kernels *sk, const char *type,
                              const char *x, int64_t total_rows, int64_t stride, int64_t m,
                              const double *acc0) {
    int64_t ranges = 1 + test_rng_below(&rng, 7), rows = total_rows / ranges;
    if (rows == 0)
        return;
    int64_t step = m + test_rng_below(&rng, 3), range = rows * stride;
    double *got = malloc((size_t)(ranges * step) * sizeof *got);
    double *want = malloc((size_t)(ranges * step) * sizeof *want);
    assert_true(got && want);
    for (int64_t q = 0; q < ranges; q++) {
        memcpy(got + q * step, acc0, (size_t)m * sizeof *got);
        memcpy(want + q * step, acc0, (size_t)m * sizeof *want);
        sk->cols(x + q * range, rows, stride, m, want + q * step, true);
    }
    sk->cols_ranges(x, ranges, range, rows, stride, m, got, step);
    for (int64_t q = 0; q < ranges; q++)
        for (int64_t j = 0; j < m; j++)
            if (!same_value(got[q * step + j], want[q * step + j]))
                fail_msg("%s cols_ranges_%s %lld blocks of %lld rows, m=%lld stride=%lld, block "
                         "%lld column %lld: got %a, alone %a",
                         kb_simd_name(lv->id), type, (long long)ranges, (long long)rows,
                         (long long)m, (long long)stride, (long long)q, (long long)j,
                         got[q * step + j], want[q * step + j]);
    free(got);
    free(want);
}

/* cols_store of the first 1 to KB_SUM_STORE_ROWS rows of x against cols into zeroed sums and the
 * level's store kernel, bit for bit (any NaN for a NaN), dividing by 1, a power of two or the
 * row count; for narrow rows (false), nothing written. */
static void check_cols_store(const level *lv, bool f32, const char *x, int64_t total_rows,
                             int64_t stride, int64_t m) {
    const kb_reduce_kernels *t = lv->table;
    int64_t size = f32 ? 4 : 8, rows = 1 + test_rng_below(&rng, KB_SUM_STORE_ROWS);
    rows = rows < total_rows ? rows : total_rows;
    static const double scales[] = {1.0, 4.0, 0.0};
    double scale = scales[test_rng_below(&rng, 3)];
    scale = scale > 0 ? scale : (double)rows;
    double *sums = calloc((size_t)m, sizeof *sums);
    char *got = malloc((size_t)(m * size)), *want = malloc((size_t)(m * size));
    assert_true(sums && got && want);
    memset(got, 0xa5, (size_t)(m * size));
    memset(want, 0xa5, (size_t)(m * size));
    const kb_sum_kernels *sk = &t->sum[f32 ? KB_SUM_F32 : KB_SUM_F64];
    bool done = sk->cols_store(x, rows, stride, m, scale, got);
    if (done) {
        sk->cols(x, rows, stride, m, sums, false);
        if (f32)
            t->store_f32(sums, m, scale, (float *)(void *)want);
        else
            t->store_f64(sums, m, scale, (double *)(void *)want);
    }
    for (int64_t j = 0; j < m; j++) {
        double g = get(got + j * size, f32), w = get(want + j * size, f32);
        if (memcmp(got + j * size, want + j * size, (size_t)size) != 0 && !(isnan(g) && isnan(w)))
            fail_msg("%s sum_cols_store_%s rows=%lld m=%lld stride=%lld scale=%g column %lld: %s "
                     "%a, not %a",
                     kb_simd_name(lv->id), f32 ? "f32" : "f64", (long long)rows, (long long)m,
                     (long long)stride, scale, (long long)j, done ? "got" : "wrote", g, w);
    }
    free(sums);
    free(got);
    free(want);
}

/* min/max (arg false) or argmin/argmax (arg true) of the cols kernels, by the contract. */
static void check_cols_extremes(const level *lv, const cols_case *c, bool arg, bool is_max) {
    const kb_reduce_kernels *t = lv->table;
    const char *name = kb_simd_name(lv->id), *ty = c->f32 ? "f32" : "f64";
    int64_t m = c->m;
    float *b32 = malloc((size_t)m * sizeof *b32);
    double *b64 = malloc((size_t)m * sizeof *b64);
    int64_t *index = malloc((size_t)m * sizeof *index);
    assert_true(b32 && b64 && index);
    for (int64_t j = 0; j < m; j++) {
        b32[j] = (float)c->best0[j];
        b64[j] = c->best0[j];
        index[j] = c->index0[j];
    }
    const char *x = c->x.data;
    if (arg && c->f32)
        (is_max ? t->argmax_cols_f32 : t->argmin_cols_f32)(x, c->rows, c->stride, m, c->first, b32,
                                                           index);
    else if (arg)
        (is_max ? t->argmax_cols_f64 : t->argmin_cols_f64)(x, c->rows, c->stride, m, c->first, b64,
                                                           index);
    else if (c->f32)
        (is_max ? t->max_cols_f32 : t->min_cols_f32)(x, c->rows, c->stride, m, b32);
    else
        (is_max ? t->max_cols_f64 : t->min_cols_f64)(x, c->rows, c->stride, m, b64);

    for (int64_t j = 0; j < m; j++) {
        double want = c->best0[j];
        int64_t want_index = c->index0[j];
        for (int64_t i = 0; i < c->rows && !isnan(want); i++) {
            double v = c->v[i * m + j];
            if (isnan(v) || (is_max ? v > want : v < want)) {
                want = v;
                want_index = c->first + i;
            }
        }
        double got = c->f32 ? b32[j] : b64[j];
        if (!same_value(got, want) || (arg && index[j] != want_index))
            fail_msg("%s %s%s_cols_%s rows=%lld m=%lld stride=%lld first=%lld (%s) column %lld: "
                     "got %a @%lld, want %a @%lld (started from %a @%lld)",
                     name, arg ? "arg" : "", is_max ? "max" : "min", ty, (long long)c->rows,
                     (long long)m, (long long)c->stride, (long long)c->first, kind_names[c->k],
                     (long long)j, got, (long long)index[j], want, (long long)want_index,
                     c->best0[j], (long long)c->index0[j]);
    }
    free(b32);
    free(b64);
    free(index);
}

static void cols_case_run(bool f32, int64_t rows, int64_t m, bool adjacent, kind k,
                          nan_place place) {
    cols_case c = cols_new(f32, rows, m, adjacent, 0, k, place);
    cols_reference_fill(&c);
    for (int l = 0; l < nlevels; l++) {
        check_cols_sums(&levels[l], &c);
        check_cols_ranges(&levels[l], &levels[l].table->sum[f32 ? KB_SUM_F32 : KB_SUM_F64],
                          f32 ? "f32" : "f64", c.x.data, c.rows, c.stride, c.m, c.acc0);
        check_cols_store(&levels[l], f32, c.x.data, c.rows, c.stride, c.m);
        for (int arg = 0; arg < 2; arg++)
            for (int is_max = 0; is_max < 2; is_max++)
                check_cols_extremes(&levels[l], &c, arg, is_max);
    }
    cols_free(&c);
}

/* Column argmin and argmax of wide rows (rowwise, KB_ARG_ROWWISE_MIN vectors or more, at most
 * 4096 columns a piece): widths around those bounds at every target's vector width, row counts
 * around a group of four, and a NaN put at each row of a group of four in a column of the second
 * piece, which sends that piece (and only it) to the scalar reference. */
static void cols_arg_rowwise(bool f32) {
    static const int64_t widths[] = {63, 64, 127, 128, 255, 256, 4099, 8199};
    static const int64_t counts[] = {1, 3, 4, 5, 18};
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (size_t r = 0; r < sizeof counts / sizeof *counts; r++) {
            static const kind kinds[] = {REAL, TIES, SPECIAL};
            cols_case c = cols_new(f32, counts[r], widths[w], false, 0,
                                   kinds[(w + r) % (sizeof kinds / sizeof *kinds)], NAN_ONE);
            if (c.m > 4096) { /* a NaN in the second piece: 4133 of 8199, the tail of 4099 */
                int64_t row = (int64_t)(r % 4) < c.rows ? (int64_t)(r % 4) : 0;
                int64_t col = c.m > 8192 ? 4133 : c.m - 1;
                c.v[row * c.m + col] = NAN;
                put(c.x.data + row * c.stride + col * (f32 ? 4 : 8), f32, NAN);
            }
            for (int l = 0; l < nlevels; l++)
                for (int is_max = 0; is_max < 2; is_max++)
                    check_cols_extremes(&levels[l], &c, true, is_max);
            cols_free(&c);
        }
}

/* Every kind for every m, because a NaN sends a whole tile or narrow block to the rare path:
 * the vector code needs NaN-free blocks, and NaN at the end of one (its scalar tail) too. */
static void cols(bool f32) {
    for (int adjacent = 0; adjacent < 2; adjacent++) {
        for (int64_t m = 1; m <= 70; m++) {
            for (int k = 0; k < KINDS; k++)
                cols_case_run(f32, 1 + test_rng_below(&rng, 300), m, adjacent, (kind)k,
                              NAN_ANYWHERE);
            cols_case_run(f32, 1 + test_rng_below(&rng, 300), m, adjacent, NANS, NAN_LAST);
            cols_case_run(f32, 1 + test_rng_below(&rng, 300), m, adjacent, NANS, NAN_ONE);
        }
        /* many columns: several full tiles and a ragged last one, over a few row chunks */
        for (int rep = 0; rep < 6; rep++)
            cols_case_run(f32, 1 + test_rng_below(&rng, 40), 100 + test_rng_below(&rng, 600),
                          adjacent, (kind)test_rng_below(&rng, KINDS), NAN_ANYWHERE);
        /* more columns than a sum's chunk holds (half of L1 in the input type: at most 8192),
         * so that rows are summed in pieces, the last one ragged */
        for (int rep = 0; rep < 2; rep++)
            cols_case_run(f32, 1 + test_rng_below(&rng, 40), 8193 + test_rng_below(&rng, 800),
                          adjacent, (kind)test_rng_below(&rng, KINDS), NAN_ANYWHERE);
    }
    /* rows far apart, spanning half the last-level cache: the column kernels prefetch the
     * rows ahead (kb_cache_far), past the last row too */
    for (int rep = 0; rep < 4; rep++) {
        int64_t rows = 5 + test_rng_below(&rng, 40), m = 1 + test_rng_below(&rng, 200);
        int64_t stride = kb_cache_llc_bytes() / 2 / rows + 4096;
        stride -= stride % 8;
        static const kind kinds[] = {NANS, REAL, TIES, SPECIAL};
        cols_case c = cols_new(f32, rows, m, false, stride, kinds[rep], NAN_ONE);
        assert_true(kb_cache_far(rows * stride));
        cols_reference_fill(&c);
        for (int64_t j = 0; j < m; j++) /* a NaN to start from sends the call to scalar */
            if (isnan(c.best0[j]))
                c.best0[j] = 0;
        for (int l = 0; l < nlevels; l++) {
            check_cols_sums(&levels[l], &c);
            for (int is_max = 0; is_max < 2; is_max++)
                check_cols_extremes(&levels[l], &c, false, is_max);
        }
        cols_free(&c);
    }
}

static void cols_f32(void **state) {
    cols(true);
    cols_arg_rowwise(true);
}

static void cols_f64(void **state) {
    cols(false);
    cols_arg_rowwise(false);
}

/* ---- Sums of the types widened as they load: float16, bfloat16, int32 ---- */
typedef struct widened {
    kb_sum_type type;
    const char *name;
    int64_t size;
    bool f32_partials;
} widened;

static const widened widened_types[] = {
    {KB_SUM_F16, "f16", 2, true}, {KB_SUM_BF16, "bf16", 2, true}, {KB_SUM_I32, "i32", 4, false}};

/* A random element of w's type stored at p, its value returned: any finite float16 (subnormals
 * included), a bfloat16 within 2^+-40 (so that float32 partials cannot overflow), any int32;
 * with special, an infinity or NaN one time in 40. */
static double widened_put(const widened *w, char *p, bool special) {
    if (w->type == KB_SUM_I32) {
        int32_t i = (int32_t)(uint32_t)test_rng_next(&rng);
        memcpy(p, &i, sizeof i);
        return i;
    }
    uint16_t bits;
    if (special && test_rng_below(&rng, 40) == 0) {
        static const uint16_t f16[] = {0x7c00, 0xfc00, 0x7e00}, bf16[] = {0x7f80, 0xff80, 0x7fc0};
        bits = (w->type == KB_SUM_F16 ? f16 : bf16)[test_rng_below(&rng, 3)];
    } else if (w->type == KB_SUM_F16) {
        do
            bits = (uint16_t)test_rng_next(&rng);
        while ((bits & 0x7c00) == 0x7c00);
    } else {
        uint32_t sign = (uint32_t)test_rng_below(&rng, 2) << 15;
        uint32_t exponent = 127 - 40 + (uint32_t)test_rng_below(&rng, 81);
        bits = (uint16_t)(sign | exponent << 7 | (uint32_t)test_rng_below(&rng, 128));
    }
    memcpy(p, &bits, sizeof bits);
    return w->type == KB_SUM_F16 ? kb_f16_to_f32(bits) : kb_bf16_to_f32(bits);
}

static void widened_run(const widened *w, int64_t n, bool special) {
    buffer b = buffer_new(n * w->size, w->size);
    long double want = 0, magnitude = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = widened_put(w, b.data + i * w->size, special);
        want += v;
        magnitude += isfinite(v) ? fabsl((long double)v) : 0;
    }
    for (int l = 0; l < nlevels; l++) {
        const kb_sum_kernels *k = &levels[l].table->sum[w->type];
        double run = k->run(b.data, n, (n & 1) != 0), row; /* far or not: the same bits */
        k->rows(b.data, 1, n * w->size, n, &row, (n & 2) != 0);
        if (!close_sum_of(w->f32_partials, run, want, magnitude, n) ||
            !close_sum_of(w->f32_partials, row, want, magnitude, n))
            fail_msg("%s sum_%s n=%lld: run %a, rows %a, want %La", kb_simd_name(levels[l].id),
                     w->name, (long long)n, run, row, want);
    }
    free(b.base);
}

/* Many rows of n elements, stride bytes apart, through the rows form: each row's sum. */
static void widened_rows(const widened *w, int64_t rows, int64_t n, bool special) {
    int64_t stride = (n + test_rng_below(&rng, 3)) * w->size;
    buffer b = buffer_new((rows - 1) * stride + n * w->size, w->size);
    long double *want = calloc((size_t)rows, sizeof *want),
                *magnitude = calloc((size_t)rows, sizeof *want);
    double *got = malloc((size_t)rows * sizeof *got);
    assert_true(want && magnitude && got);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < n; j++) {
            double v = widened_put(w, b.data + i * stride + j * w->size, special);
            want[i] += v;
            magnitude[i] += isfinite(v) ? fabsl((long double)v) : 0;
        }
    for (int l = 0; l < nlevels; l++) {
        levels[l].table->sum[w->type].rows(b.data, rows, stride, n, got, (rows & 1) != 0);
        for (int64_t i = 0; i < rows; i++)
            if (!close_sum_of(w->f32_partials, got[i], want[i], magnitude[i], n))
                fail_msg("%s sum_rows_%s rows=%lld n=%lld stride=%lld row %lld: got %a, want %La",
                         kb_simd_name(levels[l].id), w->name, (long long)rows, (long long)n,
                         (long long)stride, (long long)i, got[i], want[i]);
    }
    free(b.base);
    free(want);
    free(magnitude);
    free(got);
}

static void widened_cols(const widened *w, int64_t rows, int64_t m, bool adjacent, bool special) {
    int64_t stride = (m + (adjacent ? 0 : 1 + test_rng_below(&rng, 9))) * w->size;
    buffer b = buffer_new((rows - 1) * stride + m * w->size, w->size);
    long double *want = calloc((size_t)m, sizeof *want),
                *magnitude = calloc((size_t)m, sizeof *want);
    double *acc0 = malloc((size_t)m * sizeof *acc0), *acc = malloc((size_t)m * sizeof *acc);
    assert_true(want && magnitude && acc0 && acc);
    for (int64_t j = 0; j < m; j++) {
        acc0[j] = (2 * test_rng_unit(&rng) - 1) * 8;
        want[j] = acc0[j];
        magnitude[j] = fabsl((long double)acc0[j]);
    }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < m; j++) {
            double v = widened_put(w, b.data + i * stride + j * w->size, special);
            want[j] += v;
            magnitude[j] += isfinite(v) ? fabsl((long double)v) : 0;
        }
    double *far = malloc((size_t)m * sizeof *far);
    assert_non_null(far);
    for (int l = 0; l < nlevels; l++) {
        memcpy(acc, acc0, (size_t)m * sizeof *acc);
        levels[l].table->sum[w->type].cols(b.data, rows, stride, m, acc, false);
        /* Prefetching the rows ahead, and streaming 8 rows at a time from memory rather than 4,
         * change what is read when, never the sums' bits. Only which NaN comes out may differ:
         * x86 returns the first operand's NaN, and the compiler orders the operands of an
         * addition as it likes. */
        memcpy(far, acc0, (size_t)m * sizeof *far);
        levels[l].table->sum[w->type].cols(b.data, rows, stride, m, far, true);
        for (int64_t j = 0; j < m; j++)
            if (memcmp(&far[j], &acc[j], sizeof acc[j]) != 0 && !(isnan(far[j]) && isnan(acc[j])))
                fail_msg("%s sum_cols_%s rows=%lld m=%lld column %lld: far gives other bits "
                         "(%a, not %a)",
                         kb_simd_name(levels[l].id), w->name, (long long)rows, (long long)m,
                         (long long)j, far[j], acc[j]);
        check_cols_ranges(&levels[l], &levels[l].table->sum[w->type], w->name, b.data, rows, stride,
                          m, acc0);
        for (int64_t j = 0; j < m; j++)
            if (!close_sum_of(w->f32_partials, acc[j], want[j], magnitude[j], rows + 1))
                fail_msg("%s sum_cols_%s rows=%lld m=%lld stride=%lld column %lld: got %a, "
                         "want %La",
                         kb_simd_name(levels[l].id), w->name, (long long)rows, (long long)m,
                         (long long)stride, (long long)j, acc[j], want[j]);
    }
    free(b.base);
    free(want);
    free(magnitude);
    free(acc0);
    free(acc);
    free(far);
}

/* Every run length to 70 and longer ones to KB_REDUCE_BLOCK; many rows of every length to 70
 * (the short rows' groups, reduce_sum.h); cols of 1..300 rows and every m to 70, adjacent and
 * padded, and more columns than a chunk holds; each with and without infinities and NaN. */
static void widened_sums(void **state) {
    for (size_t t = 0; t < sizeof widened_types / sizeof widened_types[0]; t++) {
        const widened *w = &widened_types[t];
        for (int special = 0; special < 2; special++) {
            for (int64_t n = 1; n <= 70; n++)
                widened_run(w, n, special);
            for (int rep = 0; rep < 20; rep++)
                widened_run(w, 1 + test_rng_below(&rng, KB_REDUCE_BLOCK), special);
            for (int64_t n = 1; n <= 70; n++)
                widened_rows(w, 1 + test_rng_below(&rng, 40), n, special);
            for (int adjacent = 0; adjacent < 2; adjacent++) {
                for (int64_t m = 1; m <= 70; m++)
                    widened_cols(w, 1 + test_rng_below(&rng, 300), m, adjacent, special);
                widened_cols(w, 1 + test_rng_below(&rng, 40), 8193 + test_rng_below(&rng, 800),
                             adjacent, special);
            }
        }
    }
}

/* The stores against a division and a rounding in C: float16 against kb_f64_to_f16 (test_half
 * holds that one to the definition), at values near float16 midpoints, where rounding through
 * float would round twice, and every special. */
static double f16_hard_value(void) {
    switch (test_rng_below(&rng, 6)) {
        case 0:
            return (double[]){NAN, INFINITY, -INFINITY, 0.0, -0.0, 65520.0, 1e300, 0x1p-25, 0x1p-26}
                [test_rng_below(&rng, 9)];
        case 1: { /* a midpoint of two float16 values, nudged by a few ulps of double */
            double h = kb_f16_to_f32((uint16_t)(test_rng_next(&rng) & 0x7bff));
            double mid = h + ldexp(1, ilogb(h ? h : 0x1p-14) - 11);
            for (int64_t k = test_rng_below(&rng, 5) - 2; k != 0; k += k > 0 ? -1 : 1)
                mid = nextafter(mid, k > 0 ? INFINITY : -INFINITY);
            return test_rng_below(&rng, 2) ? -mid : mid;
        }
        default:
            return (2 * test_rng_unit(&rng) - 1) * ldexp(1, (int)test_rng_below(&rng, 44) - 28);
    }
}

static void stores_round_once(void **state) {
    for (int64_t n = 0; n <= 70; n++)
        for (int rep = 0; rep < 20; rep++) {
            double sums[70], scale = rep % 2 ? 1.0 : (double)(1 + test_rng_below(&rng, 1000));
            uint16_t got16[70];
            float got32[70];
            double got64[70], root64[70];
            float root32[70];
            for (int64_t j = 0; j < n; j++)
                sums[j] = f16_hard_value() * scale;
            for (int l = 0; l < nlevels; l++) {
                const kb_reduce_kernels *t = levels[l].table;
                t->store_f16(sums, n, scale, got16);
                t->store_f32(sums, n, scale, got32);
                t->store_f64(sums, n, scale, got64);
                t->store_sqrt_f32(sums, n, scale, root32);
                t->store_sqrt_f64(sums, n, scale, root64);
                for (int64_t j = 0; j < n; j++) {
                    uint16_t want = kb_f64_to_f16(sums[j] / scale);
                    bool both_nan = (want & 0x7fff) > 0x7c00 && (got16[j] & 0x7fff) > 0x7c00;
                    if ((got16[j] != want && !both_nan) ||
                        !same_value(got32[j], (float)(sums[j] / scale)) ||
                        !same_value(got64[j], sums[j] / scale) ||
                        !same_value(root32[j], (float)sqrt(sums[j] / scale)) ||
                        !same_value(root64[j], sqrt(sums[j] / scale)))
                        fail_msg("%s stores n=%lld: %a / %a gave 0x%04x %a %a, want 0x%04x",
                                 kb_simd_name(levels[l].id), (long long)n, sums[j], scale, got16[j],
                                 got32[j], got64[j], want);
                }
            }
        }
}

int main(void) {
    test_cache_sizes();
    char names[128] = "";
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        kb_simd_level id = (kb_simd_level)l;
        if (!test_level_runs(id))
            continue;
        kb_simd_level runs = kb_simd_table_level(KB_SIMD_FAMILY_REDUCE, id);
        const char *label = kb_simd_name(id);
        char borrowed[32];
        if (runs == id) {
            levels[nlevels++] = (level){id, kb_reduce_kernels_for(id)};
        } else {
            snprintf(borrowed, sizeof borrowed, "(%s=%s)", label, kb_simd_name(runs));
            label = borrowed;
        }
        strncat(names, " ", sizeof names - strlen(names) - 1);
        strncat(names, label, sizeof names - strlen(names) - 1);
    }
#if defined(__aarch64__) && KB_SIMD_BUILT_SVE
    /* SVE's table is the build for the CPU's vector length, where there is one: qemu runs
     * this test at 128, 256 and 512 bits (tests/CMakeLists.txt). */
    if (kb_simd_available(KB_SIMD_SVE)) {
        int bits = kb_cpu_features_get()->sve_vector_bits;
        const kb_reduce_kernels *own = bits == 128   ? kb_reduce_kernels_sve128()
                                       : bits == 256 ? kb_reduce_kernels_sve256()
                                       : bits == 512 ? kb_reduce_kernels_sve512()
                                                     : kb_reduce_kernels_neon();
        if (kb_reduce_kernels_for(KB_SIMD_SVE) != own) {
            printf("the SVE level does not run the %d-bit build\n", bits);
            return 1;
        }
        char vl[32];
        snprintf(vl, sizeof vl, " (sve at %d bits)", bits);
        strncat(names, vl, sizeof names - strlen(names) - 1);
    }
#endif
    printf("levels tested:%s\n", names);
    if (nlevels == 0) { /* every level borrowed another's table: nothing of its own to test */
        printf("no level with kernels of its own to test\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_f32),     cmocka_unit_test(runs_f64),
        cmocka_unit_test(cols_f32),     cmocka_unit_test(cols_f64),
        cmocka_unit_test(widened_sums), cmocka_unit_test(stores_round_once),
        cmocka_unit_test(narrow_rows),  cmocka_unit_test(rows_sums),
        cmocka_unit_test(moments_rows),
    };
    /* Rows from memory read several at once, whatever this machine's choice (kb_reduce_streams):
     * their bits are held to those of one row at a time. */
    kb_reduce_memory_set(true, true);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
