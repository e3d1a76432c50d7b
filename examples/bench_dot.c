/* Benchmarking your own C function with kbench: two dot products, measured side by side.
 *
 * Build against an installed kbench (make install PREFIX=$HOME/.local):
 *
 *     cc -O2 -std=c17 bench_dot.c $(pkg-config --cflags --libs kbench) -o bench_dot
 *
 * and run it as you would run `kbench run` (docs/cli.md):
 *
 *     ./bench_dot                          every case, a table on stdout
 *     ./bench_dot list                     the case names
 *     ./bench_dot --filter 'n=1000000/' --min-time 0.5 -o dot.json -o dot.md
 *
 * What it shows:
 * - a parameter space: sizes (n) times implementations (impl), six cases;
 * - impl is an implementation axis, so the two implementations of one size are set up once
 *   and sampled in interleaved rounds (naive, unrolled, naive, unrolled, ...), and any drift
 *   of the machine's speed falls on both alike;
 * - setup allocates and fills the inputs once per size, outside the timing, and declares the
 *   bytes and FLOPs of one call, from which the harness derives GB/s and GFLOP/s;
 * - run calls the function `calls` times; kb_do_not_optimize keeps the compiler from
 *   deciding that an unused result need not be computed. */
#include <stdlib.h>
#include <string.h>

#include <kbench/kbench.h>

/* ---- The code under test ---- */

/* One accumulator: each add waits for the previous one (and at -O2 GCC keeps the order of
 * float additions, so it does not vectorize this). */
static float dot_naive(const float *x, const float *y, int64_t n) {
    float s = 0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* Four independent accumulators hide the latency of the adds. */
static float dot_unrolled(const float *x, const float *y, int64_t n) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* ---- The benchmark ---- */

typedef struct dot_data {
    float *x, *y;
    int64_t n;
    float result;
} dot_data;

static kb_status dot_setup(kb_bench_case *c) {
    int64_t n = atoll(kb_bench_param(c, "n"));
    dot_data *d = calloc(1, sizeof *d);
    if (!d)
        return kb_bench_fail(c, KB_ENOMEM, "out of memory");
    d->n = n;
    d->x = kb_aligned_alloc((size_t)n * sizeof(float));
    d->y = kb_aligned_alloc((size_t)n * sizeof(float));
    if (!d->x || !d->y) {
        kb_aligned_free(d->x);
        kb_aligned_free(d->y);
        free(d);
        return kb_bench_fail(c, KB_ENOMEM, "cannot allocate two arrays of %lld floats",
                             (long long)n);
    }
    for (int64_t i = 0; i < n; i++) {
        d->x[i] = (float)(i % 7) * 0.25f;
        d->y[i] = (float)(i % 5) * 0.5f;
    }
    c->data = d;
    c->bytes_per_call = 2.0 * (double)n * sizeof(float); /* x and y read once */
    c->flops_per_call = 2.0 * (double)n;                 /* a multiply and an add each */
    return KB_OK;
}

static void dot_run(kb_bench_case *c, int64_t calls) {
    dot_data *d = c->data;
    /* Which implementation, decided once per sample rather than once per call. */
    bool unrolled = strcmp(kb_bench_param(c, "impl"), "unrolled") == 0;
    for (int64_t i = 0; i < calls; i++) {
        d->result = unrolled ? dot_unrolled(d->x, d->y, d->n) : dot_naive(d->x, d->y, d->n);
        kb_do_not_optimize(&d->result);
    }
}

static void dot_teardown(kb_bench_case *c) {
    dot_data *d = c->data;
    kb_aligned_free(d->x);
    kb_aligned_free(d->y);
    free(d);
}

static const char *const sizes[] = {"1000", "100000", "10000000", NULL};
static const char *const impls[] = {"naive", "unrolled", NULL};

static const kb_bench_axis dot_axes[] = {
    {"n", sizes, 0},                               /* names show "n=1000" */
    {"impl", impls, KB_BENCH_AXIS_IMPLEMENTATION}, /* interleaved with each other */
    {NULL, NULL, 0},
};

static const kb_bench_def benchmarks[] = {{
    .name = "example/dot",
    .axes = dot_axes,
    .setup = dot_setup,
    .run = dot_run,
    .teardown = dot_teardown,
    /* The roofline holds it against the read bandwidth and the float32 FLOP peak. */
    .traffic = KB_BW_LOAD,
    .flop_type = KB_FLOP_F32,
}};

int main(int argc, char **argv) {
    return kb_bench_main(argc, argv, benchmarks, 1);
}
