/* The effective capacities read off hand-made load curves (kb_bw_curve_capacities): a curve
 * like this project's VM at one thread, whose "32 MiB" L3 holds 8 MiB at its plateau; one
 * noisy point that must not end a plateau; two levels too close to tell apart; no curve; and a
 * machine without an L3. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/peaks.h"

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)

/* 4 KiB to 128 MiB at 4 points per octave, each point's GB/s from bw(working set). */
static kb_bw_curve curve_of(double (*bw)(int64_t)) {
    static kb_bw_curve c;
    memset(&c, 0, sizeof c);
    for (int k = 0; k <= 15 * 4; k++) {
        int64_t ws = (int64_t)llround(4096 * pow(2, k / 4.0));
        c.points[c.count].working_set_bytes = ws;
        kb_peak_history_add(&c.points[c.count].history, 1767225600, bw(ws) * 1e9);
        c.count++;
    }
    return c;
}

static void caches_of(kb_cache c[KB_CACHE_LEVEL_COUNT], int64_t l3) {
    memset(c, 0, sizeof(kb_cache) * KB_CACHE_LEVEL_COUNT);
    c[KB_CACHE_L1D] = (kb_cache){.size = 32 * KIB, .shared_by = 1};
    c[KB_CACHE_L2] = (kb_cache){.size = MIB, .shared_by = 1};
    c[KB_CACHE_L3] = (kb_cache){.size = l3, .shared_by = 2};
}

/* The VM at one thread: L1 200 GB/s, L2 116, L3 98 up to 8 MiB and falling, memory 30. */
static double vm(int64_t ws) {
    return ws <= 32 * KIB   ? 200
           : ws <= MIB      ? 116
           : ws <= 8 * MIB  ? 98
           : ws <= 16 * MIB ? 65
           : ws <= 32 * MIB ? 50
           : ws <= 64 * MIB ? 35
                            : 30;
}

static void knees_of_the_vm(void **state) {
    kb_cache caches[KB_CACHE_LEVEL_COUNT];
    caches_of(caches, 32 * MIB);
    kb_bw_curve c = curve_of(vm);
    int64_t cap[KB_MEM_DRAM];
    kb_bw_curve_capacities(&c, caches, 1, cap);
    /* L1: from 200 to 116, a quarter of the way down is 200^0.75 x 116^0.25 = 174.5: the last
     * point at 200 is 32 KiB. L2 to L3: 116 against 98, a drop under 1.25x: the OS's 1 MiB.
     * L3: 98 down to memory's 30, a quarter of the way 72.4: the last point at 98, 8 MiB. */
    assert_int_equal(cap[KB_MEM_L1], 32 * KIB);
    assert_int_equal(cap[KB_MEM_L2], MIB);
    assert_int_equal(cap[KB_MEM_L3], 8 * MIB);
}

/* One point inside L1 measured low (a busy moment) ends nothing. */
static double noisy(int64_t ws) {
    return ws > 11 * KIB && ws <= 12 * KIB ? 120 : vm(ws);
}

static void one_noisy_point(void **state) {
    kb_cache caches[KB_CACHE_LEVEL_COUNT];
    caches_of(caches, 32 * MIB);
    kb_bw_curve c = curve_of(noisy);
    int64_t cap[KB_MEM_DRAM];
    kb_bw_curve_capacities(&c, caches, 1, cap);
    assert_int_equal(cap[KB_MEM_L1], 32 * KIB);
    assert_int_equal(cap[KB_MEM_L3], 8 * MIB);
}

/* Without a curve, or without an L3 (the L2 is then the last level, against memory). */
static double no_l3(int64_t ws) {
    return ws <= 32 * KIB ? 200 : ws <= 512 * KIB ? 116 : 30;
}

static void no_curve_or_no_l3(void **state) {
    kb_cache caches[KB_CACHE_LEVEL_COUNT];
    caches_of(caches, 32 * MIB);
    kb_bw_curve none;
    memset(&none, 0, sizeof none);
    int64_t cap[KB_MEM_DRAM];
    kb_bw_curve_capacities(&none, caches, 2, cap);
    /* The OS's sizes for two threads: a private L1 and L2 each, one L3 for both. */
    assert_int_equal(cap[KB_MEM_L1], 64 * KIB);
    assert_int_equal(cap[KB_MEM_L2], 2 * MIB);
    assert_int_equal(cap[KB_MEM_L3], 32 * MIB);

    caches_of(caches, 0);
    kb_bw_curve c = curve_of(no_l3);
    kb_bw_curve_capacities(&c, caches, 1, cap);
    assert_int_equal(cap[KB_MEM_L1], 32 * KIB);
    /* 116 down to 30, a quarter of the way 82.1: the last point at 116 is 512 KiB. */
    assert_int_equal(cap[KB_MEM_L2], 512 * KIB);
    assert_int_equal(cap[KB_MEM_L3], 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(knees_of_the_vm),
        cmocka_unit_test(one_noisy_point),
        cmocka_unit_test(no_curve_or_no_l3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
