/* Bandwidth measurements: the load, copy and triad kernels run and timed on each thread. */
#include <omp.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/memory.h"
#include "machine/peaks/bandwidth_arena.h"
#include "machine/peaks/bandwidth_kernels.h"
#include "machine/peaks/measure_settings.h"
#include "machine/peaks/rate.h"
#include "machine/peaks/team_timer.h"
#include "machine/peaks/working_sets.h"

const char *kb_bw_kernel_name(kb_bw_kernel kernel) {
    static const char *const names[KB_BW_KERNEL_COUNT] = {"load", "copy", "triad"};
    return (unsigned)kernel < KB_BW_KERNEL_COUNT ? names[kernel] : "?";
}

const char *kb_mem_level_name(kb_mem_level level) {
    static const char *const names[KB_MEM_LEVEL_COUNT] = {"L1", "L2", "L3", "DRAM"};
    return (unsigned)level < KB_MEM_LEVEL_COUNT ? names[level] : "?";
}

void kb_bw_kernel_traffic(kb_bw_kernel kernel, kb_bw_traffic *out) {
    /* likwid-bench's "bytes per element" of load, copy and stream (its name for this triad);
     * a written element costs a read of its line first in a write-allocate cache. */
    static const kb_bw_traffic traffic[KB_BW_KERNEL_COUNT] = {
        [KB_BW_LOAD] = {8, 0, 0}, [KB_BW_COPY] = {8, 8, 8}, [KB_BW_TRIAD] = {16, 8, 8}};
    if ((unsigned)kernel < KB_BW_KERNEL_COUNT)
        *out = traffic[kernel];
    else
        memset(out, 0, sizeof *out);
}

#define TABLE(ID, name) KB_SIMD_TABLE_ENTRY(ID, &kb_bw_kernels_##name)
static const kb_bw_kernels *const tables[KB_SIMD_LEVEL_COUNT] = {KB_SIMD_BANDWIDTH_TABLES(TABLE)};
#undef TABLE

/* Streaming is bound by the memory system, not the vector width, so a level without sweeps
 * of its own measures with its fallback's (the registry's rule). */
static const kb_bw_kernels *kernels_for(kb_simd_level level) {
    if (!kb_simd_available(level))
        return NULL;
    return tables[kb_simd_table_level(KB_SIMD_FAMILY_BANDWIDTH, level)];
}

bool kb_bw_stores_allocate(kb_simd_level level, int64_t working_set_bytes) {
    const kb_bw_kernels *k = kernels_for(level);
    return !(k && k->nt_stores && kb_cache_reach(working_set_bytes) == KB_REACH_BEYOND);
}

static double sweep(const kb_bw_kernels *k, kb_bw_kernel kernel, int64_t n, kb_reach reach,
                    int streams, double *a, const double *b, const double *c) {
    switch (kernel) {
        case KB_BW_LOAD:
            return k->load(a, n, reach, streams);
        case KB_BW_COPY:
            k->copy(a, b, n, reach);
            return a[n - 1];
        default:
            k->triad(a, b, c, KB_BW_TRIAD_SCALAR, n, reach);
            return a[n - 1];
    }
}

kb_status kb_bw_run(kb_bw_kernel kernel, kb_simd_level level, int64_t n, int64_t sweeps, double *a,
                    const double *b, const double *c, kb_bw_work *out) {
    memset(out, 0, sizeof *out);
    if ((unsigned)kernel >= KB_BW_KERNEL_COUNT)
        return kb_fail(KB_EINVAL, "unknown bandwidth kernel %d", (int)kernel);
    if (n < 0 || sweeps < 0)
        return kb_fail(KB_EINVAL, "element and sweep counts must not be negative");
    if (!a || (kernel != KB_BW_LOAD && !b) || (kernel == KB_BW_TRIAD && !c))
        return kb_fail(KB_EINVAL, "the %s kernel needs %d arrays", kb_bw_kernel_name(kernel),
                       kb_bw_array_count(kernel));
    const kb_bw_kernels *k = kernels_for(level);
    if (!k)
        return kb_fail(KB_EUNSUPPORTED, "no bandwidth kernel for SIMD level %s on this machine",
                       kb_simd_name(level));
    double last = 0;
    kb_reach reach = kb_cache_reach(n * kb_bw_array_count(kernel) * (int64_t)sizeof(double));
    for (int64_t s = 0; s < sweeps && n > 0; s++)
        last = sweep(k, kernel, n, reach, 1, a, b, c);
    kb_bw_traffic t;
    kb_bw_kernel_traffic(kernel, &t);
    /* non-temporal stores (bandwidth_target.h) write without reading the line first */
    int64_t ws = n * kb_bw_array_count(kernel) * (int64_t)sizeof(double);
    if (!kb_bw_stores_allocate(level, ws) && (uintptr_t)a % KB_NT_ALIGN == 0)
        t.write_allocate_bytes = 0;
    double elements = (double)n * (double)sweeps;
    out->bytes = elements * (t.read_bytes + t.write_bytes);
    out->bytes_with_write_allocate =
        elements * (t.read_bytes + t.write_bytes + t.write_allocate_bytes);
    out->checksum = kernel == KB_BW_LOAD ? last : 0;
    return KB_OK;
}

/* One thread's arrays, in whole blocks so that every SIMD loop runs without a tail. */
#define KB_BW_BLOCK_ELEMENTS (KB_BW_BLOCK_BYTES / (int64_t)sizeof(double))

typedef struct bw_context {
    const kb_bw_kernels *kernels;
    kb_bw_kernel kernel;
    int64_t n;          /* elements per array and thread */
    kb_reach reach;     /* where the working set is: how the kernels treat memory */
    int streams;        /* load's parts read at once */
    kb_bw_arena *arena; /* where each thread's arrays are kept, or NULL: its own */
} bw_context;

/* Array i starts i x 1344 bytes (21 cache lines) into its allocation, as STREAM offsets its
 * arrays: allocations of one size land at one offset within a page, and a load whose address
 * matches an earlier store's in the low 12 bits waits on it as if they overlapped (4 KiB
 * aliasing). Unstaggered, the triad ran at a seventh of the copy's speed in L1. */
#define KB_BW_STAGGER_BYTES 1344

typedef struct bw_state {
    double *array[3];
    void *allocation[3];
} bw_state;

static void bw_finish(void *context, void *state) {
    bw_state *s = state;
    for (int i = 0; i < 3; i++)
        kb_aligned_free(s->allocation[i]);
    kb_aligned_free(s);
}

static bool bw_prepare(void *context, void **state) {
    const bw_context *ctx = context;
    bw_state *s = kb_aligned_alloc(sizeof *s);
    *state = s;
    if (!s)
        return false;
    memset(s, 0, sizeof *s);
    /* Filled here, on the thread that will use them: first touch places the pages on its
     * NUMA node, and the values keep the sums finite. */
    static const double fill[3] = {1.0, 2.0, 0.5};
    for (int i = 0; i < kb_bw_array_count(ctx->kernel); i++) {
        size_t stagger = (size_t)i * KB_BW_STAGGER_BYTES;
        size_t bytes = (size_t)ctx->n * sizeof(double) + stagger;
        if (ctx->arena) {
            void *kept = kb_bw_arena_array(ctx->arena, omp_get_thread_num(), i, bytes, fill[i]);
            if (!kept) {
                bw_finish(context, s);
                *state = NULL;
                return false;
            }
            s->array[i] = (double *)(void *)((char *)kept + stagger);
            continue;
        }
        s->allocation[i] = kb_aligned_alloc(bytes);
        if (!s->allocation[i]) {
            bw_finish(context, s);
            *state = NULL;
            return false;
        }
        s->array[i] = (double *)(void *)((char *)s->allocation[i] + stagger);
        for (int64_t e = 0; e < ctx->n; e++)
            s->array[i][e] = fill[i];
    }
    return true;
}

static double bw_run(void *context, void *state, int64_t count) {
    const bw_context *ctx = context;
    bw_state *s = state;
    double keep = 0;
    for (int64_t i = 0; i < count; i++)
        keep += sweep(ctx->kernels, ctx->kernel, ctx->n, ctx->reach, ctx->streams, s->array[0],
                      s->array[1], s->array[2]);
    return keep;
}

kb_status kb_bw_measure(kb_bw_kernel kernel, kb_simd_level level, int threads,
                        int64_t working_set_bytes, const kb_measure_settings *settings,
                        kb_bw_peak *out) {
    return kb_bw_measure_in(NULL, kernel, level, threads, working_set_bytes, settings, out);
}

kb_status kb_bw_measure_in(kb_bw_arena *arena, kb_bw_kernel kernel, kb_simd_level level,
                           int threads, int64_t working_set_bytes,
                           const kb_measure_settings *settings, kb_bw_peak *out) {
    memset(out, 0, sizeof *out);
    kb_measure_settings s;
    kb_status st = kb_measure_settings_resolve(settings, &s);
    if (st != KB_OK)
        return st;
    if ((unsigned)kernel >= KB_BW_KERNEL_COUNT)
        return kb_fail(KB_EINVAL, "unknown bandwidth kernel %d", (int)kernel);
    if (threads < 1 || threads > 4096)
        return kb_fail(KB_EINVAL, "thread count must be from 1 to 4096, not %d", threads);
    if (arena && threads > kb_bw_arena_threads(arena))
        return kb_fail(KB_EINVAL, "%d threads, but arrays kept for %d", threads,
                       kb_bw_arena_threads(arena));
    if (working_set_bytes < 0)
        return kb_fail(KB_EINVAL, "working set must not be negative");
    const kb_bw_kernels *k = kernels_for(level);
    if (!k)
        return kb_fail(KB_EUNSUPPORTED, "no bandwidth kernel for SIMD level %s on this machine",
                       kb_simd_name(level));

    int arrays = kb_bw_array_count(kernel);
    int64_t per_array = working_set_bytes / threads / arrays / (int64_t)sizeof(double);
    int64_t n = per_array / KB_BW_BLOCK_ELEMENTS * KB_BW_BLOCK_ELEMENTS;
    if (n < KB_BW_BLOCK_ELEMENTS)
        n = KB_BW_BLOCK_ELEMENTS;
    kb_bw_traffic t;
    kb_bw_kernel_traffic(kernel, &t);
    double bytes_per_sweep = (double)n * threads * (t.read_bytes + t.write_bytes);
    /* load reads as one stream and as several (k->streams), and keeps the faster: one thread
     * may read memory and the outer caches faster from several (Zen 3, one thread, 128 MiB:
     * about 18 GB/s from one, 27-30 from three), or not, and kbench's reductions read both
     * ways (docs/roofline.md). A thread's array within its L2 is read one way: the streams of
     * the L2 and L1 are the core's own, and the second timing would only lengthen the run. */
    bool beyond_l2 = n * (int64_t)sizeof(double) > kb_cache_l2_bytes();
    int layouts = kernel == KB_BW_LOAD && k->streams > 1 && beyond_l2 ? 2 : 1;
    for (int layout = 0; layout < layouts; layout++) {
        bw_context ctx = {
            k, kernel, n, kb_cache_reach(working_set_bytes), layout ? k->streams : 1, arena};
        kb_team_job job = {threads, s, &ctx, bw_prepare, bw_run, bw_finish};
        double rates[KB_MEASURE_MAX_REPETITIONS];
        st = kb_team_time(&job, rates);
        if (st != KB_OK)
            return st;
        for (int r = 0; r < s.repetitions; r++)
            rates[r] *= bytes_per_sweep;
        kb_rate rate;
        kb_rate_from_samples(rates, s.repetitions, &rate);
        if (layout == 0 || rate.median > out->bytes_per_second.median)
            out->bytes_per_second = rate;
    }
    out->working_set_bytes = n * (int64_t)sizeof(double) * arrays * threads;
    return KB_OK;
}
