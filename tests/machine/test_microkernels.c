/* The peak microkernels on tiny sizes: the bytes and FLOPs they report against hand-computed
 * counts, and their results against scalar references, for every SIMD level this machine runs
 * (so a kernel the compiler emptied, or one that skipped a tail, fails). The timed drivers
 * run once each with tiny settings to check the pipeline, never how fast it went. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/dispatch.h"
#include "kbench/memory.h"
#include "kbench/peaks.h"
#include "machine/peaks/bandwidth_arena.h"
#include "machine/peaks/bandwidth_kernels.h"

static const int64_t sizes[] = {0, 1, 7, 31, 33, 37, 64, 100, 1000};

/* Values whose sums and triads are exact in any order, fused or not: multiples of 1/4 below
 * 2^20. */
static void fill(double *a, double *b, double *c, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        a[i] = 1 + 0.5 * (double)(i % 97);
        b[i] = (double)i;
        c[i] = 0.25 * (double)(i % 13);
    }
}

static void bandwidth_kernels_count_and_compute(void **state) {
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
        if (!kb_simd_available((kb_simd_level)level))
            continue;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int64_t n = sizes[s];
            /* One element past the end is a canary that no kernel may write. */
            double *a = malloc((size_t)(n + 1) * sizeof(double));
            double *b = malloc((size_t)(n + 1) * sizeof(double));
            double *c = malloc((size_t)(n + 1) * sizeof(double));
            fill(a, b, c, n);
            a[n] = -7;
            double sum = 0;
            for (int64_t i = 0; i < n; i++)
                sum += a[i];
            kb_bw_work w;

            /* load: 8 bytes per element and sweep. */
            assert_int_equal(kb_bw_run(KB_BW_LOAD, (kb_simd_level)level, n, 3, a, NULL, NULL, &w),
                             KB_OK);
            assert_true(w.bytes == 8.0 * n * 3);
            assert_true(w.bytes_with_write_allocate == w.bytes);
            assert_true(w.checksum == sum);

            /* copy: 8 read + 8 written; with write-allocate 24. */
            assert_int_equal(kb_bw_run(KB_BW_COPY, (kb_simd_level)level, n, 2, a, b, NULL, &w),
                             KB_OK);
            assert_true(w.bytes == 16.0 * n * 2);
            assert_true(w.bytes_with_write_allocate == 24.0 * n * 2);
            for (int64_t i = 0; i < n; i++)
                assert_true(a[i] == b[i]);
            assert_true(a[n] == -7);

            /* triad: 16 read + 8 written; with write-allocate 32. */
            assert_int_equal(kb_bw_run(KB_BW_TRIAD, (kb_simd_level)level, n, 1, a, b, c, &w),
                             KB_OK);
            assert_true(w.bytes == 24.0 * n);
            assert_true(w.bytes_with_write_allocate == 32.0 * n);
            for (int64_t i = 0; i < n; i++)
                assert_true(a[i] == b[i] + KB_BW_TRIAD_SCALAR * c[i]);
            assert_true(a[n] == -7);
            free(a);
            free(b);
            free(c);
        }
    }
}

/* load's second layout (the array as k->streams parts read at once, bandwidth_target.h) sums
 * every element once, at each reach, for sizes around whole parts and iterations. */
static void load_reads_every_element_as_several_streams(void **state) {
#define TABLE(ID, name) KB_SIMD_TABLE_ENTRY(ID, &kb_bw_kernels_##name)
    static const kb_bw_kernels *const tables[KB_SIMD_LEVEL_COUNT] = {
        KB_SIMD_BANDWIDTH_TABLES(TABLE)};
#undef TABLE
    static const int64_t lengths[] = {0, 1, 31, 100, 1000, 3 * 64 - 1, 4 * 64 + 5, 12345};
    static const kb_reach reaches[] = {KB_REACH_CACHE, KB_REACH_FAR, KB_REACH_BEYOND};
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
        const kb_bw_kernels *k = tables[level];
        if (!k || !kb_simd_available((kb_simd_level)level))
            continue;
        assert_true(k->streams >= 1);
        for (size_t s = 0; s < sizeof lengths / sizeof lengths[0]; s++) {
            int64_t n = lengths[s];
            double *a = malloc((size_t)(n + 1) * sizeof(double)), sum = 0;
            for (int64_t i = 0; i < n; i++)
                sum += a[i] = 0.25 * (double)(i % 89); /* exact in any order */
            for (size_t r = 0; r < sizeof reaches / sizeof reaches[0]; r++)
                for (int streams = 1; streams <= k->streams; streams++)
                    if (k->load(a, n, reaches[r], streams) != sum)
                        fail_msg("%s load of %lld as %d streams: %g, want %g",
                                 kb_simd_name((kb_simd_level)level), (long long)n, streams,
                                 k->load(a, n, reaches[r], streams), sum);
            free(a);
        }
    }
    (void)state;
}

static void bandwidth_kernels_refuse_bad_arguments(void **state) {
    double a[4] = {0};
    kb_bw_work w;
    assert_int_equal(kb_bw_run(KB_BW_COPY, KB_SIMD_SCALAR, 4, 1, a, NULL, NULL, &w), KB_EINVAL);
    assert_int_equal(kb_bw_run(KB_BW_TRIAD, KB_SIMD_SCALAR, 4, 1, a, a, NULL, &w), KB_EINVAL);
    assert_int_equal(kb_bw_run(KB_BW_LOAD, KB_SIMD_SCALAR, -1, 1, a, NULL, NULL, &w), KB_EINVAL);
    assert_int_equal(kb_bw_run(KB_BW_KERNEL_COUNT, KB_SIMD_SCALAR, 4, 1, a, a, a, &w), KB_EINVAL);
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++)
        if (!kb_simd_available((kb_simd_level)level))
            assert_int_equal(kb_bw_run(KB_BW_LOAD, (kb_simd_level)level, 4, 1, a, NULL, NULL, &w),
                             KB_EUNSUPPORTED);
}

/* Lanes per vector for float32 and float64, and accumulators, of each level's FMA kernel, as
 * the kernels are written: 12 scalar chains; 12 AVX2 and 12 AVX-512 vectors; 16 NEON. */
static const struct {
    int lanes32, lanes64, accumulators;
} shape[KB_SIMD_LEVEL_COUNT] = {[KB_SIMD_SCALAR] = {1, 1, 12},
                                [KB_SIMD_AVX2] = {8, 4, 12},
                                [KB_SIMD_AVX512] = {16, 8, 16},
                                [KB_SIMD_NEON] = {4, 2, 16}};

/* The chains computed one lane at a time: fused multiply-adds for the vector levels, a
 * rounded multiply then an add for the scalar level. */
static double reference(kb_flop_type type, bool fused, int chains, int64_t iterations) {
    double sum = 0;
    for (int k = 0; k < chains; k++) {
        if (type == KB_FLOP_F32) {
            float x = (float)(KB_FMA_INIT + k * KB_FMA_STEP), a = (float)KB_FMA_A,
                  b = (float)KB_FMA_B;
            for (int64_t i = 0; i < iterations; i++) {
                if (fused) {
                    x = fmaf(x, a, b);
                } else {
                    volatile float t = x * a; /* rounded, as the scalar kernel rounds it */
                    x = t + b;
                }
            }
            sum += x;
        } else {
            double x = KB_FMA_INIT + k * KB_FMA_STEP;
            for (int64_t i = 0; i < iterations; i++) {
                if (fused) {
                    x = fma(x, KB_FMA_A, KB_FMA_B);
                } else {
                    volatile double t = x * KB_FMA_A;
                    x = t + KB_FMA_B;
                }
            }
            sum += x;
        }
    }
    return sum;
}

static void fma_kernels_count_and_compute(void **state) {
    static const int64_t iterations[] = {0, 1, 2, 7, 100, 1000};
    int tested = 0;
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++) {
        if (!kb_fma_available((kb_simd_level)level))
            continue;
        tested++;
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++) {
            int lanes = t == KB_FLOP_F32 ? shape[level].lanes32 : shape[level].lanes64;
            int chains = lanes * shape[level].accumulators;
            double previous = -1;
            for (size_t i = 0; i < sizeof iterations / sizeof iterations[0]; i++) {
                int64_t n = iterations[i];
                kb_fma_work w;
                assert_int_equal(kb_fma_run((kb_flop_type)t, (kb_simd_level)level, n, &w), KB_OK);
                assert_int_equal(w.lanes, lanes);
                assert_int_equal(w.accumulators, shape[level].accumulators);
                assert_true(w.flops == 2.0 * chains * (double)n); /* 2 FLOPs per lane update */
                double ref = reference((kb_flop_type)t, level != KB_SIMD_SCALAR, chains, n);
                double tolerance = (t == KB_FLOP_F32 ? 1e-6 : 1e-13) * fabs(ref);
                if (!(fabs(w.checksum - ref) <= tolerance))
                    fail_msg("%s %s, %lld iterations: %.17g, reference %.17g",
                             kb_simd_name((kb_simd_level)level), kb_flop_type_name((kb_flop_type)t),
                             (long long)n, w.checksum, ref);
                /* Each step moves the values: a chain that did not run would not. */
                assert_true(w.checksum != previous);
                previous = w.checksum;
            }
        }
    }
    assert_true(tested >= 2); /* scalar and at least one vector level on x86-64 and aarch64 */
    kb_fma_work w;
    for (int level = 0; level < KB_SIMD_LEVEL_COUNT; level++)
        assert_int_equal(kb_fma_available((kb_simd_level)level),
                         kb_simd_available((kb_simd_level)level) &&
                             kb_simd_table_level(KB_SIMD_FAMILY_FMA, (kb_simd_level)level) ==
                                 (kb_simd_level)level);
    assert_false(kb_fma_available(KB_SIMD_SVE));
    assert_int_equal(kb_fma_run(KB_FLOP_F32, KB_SIMD_SVE, 1, &w), KB_EUNSUPPORTED);
    assert_int_equal(kb_fma_run(KB_FLOP_F32, KB_SIMD_SCALAR, -1, &w), KB_EINVAL);
    assert_int_equal(kb_fma_run(KB_FLOP_TYPE_COUNT, KB_SIMD_SCALAR, 1, &w), KB_EINVAL);
}

static void assert_rate_sane(const kb_rate *r, int repetitions) {
    assert_int_equal(r->repetitions, repetitions);
    assert_true(r->min > 0 && isfinite(r->max));
    assert_true(r->min <= r->median && r->median <= r->max && r->best == r->max);
}

/* The most threads the timed drivers run with: KB_TEST_THREADS (default 2). The cross-built
 * tests set it to 1, since OpenMP teams hang under qemu-user on the project's machines. */
static int test_threads(void) {
    const char *v = getenv("KB_TEST_THREADS");
    int n = v && *v ? atoi(v) : 2;
    return n >= 1 ? n : 2;
}

static void timed_drivers_run(void **state) {
    const kb_measure_settings tiny = {0.001, 2};
    for (int threads = 1; threads <= test_threads() && threads <= 2; threads++) {
        kb_bw_peak p;
        /* 100,000 bytes over 3 arrays: at 1 thread 4166 doubles each, rounded down to whole
         * 64-element blocks, 4160, so 4160 x 8 x 3 = 99,840 bytes; at 2 threads 2083, 2048,
         * 2048 x 8 x 3 x 2 = 98,304. */
        assert_int_equal(kb_bw_measure(KB_BW_TRIAD, KB_SIMD_SCALAR, threads, 100000, &tiny, &p),
                         KB_OK);
        assert_int_equal(p.working_set_bytes, threads == 1 ? 99840 : 98304);
        assert_rate_sane(&p.bytes_per_second, 2);
        /* Too small for one block: one block per array and thread. */
        assert_int_equal(kb_bw_measure(KB_BW_LOAD, kb_simd_best(), threads, 8, &tiny, &p), KB_OK);
        assert_int_equal(p.working_set_bytes, 512 * threads);
        assert_rate_sane(&p.bytes_per_second, 2);

        kb_rate r;
        assert_int_equal(kb_fma_measure(KB_FLOP_F64, KB_SIMD_SCALAR, threads, &tiny, &r), KB_OK);
        assert_rate_sane(&r, 2);
    }
    kb_bw_peak p;
    kb_rate r;
    const kb_measure_settings too_long = {11, 1}, too_many = {0.001, 1000};
    assert_int_equal(kb_bw_measure(KB_BW_LOAD, KB_SIMD_SCALAR, 1, 4096, &too_long, &p), KB_EINVAL);
    assert_int_equal(kb_fma_measure(KB_FLOP_F32, KB_SIMD_SCALAR, 1, &too_many, &r), KB_EINVAL);
    assert_int_equal(kb_fma_measure(KB_FLOP_F32, KB_SIMD_SCALAR, 0, &tiny, &r), KB_EINVAL);
    assert_int_equal(kb_bw_measure(KB_BW_LOAD, KB_SIMD_SCALAR, 1, -1, &tiny, &p), KB_EINVAL);
}

/* The arrays a `kbench peaks` keeps across its measurements (bandwidth_arena.c): a request no
 * larger than what a slot holds gets the same memory back, unfilled; a larger one a new array
 * filled with the value given; each thread and index has its own; measurements through an
 * arena count their working sets as kb_bw_measure does, a large one and then a small one. */
static void arena_keeps_arrays(void **state) {
    (void)state;
    kb_bw_arena *arena = kb_bw_arena_new(2);
    assert_non_null(arena);
    double *a = kb_bw_arena_array(arena, 0, 1, 1024, 2.0);
    assert_non_null(a);
    for (int i = 0; i < 128; i++)
        assert_true(a[i] == 2.0);
    a[0] = 5.0;
    assert_ptr_equal(kb_bw_arena_array(arena, 0, 1, 512, 7.0), a);
    assert_true(a[0] == 5.0 && a[1] == 2.0);
    double *b = kb_bw_arena_array(arena, 0, 1, 4096, 3.0);
    assert_non_null(b);
    for (int i = 0; i < 512; i++)
        assert_true(b[i] == 3.0);
    assert_int_equal((uintptr_t)b % KB_ALIGNMENT, 0);
    double *c = kb_bw_arena_array(arena, 1, 1, 1024, 4.0),
           *d = kb_bw_arena_array(arena, 0, 2, 64, 6.0);
    assert_true(c && d && c != b && d != b && c[0] == 4.0 && d[0] == 6.0 && b[0] == 3.0);
    assert_null(kb_bw_arena_array(arena, 2, 0, 64, 1.0));
    assert_null(kb_bw_arena_array(arena, 0, 3, 64, 1.0));
    kb_bw_arena_free(arena);
    kb_bw_arena_free(NULL);
    assert_null(kb_bw_arena_new(0));

    const kb_measure_settings tiny = {0.001, 2};
    for (int threads = 1; threads <= test_threads() && threads <= 2; threads++) {
        kb_bw_arena *team = kb_bw_arena_new(threads);
        assert_non_null(team);
        kb_bw_peak p;
        assert_int_equal(
            kb_bw_measure_in(team, KB_BW_TRIAD, KB_SIMD_SCALAR, threads, 100000, &tiny, &p), KB_OK);
        assert_int_equal(p.working_set_bytes, threads == 1 ? 99840 : 98304);
        assert_rate_sane(&p.bytes_per_second, 2);
        /* Each thread's three arrays were taken from the arena, filled with 1, 2 and 0.5 (the
         * second and third 1344 and 2688 bytes in, STREAM's stagger), and the triad wrote
         * 2 + 3 * 0.5 into the first: asked for again, smaller, they come back as they are. */
        for (int t = 0; t < threads; t++) {
            const char *kept[3];
            for (int i = 0; i < 3; i++)
                kept[i] = kb_bw_arena_array(team, t, i, 8, 9.0);
            assert_true(kept[0] && kept[1] && kept[2]);
            double first, second, third;
            memcpy(&first, kept[0], sizeof first);
            memcpy(&second, kept[1] + 1344, sizeof second);
            memcpy(&third, kept[2] + 2688, sizeof third);
            assert_true(first == 2 + KB_BW_TRIAD_SCALAR * 0.5 && second == 2.0 && third == 0.5);
        }
        assert_int_equal(kb_bw_measure_in(team, KB_BW_LOAD, kb_simd_best(), threads, 8, &tiny, &p),
                         KB_OK);
        assert_int_equal(p.working_set_bytes, 512 * threads);
        assert_rate_sane(&p.bytes_per_second, 2);
        /* more threads than the arena serves */
        assert_int_equal(
            kb_bw_measure_in(team, KB_BW_LOAD, KB_SIMD_SCALAR, threads + 1, 4096, &tiny, &p),
            KB_EINVAL);
        kb_bw_arena_free(team);
    }
}

static void working_sets_follow_the_caches(void **state) {
    /* 48 KiB L1d and 2 MiB L2 per core, 32 MiB L3 per 16 logical CPUs, 32 of them. */
    kb_cache c[KB_CACHE_LEVEL_COUNT] = {
        [KB_CACHE_L1D] = {48 << 10, 64, 1},
        [KB_CACHE_L1I] = {32 << 10, 64, 1},
        [KB_CACHE_L2] = {2 << 20, 64, 1},
        [KB_CACHE_L3] = {32 << 20, 64, 16},
    };
    /* One thread: half of each cache. */
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_L1, 1, true), 24 << 10);
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_L2, 1, true), 1 << 20);
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_L3, 1, true), 16 << 20);
    /* Four threads: four private halves; the L3 shared four ways, half of each share. */
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_L1, 4, true), 96 << 10);
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_L3, 4, true), 16 << 20);
    /* All 32: two L3 instances, half of each. */
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_L3, 32, true), 32 << 20);
    /* DRAM: four times both L3s, 256 MiB, whatever the threads; at least 1 GiB unless quick
     * (both at most a quarter of memory, which any machine running this test has). */
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_DRAM, 1, true), 256 << 20);
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_DRAM, 32, true), 256 << 20);
    int64_t full = kb_peaks_working_set(c, 32, KB_MEM_DRAM, 1, false);
    int64_t memory = (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    assert_true(full == 1 << 30 || (memory < 4ll << 30 && full == memory / 4));
    /* The cache levels do not depend on quick. */
    assert_int_equal(kb_peaks_working_set(c, 32, KB_MEM_L2, 1, false), 1 << 20);

    /* Nothing known: 32 KiB, 1 MiB, and 8 MiB shared by all; DRAM at least 64 MiB. */
    kb_cache unknown[KB_CACHE_LEVEL_COUNT];
    memset(unknown, 0, sizeof unknown);
    assert_int_equal(kb_peaks_working_set(unknown, 2, KB_MEM_L1, 1, true), 16 << 10);
    assert_int_equal(kb_peaks_working_set(unknown, 2, KB_MEM_L2, 2, true), 1 << 20);
    assert_int_equal(kb_peaks_working_set(unknown, 2, KB_MEM_L3, 1, true), 4 << 20);
    assert_int_equal(kb_peaks_working_set(unknown, 2, KB_MEM_L3, 2, true), 4 << 20);
    assert_int_equal(kb_peaks_working_set(unknown, 2, KB_MEM_DRAM, 2, true), 64 << 20);
}

/* The curves: 4 KiB per thread, four points per octave in whole 512-byte blocks of each array
 * per thread, up to four times the last-level cache the threads occupy, then the DRAM working
 * set. */
static void curve_working_sets(void **state) {
    kb_cache c[KB_CACHE_LEVEL_COUNT] = {
        [KB_CACHE_L1D] = {48 << 10, 64, 1},
        [KB_CACHE_L2] = {2 << 20, 64, 1},
        [KB_CACHE_L3] = {32 << 20, 64, 16},
    };
    int64_t ws[KB_BW_CURVE_MAX_POINTS];
    /* One thread: 4 KiB to 4 x 32 MiB, fifteen octaves of four points and the last, then
     * DRAM's 256 MiB (quick). Each octave starts at a power of two; 4 KiB x 2^(1/4) is 9.51
     * blocks, rounded to 10. */
    int n = kb_bw_curve_working_sets(KB_BW_LOAD, c, 32, 1, true, ws, KB_BW_CURVE_MAX_POINTS);
    assert_int_equal(n, 62);
    assert_int_equal(ws[0], 4 << 10);
    assert_int_equal(ws[1], 5120);
    assert_int_equal(ws[4], 8 << 10);
    assert_int_equal(ws[40], 4 << 20);
    assert_int_equal(ws[60], 128 << 20);
    assert_int_equal(ws[61], kb_peaks_working_set(c, 32, KB_MEM_DRAM, 1, true));
    for (int i = 1; i < n; i++) {
        assert_true(ws[i] > ws[i - 1]);
        assert_int_equal(ws[i] % 512, 0);
        if (i < 61)
            assert_true((double)ws[i] / (double)ws[i - 1] < 1.26);
    }
    /* Four threads: 16 KiB to 4 x the one L3 they share, in blocks of four threads. */
    n = kb_bw_curve_working_sets(KB_BW_LOAD, c, 32, 4, true, ws, KB_BW_CURVE_MAX_POINTS);
    assert_int_equal(ws[0], 16 << 10);
    assert_int_equal(ws[n - 2], 128 << 20);
    for (int i = 0; i < n; i++)
        assert_int_equal(ws[i] % 2048, 0);
    /* Room for five: four points and the DRAM working set. */
    assert_int_equal(kb_bw_curve_working_sets(KB_BW_LOAD, c, 32, 1, true, ws, 5), 5);
    assert_int_equal(ws[3], 6656);
    assert_int_equal(ws[4], 256 << 20);
    /* Triad: three arrays of whole blocks per thread, 1536 bytes a step, so that each size is
     * the working set kb_bw_measure measures; sizes that round alike are one point (4 KiB and
     * 4 KiB x 2^(1/4) are both three steps). The DRAM working set is rounded down alike. */
    n = kb_bw_curve_working_sets(KB_BW_TRIAD, c, 32, 1, true, ws, KB_BW_CURVE_MAX_POINTS);
    assert_int_equal(ws[0], 4608);
    assert_int_equal(ws[1], 6144);
    assert_int_equal(ws[2], 7680);
    assert_int_equal(ws[n - 1], (256 << 20) / 1536 * 1536);
    for (int i = 1; i < n; i++) {
        assert_true(ws[i] > ws[i - 1]);
        assert_int_equal(ws[i] % 1536, 0);
    }
    /* Copy at two threads: 2 x 2 x 512 bytes a step. */
    n = kb_bw_curve_working_sets(KB_BW_COPY, c, 32, 2, true, ws, KB_BW_CURVE_MAX_POINTS);
    assert_int_equal(ws[0], 8 << 10);
    for (int i = 0; i < n; i++)
        assert_int_equal(ws[i] % 2048, 0);
}

static void names(void **state) {
    assert_string_equal(kb_bw_kernel_name(KB_BW_TRIAD), "triad");
    assert_string_equal(kb_bw_kernel_name(KB_BW_KERNEL_COUNT), "?");
    assert_string_equal(kb_mem_level_name(KB_MEM_DRAM), "DRAM");
    assert_string_equal(kb_flop_type_name(KB_FLOP_F64), "float64");
    kb_bw_traffic t;
    kb_bw_kernel_traffic(KB_BW_TRIAD, &t);
    assert_int_equal(t.read_bytes, 16);
    assert_int_equal(t.write_bytes, 8);
    assert_int_equal(t.write_allocate_bytes, 8);
}

int main(void) {
    /* The whole file takes well under a second (a few under qemu); a hang, such as a qemu-user
     * that cannot start threads, fails after two minutes instead of at CTest's timeout. */
    alarm(120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bandwidth_kernels_count_and_compute),
        cmocka_unit_test(load_reads_every_element_as_several_streams),
        cmocka_unit_test(bandwidth_kernels_refuse_bad_arguments),
        cmocka_unit_test(fma_kernels_count_and_compute),
        cmocka_unit_test(timed_drivers_run),
        cmocka_unit_test(arena_keeps_arrays),
        cmocka_unit_test(working_sets_follow_the_caches),
        cmocka_unit_test(curve_working_sets),
        cmocka_unit_test(names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
