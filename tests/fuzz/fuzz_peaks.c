/* libFuzzer target for the peaks JSON reader (kb_peaks_from_json) and the peaks cache file
 * reader (kb_peaks_cache_read, which unwraps {"format", "key", "peaks"} around the same
 * object), both fed every input: any bytes must give either peaks that keep the rules of the
 * format, or KB_EFORMAT with a one-line message and zeroed peaks; never a crash, a leak or
 * undefined behaviour (the whole library is built with ASan and UBSan for fuzzing). Peaks that
 * were read must write back with kb_peaks_to_json and read back the same: exactly, except the
 * rates and the histories' values, which are scaled by 10^9 on the way and may move by a
 * rounding. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kbench/peaks.h"
#include "kbench/roofline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The key the seeds of cache files hold. */
#define FUZZ_KEY "fuzz"

/* The cache reader takes a path: the input goes into an in-memory file, read through /proc. */
static int memfd = -1;
static char memfd_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    memfd = memfd_create("fuzz_peaks", 0);
    if (memfd < 0)
        __builtin_trap();
    snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    return 0;
}

static void check_message(void) {
    const char *m = kb_last_error();
    if (m[0] == '\0' || strchr(m, '\n'))
        __builtin_trap();
}

static bool all_zero(const void *p, size_t size) {
    const unsigned char *c = p;
    for (size_t i = 0; i < size; i++)
        if (c[i])
            return false;
    return true;
}

static void check_rate(const kb_rate *r) {
    if (r->repetitions == 0) {
        if (!all_zero(r, sizeof *r))
            __builtin_trap();
        return;
    }
    if (r->repetitions < 1 || !isfinite(r->best) ||
        !(r->min >= 0 && r->min <= r->median && r->median <= r->max && r->max == r->best))
        __builtin_trap();
}

static void check_peaks(const kb_peaks *p) {
    if ((int)p->bandwidth_simd < 0 || (int)p->bandwidth_simd >= KB_SIMD_LEVEL_COUNT)
        __builtin_trap();
    if (!(p->load_average == -1 || (p->load_average >= 0 && isfinite(p->load_average))))
        __builtin_trap();
    if (!(p->clock_mhz >= 0 && isfinite(p->clock_mhz)))
        __builtin_trap();
    if (p->sets[KB_PEAKS_ONE_THREAD].threads != 1)
        __builtin_trap();
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        const kb_peak_set *set = &p->sets[s];
        if (set->threads < 1)
            __builtin_trap();
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
                const kb_bw_peak *b = &set->bandwidth[k][l];
                check_rate(&b->bytes_per_second);
                if ((b->bytes_per_second.repetitions > 0) != (b->working_set_bytes > 0))
                    __builtin_trap();
            }
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
                check_rate(&set->flops[t][l]);
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
            const kb_bw_curve *c = &set->curves[k];
            if (c->count < 0 || c->count > KB_BW_CURVE_MAX_POINTS)
                __builtin_trap();
            for (int i = 0; i < c->count; i++) {
                check_rate(&c->points[i].bytes_per_second);
                if (c->points[i].working_set_bytes <=
                    (i > 0 ? c->points[i - 1].working_set_bytes : 0))
                    __builtin_trap();
            }
        }
    }
}

/* Equal up to the roundings of scaling by 10^9 and back (and, for the tiniest rates, the
 * precision subnormal numbers lose on the way). */
static bool near(double a, double b) {
    return fabs(a - b) <= 1e-15 * fmax(fabs(a), fabs(b)) + 1e-300;
}

static bool same_rate(const kb_rate *a, const kb_rate *b) {
    return a->repetitions == b->repetitions && near(a->best, b->best) &&
           near(a->median, b->median) && near(a->min, b->min) && near(a->max, b->max);
}

static bool same_history(const kb_peak_history *a, const kb_peak_history *b) {
    if (a->count != b->count)
        return false;
    for (int i = 0; i < a->count; i++)
        if (a->samples[i].at != b->samples[i].at || !near(a->samples[i].value, b->samples[i].value))
            return false;
    return true;
}

static bool same_peaks(const kb_peaks *a, const kb_peaks *b) {
    if (a->bandwidth_simd != b->bandwidth_simd || a->logical_cpus != b->logical_cpus ||
        a->clock_mhz != b->clock_mhz || a->measured_at != b->measured_at ||
        a->load_average != b->load_average || a->quick != b->quick ||
        memcmp(a->caches, b->caches, sizeof a->caches) != 0)
        return false;
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        const kb_peak_set *x = &a->sets[s], *y = &b->sets[s];
        if (x->threads != y->threads)
            return false;
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++)
                if (x->bandwidth[k][l].working_set_bytes != y->bandwidth[k][l].working_set_bytes ||
                    !same_rate(&x->bandwidth[k][l].bytes_per_second,
                               &y->bandwidth[k][l].bytes_per_second) ||
                    !same_history(&x->bandwidth[k][l].history, &y->bandwidth[k][l].history))
                    return false;
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
                if (!same_rate(&x->flops[t][l], &y->flops[t][l]) ||
                    !same_history(&x->flops_history[t][l], &y->flops_history[t][l]))
                    return false;
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
            const kb_bw_curve *cx = &x->curves[k], *cy = &y->curves[k];
            if (cx->count != cy->count)
                return false;
            for (int i = 0; i < cx->count; i++)
                if (cx->points[i].working_set_bytes != cy->points[i].working_set_bytes ||
                    !same_rate(&cx->points[i].bytes_per_second, &cy->points[i].bytes_per_second) ||
                    !same_history(&cx->points[i].history, &cy->points[i].history))
                    return false;
        }
    }
    return true;
}

/* What a benchmark runner does with peaks from a cache file: the bounds for a thread count,
 * which must come out finite and not negative, whatever the file held. */
static void check_roofline(const kb_peaks *p) {
    const int threads[] = {1, 2, 64, p->sets[KB_PEAKS_ALL_THREADS].threads};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++)
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
                kb_roofline_peaks r;
                if (kb_roofline_peaks_from(p, threads[i], (kb_bw_kernel)k, KB_FLOP_F64,
                                           (kb_simd_level)l, &r) != KB_OK)
                    __builtin_trap();
                if (!(r.flops_per_second >= 0 && isfinite(r.flops_per_second)))
                    __builtin_trap();
                for (int m = 0; m < KB_MEM_LEVEL_COUNT; m++)
                    if (!(r.bytes_per_second[m] >= 0 && isfinite(r.bytes_per_second[m])) ||
                        (m < KB_MEM_DRAM && r.capacity[m] < 0))
                        __builtin_trap();
            }
}

/* Peaks read from outside: they keep the rules, give usable roofline bounds, and write back
 * to JSON that reads back the same. */
static void check_read(const kb_peaks *p) {
    check_peaks(p);
    check_roofline(p);
    char *text = NULL;
    kb_status st = kb_peaks_to_json(p, &text);
    if (st == KB_ENOMEM)
        return;
    if (st != KB_OK || !text)
        __builtin_trap();
    kb_peaks *again = malloc(sizeof *again);
    if (!again) {
        free(text);
        return;
    }
    st = kb_peaks_from_json(text, again);
    free(text);
    if (st != KB_OK || !same_peaks(p, again))
        __builtin_trap();
    free(again);
}

static void check_failure(const kb_peaks *p) {
    check_message();
    if (!all_zero(p, sizeof *p))
        __builtin_trap();
}

static void fuzz_json(const uint8_t *data, size_t size, kb_peaks *p) {
    char *text = malloc(size + 1);
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    memset(p, 0xA5, sizeof *p); /* a poison: failure must zero it */
    kb_status st = kb_peaks_from_json(text, p);
    free(text);
    if (st == KB_OK)
        check_read(p);
    else if (st == KB_EFORMAT || st == KB_ENOMEM)
        check_failure(p);
    else
        __builtin_trap();
}

static void fuzz_cache(const uint8_t *data, size_t size, kb_peaks *p) {
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
        __builtin_trap();
    memset(p, 0xA5, sizeof *p);
    bool found = true;
    kb_status st = kb_peaks_cache_read(memfd_path, FUZZ_KEY, p, &found);
    if (st == KB_OK && found) {
        check_read(p);
    } else if (st == KB_OK) {
        if (!all_zero(p, sizeof *p)) /* a miss (another key) leaves the peaks zeroed */
            __builtin_trap();
    } else if (st == KB_EFORMAT || st == KB_ENOMEM) {
        if (found)
            __builtin_trap();
        check_failure(p);
    } else {
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kb_peaks *p = malloc(sizeof *p);
    if (!p)
        return 0;
    fuzz_json(data, size, p);
    fuzz_cache(data, size, p);
    free(p);
    return 0;
}
