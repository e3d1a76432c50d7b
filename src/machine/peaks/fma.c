/* FLOP peak measurements: the FMA chains run and timed on each thread. */
#include <string.h>

#include "core/internal.h"
#include "machine/peaks/fma_kernels.h"
#include "machine/peaks/measure_settings.h"
#include "machine/peaks/rate.h"
#include "machine/peaks/team_timer.h"

const char *kb_flop_type_name(kb_flop_type type) {
    static const char *const names[KB_FLOP_TYPE_COUNT] = {"float32", "float64"};
    return (unsigned)type < KB_FLOP_TYPE_COUNT ? names[type] : "?";
}

#define TABLE(ID, name) KB_SIMD_TABLE_ENTRY(ID, &kb_fma_kernels_##name)
static const kb_fma_kernels *const tables[KB_SIMD_LEVEL_COUNT] = {KB_SIMD_FMA_TABLES(TABLE)};
#undef TABLE

/* A FLOP peak is reported under its level's name, so it is measured only with chains of the
 * level's own: run through the fallback rule, a level would report its fallback's peak as its
 * own (the peaks table keeps one row per level, and the roofline reads them by level). */
static const kb_fma_kernels *kernels_for(kb_simd_level level) {
    if (!kb_simd_available(level) || kb_simd_table_level(KB_SIMD_FAMILY_FMA, level) != level)
        return NULL;
    return tables[level];
}

bool kb_fma_available(kb_simd_level level) {
    return kernels_for(level) != NULL;
}

static const kb_fma_params params = {KB_FMA_A, KB_FMA_B, KB_FMA_INIT, KB_FMA_STEP};

static kb_status find(kb_flop_type type, kb_simd_level level, kb_fma_chain_fn *fn, int *lanes,
                      int *accumulators) {
    if ((unsigned)type >= KB_FLOP_TYPE_COUNT)
        return kb_fail(KB_EINVAL, "unknown floating-point type %d", (int)type);
    const kb_fma_kernels *k = kernels_for(level);
    if (!k)
        return kb_fail(KB_EUNSUPPORTED, "no FMA kernel for SIMD level %s on this machine",
                       kb_simd_name(level));
    *fn = type == KB_FLOP_F32 ? k->f32 : k->f64;
    *lanes = type == KB_FLOP_F32 ? k->lanes_f32 : k->lanes_f64;
    *accumulators = k->accumulators;
    return KB_OK;
}

kb_status kb_fma_run(kb_flop_type type, kb_simd_level level, int64_t iterations, kb_fma_work *out) {
    memset(out, 0, sizeof *out);
    kb_fma_chain_fn fn = NULL;
    int lanes = 0, accumulators = 0;
    kb_status st = find(type, level, &fn, &lanes, &accumulators);
    if (st != KB_OK)
        return st;
    if (iterations < 0)
        return kb_fail(KB_EINVAL, "iteration count must not be negative");
    out->checksum = fn(iterations, &params);
    out->flops = 2.0 * lanes * accumulators * (double)iterations;
    out->lanes = lanes;
    out->accumulators = accumulators;
    return KB_OK;
}

typedef struct fma_context {
    kb_fma_chain_fn fn;
} fma_context;

static bool fma_prepare(void *context, void **state) {
    /* The chains live in registers; a non-NULL state is all the timer needs. */
    *state = context;
    return true;
}

static void fma_finish(void *context, void *state) {}

/* One unit of timed work is this many chain iterations, so that a unit lasts about a
 * microsecond and the warm-up needs few steps to size a repetition. */
#define KB_FMA_UNIT 1000

static double fma_run(void *context, void *state, int64_t count) {
    const fma_context *ctx = context;
    return ctx->fn(count * KB_FMA_UNIT, &params);
}

kb_status kb_fma_measure(kb_flop_type type, kb_simd_level level, int threads,
                         const kb_measure_settings *settings, kb_rate *out) {
    memset(out, 0, sizeof *out);
    kb_measure_settings s;
    kb_status st = kb_measure_settings_resolve(settings, &s);
    if (st != KB_OK)
        return st;
    if (threads < 1 || threads > 4096)
        return kb_fail(KB_EINVAL, "thread count must be from 1 to 4096, not %d", threads);
    fma_context ctx = {NULL};
    int lanes = 0, accumulators = 0;
    st = find(type, level, &ctx.fn, &lanes, &accumulators);
    if (st != KB_OK)
        return st;
    kb_team_job job = {threads, s, &ctx, fma_prepare, fma_run, fma_finish};
    double rates[KB_MEASURE_MAX_REPETITIONS];
    st = kb_team_time(&job, rates);
    if (st != KB_OK)
        return st;
    double flops_per_unit = 2.0 * lanes * accumulators * KB_FMA_UNIT * threads;
    for (int r = 0; r < s.repetitions; r++)
        rates[r] *= flops_per_unit;
    kb_rate_from_samples(rates, s.repetitions, out);
    return KB_OK;
}
