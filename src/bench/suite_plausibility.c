/* The `plausibility` suite, for kbench's own tests of the roofline check: a sum of a float64
 * buffer four times the last-level cache (read from memory) in two implementations measured
 * in interleaved rounds, `work=all`, which claims the bytes it reads, and `work=half`, which
 * reads only the first half and claims the whole. The second runs at about twice the memory's
 * bandwidth on paper, and a run must flag it `impossible` (docs/roofline.md); the first is a
 * correct kernel, and must not be. */
#include <stdlib.h>

#include "bench/plan.h"
#include "bench/suites.h"
#include "kbench/machine.h"
#include "kbench/memory.h"

typedef struct buffer {
    double *x;
    int64_t n;
    double sink;
} buffer;

static kb_status buffer_setup(kb_bench_case *c) {
    kb_machine m;
    kb_machine_probe(&m);
    int64_t llc = m.caches[KB_CACHE_L3].size > 0   ? m.caches[KB_CACHE_L3].size
                  : m.caches[KB_CACHE_L2].size > 0 ? m.caches[KB_CACHE_L2].size
                                                   : (int64_t)32 << 20;
    buffer *b = calloc(1, sizeof *b);
    if (!b)
        return kb_bench_fail(c, KB_ENOMEM, "out of memory");
    b->n = 4 * llc / (int64_t)sizeof(double);
    b->x = kb_aligned_alloc((size_t)b->n * sizeof(double));
    if (!b->x) {
        free(b);
        return kb_bench_fail(c, KB_ENOMEM, "cannot allocate %lld bytes", (long long)(4 * llc));
    }
    for (int64_t i = 0; i < b->n; i++)
        b->x[i] = (double)(i % 7);
    c->data = b;
    c->bytes_per_call = (double)b->n * sizeof(double); /* the whole buffer, for both */
    c->flops_per_call = (double)b->n;
    c->traffic = KB_BW_LOAD;
    c->flop_type = KB_FLOP_F64;
    return KB_OK;
}

static void buffer_teardown(kb_bench_case *c) {
    buffer *b = c->data;
    kb_aligned_free(b->x);
    free(b);
}

/* The sum of x[0, n) with four accumulators; the result is kept, so the loads stay. */
static double sum(const double *x, int64_t n) {
    double a = 0, b = 0, c = 0, d = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a += x[i];
        b += x[i + 1];
        c += x[i + 2];
        d += x[i + 3];
    }
    for (; i < n; i++)
        a += x[i];
    return (a + b) + (c + d);
}

/* Sums all of the buffer, or its first half, and claims all of it either way. */
static void run(kb_bench_case *c, int64_t calls) {
    buffer *b = c->data;
    const char *work = kb_bench_param(c, "work");
    int64_t n = work && work[0] == 'h' ? b->n / 2 : b->n;
    for (int64_t i = 0; i < calls; i++)
        b->sink += sum(b->x, n);
}

kb_status kb_suite_plausibility_add(kb_bench_plan *plan, const char *suite) {
    /* One thread, as the loop runs: the bound is then the one-thread bandwidth. */
    static const char *const one[] = {"1", NULL};
    static const char *const work[] = {"all", "half", NULL};
    static const kb_bench_axis axes[] = {
        {.name = "threads", .values = one},
        {.name = "work", .values = work, .flags = KB_BENCH_AXIS_IMPLEMENTATION},
        {.name = NULL}};
    static const kb_bench_def def = {.name = "plausibility/sum",
                                     .axes = axes,
                                     .setup = buffer_setup,
                                     .run = run,
                                     .teardown = buffer_teardown};
    int before = kb_bench_plan_size(plan);
    return kb_plan_finish_suite(plan, before, suite, kb_plan_add_def(plan, &def));
}
