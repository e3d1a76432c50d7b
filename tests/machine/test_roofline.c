/* Roofline metrics against values computed by hand (in the comments), the plausibility flags
 * at and around their thresholds, the bounds interpolated from measured peaks, the bound taken
 * from a figure's history with the run's probe, and the flags' explanations. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/roofline.h"

static void assert_near(double actual, double expected) {
    double tolerance = 1e-12 * fmax(1.0, fabs(expected));
    if (!(fabs(actual - expected) <= tolerance))
        fail_msg("%.17g is not %.17g", actual, expected);
}

/* Two threads: L1 100 GB/s, L2 50, L3 30, DRAM 10; 200 GFLOP/s; 64 KiB of L1, 2 MiB of L2 and
 * 32 MiB of L3 between them. */
static kb_roofline_peaks test_peaks(void) {
    kb_roofline_peaks p;
    memset(&p, 0, sizeof p);
    p.threads = 2;
    p.bytes_per_second[KB_MEM_L1] = 100e9;
    p.bytes_per_second[KB_MEM_L2] = 50e9;
    p.bytes_per_second[KB_MEM_L3] = 30e9;
    p.bytes_per_second[KB_MEM_DRAM] = 10e9;
    p.flops_per_second = 200e9;
    p.capacity[KB_MEM_L1] = 64 << 10;
    p.capacity[KB_MEM_L2] = 2 << 20;
    p.capacity[KB_MEM_L3] = 32 << 20;
    return p;
}

/* The bandwidth bound of a working set a fraction f of which fits the level above. */
static double mixed(double above, double own, double f) {
    return 1 / (f / above + (1 - f) / own);
}

/* 1 GiB in DRAM, 1/32 of which fits the 32 MiB of L3. */
#define DRAM_WS ((int64_t)1 << 30)
#define DRAM_BW mixed(30e9, 10e9, 1.0 / 32)

static kb_roofline compute(double seconds, double bytes, double flops, int64_t ws) {
    kb_roofline_peaks p = test_peaks();
    kb_roofline_input in = {seconds, bytes, flops, ws, 0};
    kb_roofline r;
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    return r;
}

static void memory_bound_in_dram(void **state) {
    /* 8 MB and 1 MFLOP in 1 ms, 1 GiB working set (32 times the 32 MiB of L3, which serves at
     * most 1/32 of it): 8 GB/s, 1 GFLOP/s, 0.125 FLOP/byte. The bandwidth bound is
     * 1 / (1/32 / 30e9 + 31/32 / 10e9) = 10.213e9 (written as 10e9 x 480/470 below): the
     * bytes need 0.7833 ms, the FLOPs 1e6 / 200e9 = 5 us: memory-bound, 78.33% of the bound
     * and of that bandwidth, 0.5% of the FLOP peak; bound at that intensity 0.125 x 10.213e9. */
    kb_roofline r = compute(1e-3, 8e6, 1e6, (int64_t)1 << 30);
    double bandwidth = DRAM_BW;
    assert_near(bandwidth, 10e9 * 480 / 470);
    assert_near(r.peak_bytes_per_second, bandwidth);
    assert_int_equal(r.level, KB_MEM_DRAM);
    assert_near(r.bytes_per_second, 8e9);
    assert_near(r.flops_per_second, 1e9);
    assert_near(r.intensity, 0.125);
    assert_near(r.bound_seconds, 8e6 / bandwidth);
    assert_near(r.bound_flops_per_second, 0.125 * bandwidth);
    assert_near(r.percent_of_bound, 8e9 / bandwidth * 100);
    assert_near(r.percent_of_bandwidth, 8e9 / bandwidth * 100);
    assert_near(r.percent_of_flops, 0.5);
    assert_true(r.memory_bound);
    assert_true(r.bound_known);
    assert_int_equal(r.flags, 0);
    /* 64 MiB: half of it may come from L3, 1 / (0.5 / 30e9 + 0.5 / 10e9) = 15 GB/s; 16 MiB
     * is in L3, an eighth of it may come from L2. */
    assert_near(compute(1e-3, 8e6, 0, 64 << 20).peak_bytes_per_second, 15e9);
    assert_near(compute(1e-3, 8e6, 0, 16 << 20).peak_bytes_per_second, mixed(50e9, 30e9, 0.125));
}

static void compute_bound_in_l1_is_suspicious_high(void **state) {
    /* 100 kB and 19 MFLOP in 100 us, 16 KiB: memory 1e5 / 100e9 = 1 us, compute 1.9e7 / 200e9
     * = 95 us: compute-bound at 95% (> 90%); 1 GB/s is 1% of L1; 190 GFLOP/s is 95%. */
    kb_roofline r = compute(1e-4, 1e5, 1.9e7, 16 << 10);
    assert_int_equal(r.level, KB_MEM_L1);
    assert_near(r.intensity, 190);
    assert_near(r.bound_seconds, 9.5e-5);
    assert_near(r.bound_flops_per_second, 200e9);
    assert_near(r.percent_of_bound, 95);
    assert_near(r.percent_of_flops, 95);
    assert_near(r.percent_of_bandwidth, 1);
    assert_false(r.memory_bound);
    assert_int_equal(r.flags, KB_ROOFLINE_SUSPICIOUS_HIGH);
}

static void above_the_bound_is_impossible(void **state) {
    /* The DRAM case 1.6 times faster than its bound: 160%; impossible only, not also
     * suspicious-high. */
    kb_roofline r = compute(8e6 / DRAM_BW / 1.6, 8e6, 1e6, DRAM_WS);
    assert_near(r.percent_of_bound, 160);
    assert_near(r.percent_of_bandwidth, 160);
    assert_int_equal(r.flags, KB_ROOFLINE_IMPOSSIBLE);
}

static void thresholds(void **state) {
    /* Exactly 100% (the same double over itself) is possible, if suspicious; either side of
     * 90% and 10%. The bound is 8e6 / DRAM_BW, about 0.78 ms. */
    double b = 8e6 / DRAM_BW;
    assert_int_equal(compute(b, 8e6, 0, DRAM_WS).flags, KB_ROOFLINE_SUSPICIOUS_HIGH);
    assert_int_equal(compute(b / 0.901, 8e6, 0, DRAM_WS).flags, KB_ROOFLINE_SUSPICIOUS_HIGH);
    assert_int_equal(compute(b / 0.899, 8e6, 0, DRAM_WS).flags, 0);
    assert_int_equal(compute(b / 0.101, 8e6, 0, DRAM_WS).flags, 0);
    assert_int_equal(compute(b / 0.099, 8e6, 0, DRAM_WS).flags, KB_ROOFLINE_SUSPICIOUS_LOW);
}

static void slow_large_case_is_suspicious_low(void **state) {
    /* 8 MB at 8% of the DRAM bandwidth; the bound (0.78 ms) is far above 10 us. */
    kb_roofline r = compute(8e6 / DRAM_BW / 0.08, 8e6, 0, DRAM_WS);
    assert_near(r.percent_of_bound, 8);
    assert_int_equal(r.flags, KB_ROOFLINE_SUSPICIOUS_LOW);
}

static void small_case_is_not_suspicious_low(void **state) {
    /* 8 kB in L1 needs 8e3 / 100e9 = 80 ns: a call taking 10 us (0.8%) is call overhead, not a
     * suspicious kernel. With the size criterion lowered to 50 ns it is flagged. */
    kb_roofline r = compute(1e-5, 8e3, 0, 8 << 10);
    assert_near(r.bound_seconds, 8e-8);
    assert_near(r.percent_of_bound, 0.8);
    assert_int_equal(r.flags, 0);

    kb_roofline_peaks p = test_peaks();
    kb_roofline_input in = {1e-5, 8e3, 0, 8 << 10, 5e-8};
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    assert_int_equal(r.flags, KB_ROOFLINE_SUSPICIOUS_LOW);
}

static void copy_without_flops(void **state) {
    /* 2 MB moved in 50 us with a 1 MiB working set (L2, a sixteenth of which fits L1): 40 GB/s
     * of 51.6; intensity 0, no FLOP bound, memory-bound. */
    kb_roofline r = compute(5e-5, 2e6, 0, 1 << 20);
    double bandwidth = mixed(100e9, 50e9, 1.0 / 16);
    assert_int_equal(r.level, KB_MEM_L2);
    assert_near(r.intensity, 0);
    assert_near(r.bound_seconds, 2e6 / bandwidth);
    assert_near(r.percent_of_bound, 40e9 / bandwidth * 100);
    assert_near(r.percent_of_flops, 0);
    assert_true(isnan(r.bound_flops_per_second));
    assert_true(r.memory_bound);
}

static void flops_without_bytes(void **state) {
    /* 1 MFLOP from registers in 10 us: 100 GFLOP/s, 50% of the peak; infinite intensity. */
    kb_roofline r = compute(1e-5, 0, 1e6, 0);
    assert_true(isinf(r.intensity));
    assert_near(r.bound_seconds, 5e-6);
    assert_near(r.percent_of_bound, 50);
    assert_near(r.percent_of_bandwidth, 0);
    assert_false(r.memory_bound);
}

static void working_set_levels_at_capacity(void **state) {
    assert_int_equal(compute(1, 1, 0, 0).level, KB_MEM_L1);
    assert_int_equal(compute(1, 1, 0, 64 << 10).level, KB_MEM_L1);
    assert_int_equal(compute(1, 1, 0, (64 << 10) + 1).level, KB_MEM_L2);
    assert_int_equal(compute(1, 1, 0, 2 << 20).level, KB_MEM_L2);
    assert_int_equal(compute(1, 1, 0, 32 << 20).level, KB_MEM_L3);
    assert_int_equal(compute(1, 1, 0, (32 << 20) + 1).level, KB_MEM_DRAM);
}

static void unknown_peak_gives_no_bound(void **state) {
    kb_roofline_peaks p = test_peaks();
    p.bytes_per_second[KB_MEM_L3] = 0;
    kb_roofline_input in = {1e-3, 8e6, 1e6, 8 << 20, 0};
    kb_roofline r;
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    assert_int_equal(r.level, KB_MEM_L3);
    assert_false(r.bound_known);
    assert_true(isnan(r.percent_of_bound) && isnan(r.percent_of_bandwidth));
    assert_near(r.percent_of_flops, 0.5); /* that peak is known */
    assert_int_equal(r.flags, 0);

    /* FLOPs without a FLOP peak (an unmeasured level): no bound either. */
    p = test_peaks();
    p.flops_per_second = 0;
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    assert_false(r.bound_known);
    assert_true(isnan(r.percent_of_flops));
}

static void bad_inputs_are_refused(void **state) {
    kb_roofline_peaks p = test_peaks();
    kb_roofline r;
    kb_roofline_input zero_time = {0, 1, 1, 1, 0}, negative = {1, -1, 0, 1, 0},
                      no_work = {1, 0, 0, 1, 0}, nan_flops = {1, 1, NAN, 1, 0};
    assert_int_equal(kb_roofline_compute(&zero_time, &p, &r), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "time"));
    assert_int_equal(kb_roofline_compute(&negative, &p, &r), KB_EINVAL);
    assert_int_equal(kb_roofline_compute(&no_work, &p, &r), KB_EINVAL);
    assert_int_equal(kb_roofline_compute(&nan_flops, &p, &r), KB_EINVAL);
}

static void flag_names(void **state) {
    char buf[64];
    kb_roofline_flags_describe(0, buf, sizeof buf);
    assert_string_equal(buf, "");
    kb_roofline_flags_describe(KB_ROOFLINE_IMPOSSIBLE | KB_ROOFLINE_SUSPICIOUS_LOW, buf,
                               sizeof buf);
    assert_string_equal(buf, "impossible,suspicious-low");
    assert_string_equal(kb_roofline_flag_name(KB_ROOFLINE_SUSPICIOUS_HIGH), "suspicious-high");
    assert_string_equal(kb_roofline_flag_name(8), "?");
}

/* Measured peaks at 1 thread and 4: load 50 and 180 GB/s in L1, float64 avx512 40 and 150
 * GFLOP/s; 32 KiB L1d and 1 MiB L2 private, 32 MiB L3 shared by 8. */
static kb_peaks measured(void) {
    kb_peaks p;
    memset(&p, 0, sizeof p);
    p.sets[0].threads = 1;
    p.sets[1].threads = 4;
    for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
        p.sets[0].bandwidth[KB_BW_LOAD][l].bytes_per_second.best = 50e9 / (l + 1);
        p.sets[1].bandwidth[KB_BW_LOAD][l].bytes_per_second.best = 180e9 / (l + 1);
        p.sets[0].bandwidth[KB_BW_COPY][l].bytes_per_second.best = 1e9;
    }
    p.sets[0].flops[KB_FLOP_F64][KB_SIMD_AVX512].best = 40e9;
    p.sets[1].flops[KB_FLOP_F64][KB_SIMD_AVX512].best = 150e9;
    p.caches[KB_CACHE_L1D] = (kb_cache){32 << 10, 64, 1};
    p.caches[KB_CACHE_L2] = (kb_cache){1 << 20, 64, 1};
    p.caches[KB_CACHE_L3] = (kb_cache){32 << 20, 64, 8};
    return p;
}

static void bounds_between_thread_counts(void **state) {
    kb_peaks m = measured();
    kb_roofline_peaks p;
    /* 1 thread: the one-thread peaks. */
    assert_int_equal(kb_roofline_peaks_from(&m, 1, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    assert_near(p.bytes_per_second[KB_MEM_L1], 50e9);
    assert_near(p.bytes_per_second[KB_MEM_DRAM], 12.5e9);
    assert_near(p.flops_per_second, 40e9);
    assert_int_equal(p.capacity[KB_MEM_L1], 32 << 10);
    assert_int_equal(p.capacity[KB_MEM_L3], 32 << 20);
    /* 2 threads: min(2 x 50, 180) = 100 GB/s, min(2 x 40, 150) = 80 GFLOP/s; two private L1s
     * and L2s, one L3. */
    assert_int_equal(kb_roofline_peaks_from(&m, 2, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    assert_near(p.bytes_per_second[KB_MEM_L1], 100e9);
    assert_near(p.flops_per_second, 80e9);
    assert_int_equal(p.capacity[KB_MEM_L1], 64 << 10);
    assert_int_equal(p.capacity[KB_MEM_L2], 2 << 20);
    assert_int_equal(p.capacity[KB_MEM_L3], 32 << 20);
    /* 3 threads: min(150, 180) and min(120, 150). */
    assert_int_equal(kb_roofline_peaks_from(&m, 3, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    assert_near(p.bytes_per_second[KB_MEM_L1], 150e9);
    assert_near(p.flops_per_second, 120e9);
    /* 4 and 9 threads: the all-cores peaks; 9 threads span two L3 instances. */
    assert_int_equal(kb_roofline_peaks_from(&m, 9, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    assert_near(p.bytes_per_second[KB_MEM_L2], 90e9);
    assert_near(p.flops_per_second, 150e9);
    assert_int_equal(p.capacity[KB_MEM_L3], 64 << 20);
    /* Unmeasured: copy at 2 threads (no all-cores copy peak), float32 anywhere. */
    assert_int_equal(kb_roofline_peaks_from(&m, 2, KB_BW_COPY, KB_FLOP_F32, KB_SIMD_AVX512, &p),
                     KB_OK);
    assert_near(p.bytes_per_second[KB_MEM_L1], 0);
    assert_near(p.flops_per_second, 0);
    /* An all-cores peak measured below the one-thread peak (cores shared with other work):
     * the one-thread peak bounds every thread count. */
    m.sets[1].flops[KB_FLOP_F64][KB_SIMD_AVX512].best = 30e9;
    for (int threads = 2; threads <= 9; threads += 7) {
        assert_int_equal(
            kb_roofline_peaks_from(&m, threads, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
            KB_OK);
        assert_near(p.flops_per_second, 40e9);
    }
}

static void bounds_refuse_bad_arguments(void **state) {
    kb_peaks m = measured();
    kb_roofline_peaks p;
    assert_int_equal(kb_roofline_peaks_from(&m, 0, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_EINVAL);
    assert_int_equal(
        kb_roofline_peaks_from(&m, 1, KB_BW_KERNEL_COUNT, KB_FLOP_F64, KB_SIMD_AVX512, &p),
        KB_EINVAL);
    kb_peaks empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(kb_roofline_peaks_from(&empty, 1, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_EINVAL);
}

/* Capacities saturate rather than overflow (fuzz_peaks found the overflow with caches from a
 * peaks file): a huge cache times many instances, a huge thread count, a cache shared by
 * INT_MAX CPUs; an unknown or negative size is no capacity. */
static void capacities_do_not_overflow(void **state) {
    kb_peaks m = measured();
    kb_roofline_peaks p;
    m.caches[KB_CACHE_L1D] = (kb_cache){(int64_t)1 << 62, 64, 1};
    m.caches[KB_CACHE_L2] = (kb_cache){1 << 20, 64, INT32_MAX};
    m.caches[KB_CACHE_L3] = (kb_cache){-5, 64, 8};
    assert_int_equal(
        kb_roofline_peaks_from(&m, INT32_MAX, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p), KB_OK);
    assert_true(p.capacity[KB_MEM_L1] == INT64_MAX);
    assert_int_equal(p.capacity[KB_MEM_L2], 1 << 20);
    assert_int_equal(p.capacity[KB_MEM_L3], 0);
    assert_int_equal(kb_roofline_peaks_from(&m, 4, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    assert_true(p.capacity[KB_MEM_L1] == INT64_MAX);
    assert_int_equal(p.capacity[KB_MEM_L2], 1 << 20);
}

/* One-thread DRAM load measured at 40, 41 and a wild 200 GB/s, a minute apart from
 * 2026-01-01T00:00:00Z: the bound is 41, measured at 00:01:00. */
static kb_peaks with_history(void) {
    kb_peaks p;
    memset(&p, 0, sizeof p);
    p.sets[0].threads = p.sets[1].threads = 1;
    static const double v[] = {40e9, 41e9, 200e9};
    for (int i = 0; i < 3; i++)
        kb_peak_history_add(&p.sets[0].bandwidth[KB_BW_LOAD][KB_MEM_DRAM].history,
                            1767225600 + 60 * i, v[i]);
    p.sets[0].bandwidth[KB_BW_LOAD][KB_MEM_DRAM].bytes_per_second.best = 200e9;
    p.sets[1] = p.sets[0];
    return p;
}

/* GB/s at DRAM against the history, with this run's probe (0: none). */
static kb_roofline at_dram(double gbytes, double probe) {
    kb_peaks m = with_history();
    kb_roofline_peaks p;
    assert_int_equal(kb_roofline_peaks_from(&m, 1, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_SCALAR, &p),
                     KB_OK);
    p.probe_bytes_per_second[KB_MEM_DRAM] = probe;
    kb_roofline_input in = {1e-3, gbytes * 1e6, 0, (int64_t)1 << 40, 0};
    kb_roofline r;
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    return r;
}

static void bound_is_the_highest_credible_figure(void **state) {
    kb_peaks m = with_history();
    kb_roofline_peaks p;
    assert_int_equal(kb_roofline_peaks_from(&m, 1, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_SCALAR, &p),
                     KB_OK);
    assert_near(p.bytes_per_second[KB_MEM_DRAM], 41e9);
    const kb_roofline_figure *f = &p.bandwidth_figure[KB_MEM_DRAM];
    assert_int_equal(f->threads, 1);
    assert_near(f->value, 41e9);
    assert_int_equal(f->measured_at, 1767225660);
    assert_near(f->highest, 200e9);
    assert_int_equal(f->count, 3);
    /* A figure without history (peaks written by hand) stands for itself. */
    assert_near(p.bytes_per_second[KB_MEM_L1], 0);
    m.sets[0].bandwidth[KB_BW_LOAD][KB_MEM_L1].bytes_per_second.best = 90e9;
    m.measured_at = 1767225600;
    assert_int_equal(kb_roofline_peaks_from(&m, 1, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_SCALAR, &p),
                     KB_OK);
    assert_near(p.bytes_per_second[KB_MEM_L1], 90e9);
    assert_int_equal(p.bandwidth_figure[KB_MEM_L1].measured_at, 1767225600);
}

static void impossible_explains_itself(void **state) {
    /* 42 GB/s against 41: impossible, though below the 200 set aside, which is more than
     * twice 41 (KB_ROOFLINE_MODE_RATIO): a stray, not a mode. */
    kb_roofline r = at_dram(42, 0);
    assert_int_equal(r.flags, KB_ROOFLINE_IMPOSSIBLE);
    assert_string_equal(r.figure_name, "load DRAM");
    char why[320];
    kb_roofline_explain(&r, why, sizeof why);
    assert_string_equal(why, "above load DRAM at 1 thread: 41.0 GB/s measured "
                             "2026-01-01T00:01:00Z; highest seen 200.0 GB/s, set aside as an "
                             "outlier (3 measurements)");
    /* Unflagged results need no explanation. */
    r = at_dram(20, 0);
    assert_int_equal(r.flags, 0);
    kb_roofline_explain(&r, why, sizeof why);
    assert_string_equal(why, "");
}

static void a_result_corroborating_an_upper_mode_is_suspicious_high(void **state) {
    /* Steady at 39 GB/s, once 52 (set aside: more than 25% above 39). 45 GB/s is 115% of 39
     * but not above 52, which is within twice 39: suspicious-high; 53 is impossible. */
    kb_peaks m;
    memset(&m, 0, sizeof m);
    m.sets[0].threads = m.sets[1].threads = 1;
    const double seen[] = {38e9, 39e9, 52e9, 38.5e9};
    for (int i = 0; i < 4; i++)
        kb_peak_history_add(&m.sets[0].bandwidth[KB_BW_LOAD][KB_MEM_DRAM].history,
                            1767225600 + 60 * i, seen[i]);
    m.sets[1] = m.sets[0];
    kb_roofline_peaks p;
    assert_int_equal(kb_roofline_peaks_from(&m, 1, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_SCALAR, &p),
                     KB_OK);
    assert_near(p.bytes_per_second[KB_MEM_DRAM], 39e9);
    kb_roofline_input in = {1e-3, 45e6, 0, (int64_t)1 << 40, 0};
    kb_roofline r;
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    assert_int_equal(r.flags, KB_ROOFLINE_SUSPICIOUS_HIGH);
    char why[320];
    kb_roofline_explain(&r, why, sizeof why);
    assert_string_equal(why, "above load DRAM at 1 thread (39.0 GB/s), but not above the 52.0 "
                             "GB/s set aside as an outlier, which it corroborates (4 "
                             "measurements)");
    in.bytes = 53e6;
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    assert_int_equal(r.flags, KB_ROOFLINE_IMPOSSIBLE);
}

static void above_the_runs_probe_is_suspicious_high(void **state) {
    /* 36 GB/s: 87.8% of the bound, but above this run's probe of 35: suspicious-high. */
    kb_roofline r = at_dram(36, 35e9);
    assert_int_equal(r.flags, KB_ROOFLINE_SUSPICIOUS_HIGH);
    assert_near(r.above_probe, 35e9);
    char why[320];
    kb_roofline_explain(&r, why, sizeof why);
    assert_string_equal(why, "above this run's probe of load DRAM at 1 thread (35.0 GB/s); "
                             "highest seen 200.0 GB/s, set aside as an outlier (3 measurements)");
    /* Below the probe and under 90%: nothing. */
    r = at_dram(34, 35e9);
    assert_int_equal(r.flags, 0);
    /* 34 GB/s of a probe at 35 (a working set in DRAM alone, so the probe as measured) */
    assert_near(r.percent_of_probe, 100 * 34.0 / 35.0);
    /* no probe: no share of one */
    r = at_dram(34, 0);
    assert_true(isnan(r.percent_of_probe));
    /* A probe above the history raises the bound: 45 GB/s is 90% of a probe at 50, not
     * impossible against the 41 of the history. */
    r = at_dram(45, 50e9);
    assert_int_equal(r.flags, 0);
    assert_near(r.peak_bytes_per_second, 50e9);
}

/* Load curves on measured(): at 1 thread 100, 90, 80, 50, 70 and 20 GB/s at 1, 2, 4, 5, 6 and
 * 16 MiB (the 50 a low glitch); at 4 threads three times as much at the same sizes, except
 * that the 4 MiB point is missing there. */
static kb_peaks with_curves(void) {
    kb_peaks m = measured();
    static const int64_t mib[] = {1, 2, 4, 5, 6, 16};
    static const double gbytes[] = {100, 90, 80, 50, 70, 20};
    for (int i = 0; i < 6; i++) {
        kb_bw_curve_point *one =
            &m.sets[0].curves[KB_BW_LOAD].points[m.sets[0].curves[KB_BW_LOAD].count++];
        one->working_set_bytes = mib[i] << 20;
        one->bytes_per_second.best = gbytes[i] * 1e9;
        if (mib[i] == 4)
            continue;
        kb_bw_curve_point *all =
            &m.sets[1].curves[KB_BW_LOAD].points[m.sets[1].curves[KB_BW_LOAD].count++];
        all->working_set_bytes = mib[i] << 20;
        all->bytes_per_second.best = 3 * gbytes[i] * 1e9;
    }
    return m;
}

/* The bounds of a kind of traffic at threads threads (float64 avx512 FLOPs), from peaks m. */
static kb_roofline_peaks bounds_of(const kb_peaks *m, int threads, kb_bw_kernel traffic) {
    kb_roofline_peaks p;
    assert_int_equal(kb_roofline_peaks_from(m, threads, traffic, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    return p;
}

/* GB/s of a kind of traffic over a working set, against peaks m. */
static kb_roofline traffic_on(const kb_peaks *m, kb_bw_kernel traffic, int threads, double gbytes,
                              int64_t ws) {
    kb_roofline_peaks p = bounds_of(m, threads, traffic);
    kb_roofline_input in = {1e-3, gbytes * 1e6, 0, ws, 0};
    kb_roofline r;
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    return r;
}

/* GB/s of loads over a working set at threads threads, against with_curves(). */
static kb_roofline on_curve(int threads, double gbytes, int64_t ws) {
    kb_peaks m = with_curves();
    return traffic_on(&m, KB_BW_LOAD, threads, gbytes, ws);
}

static void curve_bounds_a_load_at_its_working_set(void **state) {
    kb_peaks m = with_curves();
    kb_roofline_peaks p;
    /* Both curves' sizes merged: 1, 2, 4, 5, 6, 16 MiB. At 2 threads each is
     * min(2 x one-thread, all-cores) from the point of each curve at or below it: at 4 MiB
     * min(160, 3 x 90 from the all-cores 2 MiB point) = 160. */
    assert_int_equal(kb_roofline_peaks_from(&m, 2, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    assert_int_equal(p.curve_points, 6);
    assert_int_equal(p.curve_working_set[2], 4 << 20);
    assert_near(p.curve_bytes_per_second[0], 200e9);
    assert_near(p.curve_bytes_per_second[2], 160e9);
    assert_int_equal(p.curve_figure[2].threads, 1);
    assert_near(p.curve_bytes_per_second[5], 40e9);
    /* Copy has no curve. */
    assert_int_equal(kb_roofline_peaks_from(&m, 2, KB_BW_COPY, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    assert_int_equal(p.curve_points, 0);

    /* 1 thread at 4 MiB: the curve's 80 GB/s, far above the level's (L3, 16.7 GB/s raised for
     * the quarter that fits the 1 MiB L2 at 25 GB/s): 60 GB/s is 75%, 88 is impossible. */
    kb_roofline r = on_curve(1, 60, 4 << 20);
    assert_near(r.peak_bytes_per_second, 80e9);
    assert_near(r.percent_of_bound, 75);
    assert_int_equal(r.flags, 0);
    assert_string_equal(r.figure_name, "load at 4 MiB");
    r = on_curve(1, 88, 4 << 20);
    assert_int_equal(r.flags, KB_ROOFLINE_IMPOSSIBLE);
    char why[256];
    kb_roofline_explain(&r, why, sizeof why);
    assert_non_null(strstr(why, "above load at 4 MiB at 1 thread: 80.0 GB/s"));
    /* 3 MiB: no point within half an octave below; the 2 MiB point at or below it bounds it. */
    assert_near(on_curve(1, 1, 3 << 20).peak_bytes_per_second, 90e9);
    /* 5.5 MiB: the low 5 MiB point does not lower the bound; 4 MiB is in the window. */
    assert_near(on_curve(1, 1, (11 << 20) / 2).peak_bytes_per_second, 80e9);
    /* Below the first point: the first point. */
    assert_near(on_curve(1, 1, 512 << 10).peak_bytes_per_second, 100e9);
    /* 1 GiB: the 16 MiB point, above the level's DRAM figure of 12.5 GB/s (raised a little by
     * the 1/32 that fits the L3). */
    r = on_curve(1, 10, (int64_t)1 << 30);
    assert_near(r.peak_bytes_per_second, 20e9);
    assert_string_equal(r.figure_name, "load at 16 MiB");
    /* A curve below the level's bound does not lower it: at 1 KiB the level is L1 at 50 GB/s,
     * under the curve's first point; with that point at 10 GB/s, still 50. */
    m.sets[0].curves[KB_BW_LOAD].points[0].bytes_per_second.best = 10e9;
    assert_int_equal(kb_roofline_peaks_from(&m, 1, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &p),
                     KB_OK);
    kb_roofline_input in = {1e-3, 40e6, 0, 1 << 10, 0};
    assert_int_equal(kb_roofline_compute(&in, &p, &r), KB_OK);
    assert_near(r.peak_bytes_per_second, 50e9);
    assert_string_equal(r.figure_name, "load L1");
}

/* Copy and triad curves beside with_curves()' load curves: at 1 thread, copy 60 and 30 GB/s
 * at 2 and 16 MiB and triad 45 and 25; at 4 threads three times as much. Copy's levels are 1
 * GB/s at 1 thread (measured()) and 2 GB/s at 4. */
static kb_peaks with_kernel_curves(void) {
    kb_peaks m = with_curves();
    static const int64_t mib[] = {2, 16};
    static const double gbytes[][2] = {[KB_BW_COPY] = {60, 30}, [KB_BW_TRIAD] = {45, 25}};
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++)
            m.sets[s].bandwidth[KB_BW_COPY][l].bytes_per_second.best = (1 + s) * 1e9;
        for (int k = KB_BW_COPY; k <= KB_BW_TRIAD; k++)
            for (int i = 0; i < 2; i++) {
                kb_bw_curve *c = &m.sets[s].curves[k];
                kb_bw_curve_point *point = &c->points[c->count++];
                point->working_set_bytes = mib[i] << 20;
                point->bytes_per_second.best = (s == 0 ? 1 : 3) * gbytes[k][i] * 1e9;
            }
    }
    return m;
}

static void each_traffic_is_held_against_its_own_curve(void **state) {
    kb_peaks m = with_kernel_curves();
    /* The bounds carry the curve of the traffic asked for: copy's points, then triad's, at 2
     * threads min(2 x one thread, all cores). */
    kb_roofline_peaks p = bounds_of(&m, 2, KB_BW_COPY);
    assert_int_equal(p.curve_points, 2);
    assert_int_equal(p.curve_working_set[0], 2 << 20);
    assert_near(p.curve_bytes_per_second[0], 120e9);
    assert_near(p.curve_bytes_per_second[1], 60e9);
    p = bounds_of(&m, 1, KB_BW_TRIAD);
    assert_int_equal(p.curve_points, 2);
    assert_near(p.curve_bytes_per_second[0], 45e9);
    assert_near(p.curve_bytes_per_second[1], 25e9);
    /* The capacities come from the load curve whatever the traffic: as for a load. */
    kb_roofline_peaks load;
    assert_int_equal(kb_roofline_peaks_from(&m, 1, KB_BW_LOAD, KB_FLOP_F64, KB_SIMD_AVX512, &load),
                     KB_OK);
    assert_memory_equal(p.capacity, load.capacity, sizeof p.capacity);
    assert_int_equal(load.curve_points, 6);

    /* A result at 4 MiB, 1 thread: load against load's 80 GB/s point, copy against copy's 60
     * at 2 MiB, triad against triad's 45; 50 GB/s is 62.5%, 83.3% and impossible. */
    kb_roofline r = traffic_on(&m, KB_BW_LOAD, 1, 50, 4 << 20);
    assert_near(r.peak_bytes_per_second, 80e9);
    assert_string_equal(r.figure_name, "load at 4 MiB");
    r = traffic_on(&m, KB_BW_COPY, 1, 50, 4 << 20);
    assert_near(r.peak_bytes_per_second, 60e9);
    assert_string_equal(r.figure_name, "copy at 2 MiB");
    assert_int_equal(r.flags, 0);
    r = traffic_on(&m, KB_BW_TRIAD, 1, 50, 4 << 20);
    assert_near(r.peak_bytes_per_second, 45e9);
    assert_string_equal(r.figure_name, "triad at 2 MiB");
    assert_int_equal(r.flags, KB_ROOFLINE_IMPOSSIBLE);
    char why[256];
    kb_roofline_explain(&r, why, sizeof why);
    assert_non_null(strstr(why, "above triad at 2 MiB at 1 thread: 45.0 GB/s"));
    /* 1 GiB at 4 threads: copy's 16 MiB point at all cores, 90 GB/s. */
    r = traffic_on(&m, KB_BW_COPY, 4, 50, (int64_t)1 << 30);
    assert_near(r.peak_bytes_per_second, 90e9);
    assert_string_equal(r.figure_name, "copy at 16 MiB");
    assert_int_equal(r.figure.threads, 4);

    /* Without a copy curve at all cores (peaks from before the copy curve have none), copy
     * falls back to its levels, 2 GB/s at 2 threads, while triad keeps its curve. */
    m.sets[1].curves[KB_BW_COPY].count = 0;
    assert_int_equal(bounds_of(&m, 2, KB_BW_COPY).curve_points, 0);
    r = traffic_on(&m, KB_BW_COPY, 2, 1, 4 << 20);
    assert_near(r.peak_bytes_per_second, 2e9);
    assert_null(strstr(r.figure_name, " at "));
    assert_memory_equal(r.figure_name, "copy ", 5);
    assert_near(traffic_on(&m, KB_BW_TRIAD, 2, 1, 4 << 20).peak_bytes_per_second, 90e9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memory_bound_in_dram),
        cmocka_unit_test(compute_bound_in_l1_is_suspicious_high),
        cmocka_unit_test(above_the_bound_is_impossible),
        cmocka_unit_test(thresholds),
        cmocka_unit_test(slow_large_case_is_suspicious_low),
        cmocka_unit_test(small_case_is_not_suspicious_low),
        cmocka_unit_test(copy_without_flops),
        cmocka_unit_test(flops_without_bytes),
        cmocka_unit_test(working_set_levels_at_capacity),
        cmocka_unit_test(unknown_peak_gives_no_bound),
        cmocka_unit_test(bad_inputs_are_refused),
        cmocka_unit_test(flag_names),
        cmocka_unit_test(bounds_between_thread_counts),
        cmocka_unit_test(bounds_refuse_bad_arguments),
        cmocka_unit_test(capacities_do_not_overflow),
        cmocka_unit_test(bound_is_the_highest_credible_figure),
        cmocka_unit_test(a_result_corroborating_an_upper_mode_is_suspicious_high),
        cmocka_unit_test(impossible_explains_itself),
        cmocka_unit_test(above_the_runs_probe_is_suspicious_high),
        cmocka_unit_test(curve_bounds_a_load_at_its_working_set),
        cmocka_unit_test(each_traffic_is_held_against_its_own_curve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
