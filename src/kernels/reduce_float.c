/* The float32/float64 reductions that have a contiguous dimension to stream along, and the
 * sums and means of the types the sum kernels widen as they load (float16, bfloat16, int32):
 *
 *   inner: the reduced elements of each output include a contiguous run (axis=-1 of a C
 *          array, axis=None): each run is cut into blocks of at most KB_REDUCE_BLOCK
 *          elements, reduced by the run kernels;
 *   cols:  a kept dimension is contiguous (axis=0 of a C array): outputs along it are
 *          columns, and blocks of rows are reduced into a tile of columns by the cols
 *          kernels, so memory is read once, front to back.
 *
 * Blocks group into chunks of about KB_REDUCE_CHUNK_ELEMENTS; a thread takes whole chunks. Block
 * partials combine pairwise within a chunk and chunk partials pairwise across
 * chunks (cols sums: a chunk's rows add into one row of double sums, and the chunks' rows add
 * in order), and the chunking depends only on the shape, so any thread count gives the same
 * bits. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alias.h"
#include "core/internal.h"
#include "kbench/memory.h"
#include "kernels/reduce_finish.h"
#include "kernels/reduce_float.h"

/* A chunk is about this many elements in both modes: small enough that two threads share
 * arrays from 128 Ki elements up, large enough that a chunk's work dwarfs its bookkeeping. */
#define KB_REDUCE_CHUNK_ELEMENTS 65536
#define KB_REDUCE_CHUNK_BLOCKS (KB_REDUCE_CHUNK_ELEMENTS / KB_REDUCE_BLOCK)
/* Whole blocks of a run read from memory in one rows kernel call (inner_chunks): NSTREAMS
 * streams of about 85 blocks (2.7 MiB of float64) each. */
#define KB_REDUCE_GROUP_BLOCKS 256
#define KB_REDUCE_GROUP_CHUNKS (KB_REDUCE_GROUP_BLOCKS / KB_REDUCE_CHUNK_BLOCKS)
_Static_assert(KB_REDUCE_GROUP_CHUNKS >= 1, "a group of blocks holds a chunk at least");
/* The cols mode's blocks and chunks are sized by a nominal tile of at most this many columns,
 * which depends on the shape alone, so that the result does too. */
#define KB_REDUCE_TILE 512
#define KB_REDUCE_BLOCK_ELEMENTS 32768
/* Bytes of L2 per column a task spans: its double accumulators, partial results and pairwise
 * rows (about 64 bytes), with room to spare for the rows streaming through. */
#define KB_REDUCE_SPAN_BYTES_PER_COLUMN 128
/* Rows summed per kernel call in the rows mode: its sums stay on the stack, in L1. */
#define KB_REDUCE_ROWS_BATCH 256
/* var and std along a kept axis take one pass from this many columns: four vectors of the
 * widest target, so that the one-pass kernels' one-by-one tail columns stay a small part. */
#define KB_REDUCE_ONE_PASS_COLUMNS 64
/* ... and their chunks are this many times longer than the two-pass ones: a chunk's rows of
 * partial results (32 bytes a column) and their merges, with a division each, cost 35% of a
 * 1024 x 1024 float32 var along axis 0 at the two-pass chunk length. */
#define KB_REDUCE_ONE_PASS_CHUNK_BLOCKS 8

static double load(const kb_reduce_plan *p, const char *x) {
    switch (p->in_dtype) {
        case KB_F32: {
            float f;
            memcpy(&f, x, sizeof f);
            return f;
        }
        case KB_F64: {
            double d;
            memcpy(&d, x, sizeof d);
            return d;
        }
        default: /* float16, bfloat16, int32: exact in double */
            return (double)kb_element_load(p->in_dtype, x).real;
    }
}

/* The sum kernels' input type of a dtype, or KB_SUM_TYPES for none. */
static kb_sum_type sum_type_of(kb_dtype dtype) {
    switch (dtype) {
        case KB_F32:
            return KB_SUM_F32;
        case KB_F64:
            return KB_SUM_F64;
        case KB_F16:
            return KB_SUM_F16;
        case KB_BF16:
            return KB_SUM_BF16;
        case KB_INT32:
            return KB_SUM_I32;
        default:
            return KB_SUM_TYPES;
    }
}

static const kb_sum_kernels *sum_kernels(const kb_reduce_plan *p, const kb_reduce_kernels *k) {
    return &k->sum[sum_type_of(p->in_dtype)];
}

/* One block of the inner mode: n contiguous elements at x, the first with flat index
 * first. */
static kb_partial run_block(const kb_reduce_plan *p, const kb_reduce_kernels *k, const char *x,
                            int64_t n, int64_t first) {
    kb_partial r = {0};
    bool f32 = p->in_dtype == KB_F32;
    const float *xf = (const void *)x;
    const double *xd = (const void *)x;
    switch (p->op) {
        case KB_REDUCE_SUM:
        case KB_REDUCE_MEAN:
            r.a = sum_kernels(p, k)->run(x, n, p->far);
            break;
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD: {
            /* One pass, deviations from a center near the block's values: float32's first
             * element, float64's mean of its first elements (reduce_moments.h). */
            double c, s1, s2;
            if (f32) {
                c = xf[0];
                k->moments_f32(xf, n, xf[0], &s1, &s2);
            } else {
                k->moments_f64(xd, n, &c, &s1, &s2);
            }
            r = kb_moments_partial((double)n, c, s1, s2);
            break;
        }
        case KB_REDUCE_MIN:
            r.a = f32 ? k->min_f32(xf, n) : k->min_f64(xd, n);
            break;
        case KB_REDUCE_MAX:
            r.a = f32 ? k->max_f32(xf, n) : k->max_f64(xd, n);
            break;
        case KB_REDUCE_ARGMIN:
        case KB_REDUCE_ARGMAX: {
            int64_t i = p->op == KB_REDUCE_ARGMIN
                            ? (f32 ? k->argmin_f32(xf, n) : k->argmin_f64(xd, n))
                            : (f32 ? k->argmax_f32(xf, n) : k->argmax_f64(xd, n));
            r.a = f32 ? xf[i] : xd[i];
            r.index = first + i;
            break;
        }
        default:
            break;
    }
    return r;
}

/* The rows kernels of a float32 or float64 min, max, argmin or argmax (reduce_kernels.h). */
typedef void (*extreme_rows_kernel)(const char *x, int64_t rows, int64_t stride, int64_t n,
                                    char *out, int64_t out_stride, bool far);
typedef void (*arg_rows_kernel)(const char *x, int64_t rows, int64_t stride, int64_t n,
                                int64_t *out, bool far);

static extreme_rows_kernel extreme_rows(const kb_reduce_plan *p, const kb_reduce_kernels *k) {
    bool max = p->op == KB_REDUCE_MAX;
    return p->in_dtype == KB_F32 ? (max ? k->max_rows_f32 : k->min_rows_f32)
                                 : (max ? k->max_rows_f64 : k->min_rows_f64);
}

static arg_rows_kernel arg_rows(const kb_reduce_plan *p, const kb_reduce_kernels *k) {
    bool max = p->op == KB_REDUCE_ARGMAX;
    return p->in_dtype == KB_F32 ? (max ? k->argmax_rows_f32 : k->argmin_rows_f32)
                                 : (max ? k->argmax_rows_f64 : k->argmin_rows_f64);
}

/* The partials of group whole blocks from x, adjacent, the first with flat index first, as the
 * rows of one rows kernel call, which reads NSTREAMS of them at once (reduce_sum.h,
 * reduce_rows.h, reduce_arg.h, reduce_moments.h): the partials run_block gives them, bit for
 * bit. False, and nothing done, for the ops it does not take (prod). */
static bool blocks_as_rows(const kb_reduce_plan *p, const kb_reduce_kernels *k, const char *x,
                           int64_t group, int64_t first, kb_partial *out) {
    int64_t stride = KB_REDUCE_BLOCK * (int64_t)p->itemsize;
    bool f32 = p->in_dtype == KB_F32;
    double values[KB_REDUCE_GROUP_BLOCKS];
    switch (p->op) {
        case KB_REDUCE_SUM:
        case KB_REDUCE_MEAN:
            sum_kernels(p, k)->rows(x, group, stride, KB_REDUCE_BLOCK, values, true);
            break;
        case KB_REDUCE_MIN:
        case KB_REDUCE_MAX:
            if (f32) {
                float v32[KB_REDUCE_GROUP_BLOCKS];
                extreme_rows(p, k)(x, group, stride, KB_REDUCE_BLOCK, (char *)v32, sizeof *v32,
                                   true);
                for (int64_t g = 0; g < group; g++)
                    values[g] = v32[g];
            } else {
                extreme_rows(p, k)(x, group, stride, KB_REDUCE_BLOCK, (char *)values,
                                   sizeof *values, true);
            }
            break;
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD: {
            /* each block's center and sums around it, made a partial as run_block makes one */
            double n = KB_REDUCE_BLOCK, sums[3 * KB_REDUCE_GROUP_BLOCKS];
            if (f32)
                k->moments_rows_f32(x, group, stride, KB_REDUCE_BLOCK, NULL, sums, true);
            else
                k->moments_rows_f64(x, group, stride, KB_REDUCE_BLOCK, NULL, sums, true);
            for (int64_t g = 0; g < group; g++)
                out[g] = f32 ? kb_moments_partial(n, load(p, x + g * stride), sums[2 * g],
                                                  sums[2 * g + 1])
                             : kb_moments_partial(n, sums[3 * g], sums[3 * g + 1], sums[3 * g + 2]);
            return true;
        }
        case KB_REDUCE_ARGMIN:
        case KB_REDUCE_ARGMAX: {
            int64_t index[KB_REDUCE_GROUP_BLOCKS];
            arg_rows(p, k)(x, group, stride, KB_REDUCE_BLOCK, index, true);
            for (int64_t g = 0; g < group; g++) {
                int64_t i = g * KB_REDUCE_BLOCK + index[g];
                out[g] =
                    (kb_partial){.a = load(p, x + i * (int64_t)p->itemsize), .index = first + i};
            }
            return true;
        }
        default:
            return false;
    }
    for (int64_t g = 0; g < group; g++)
        out[g] = (kb_partial){.a = values[g]};
    return true;
}

typedef struct inner_shape {
    int64_t run;     /* contiguous elements per run */
    int64_t per_run; /* blocks per run */
    int64_t blocks;  /* blocks per output */
    int64_t chunks;  /* chunks per output */
} inner_shape;

/* The partials of chunks c0 to c1 - 1 of one output into out. From memory, the whole blocks
 * that follow each other in a run go as the rows of one call, up to KB_REDUCE_GROUP_BLOCKS and
 * across the chunks' bounds, so that memory sees NSTREAMS long streams (a chunk's 16 blocks a
 * call had made streams of five blocks and one block alone with three streams); each block
 * keeps the partial it has alone, and each chunk's partials combine as they did. */
static void inner_chunks(const kb_reduce_plan *p, const kb_reduce_kernels *k, const inner_shape *s,
                         const char *base, int64_t c0, int64_t c1, kb_partial *out) {
    kb_partial storage[8], parts[KB_REDUCE_GROUP_BLOCKS];
    kb_pairwise pw;
    kb_pairwise_init(&pw, p->op, 1, storage);
    int64_t b = c0 * KB_REDUCE_CHUNK_BLOCKS;
    int64_t end = c1 * KB_REDUCE_CHUNK_BLOCKS < s->blocks ? c1 * KB_REDUCE_CHUNK_BLOCKS : s->blocks;
    while (b < end) {
        int64_t run = b / s->per_run, piece = b % s->per_run;
        int64_t start = piece * KB_REDUCE_BLOCK;
        int64_t n = s->run - start < KB_REDUCE_BLOCK ? s->run - start : KB_REDUCE_BLOCK;
        const char *x =
            base + kb_reduce_plan_roffset(p, p->nr - 1, run) + start * (int64_t)p->itemsize;
        int64_t group = (s->run - start) / KB_REDUCE_BLOCK;
        if (group > end - b)
            group = end - b;
        if (group > KB_REDUCE_GROUP_BLOCKS)
            group = KB_REDUCE_GROUP_BLOCKS;
        if (!(p->far && group > 1 && blocks_as_rows(p, k, x, group, run * s->run + start, parts))) {
            parts[0] = run_block(p, k, x, n, run * s->run + start);
            group = 1;
        }
        for (int64_t g = 0; g < group; g++) {
            kb_pairwise_push(&pw, &parts[g]);
            if (++b % KB_REDUCE_CHUNK_BLOCKS == 0 || b == end) {
                *out++ = *kb_pairwise_finish(&pw);
                kb_pairwise_init(&pw, p->op, 1, storage);
            }
        }
    }
}

static kb_status reduce_inner(const kb_reduce_plan *p, const kb_reduce_kernels *k, int threads) {
    inner_shape s;
    s.run = p->rshape[p->nr - 1];
    s.per_run = (s.run + KB_REDUCE_BLOCK - 1) / KB_REDUCE_BLOCK;
    s.blocks = p->count / s.run * s.per_run;
    s.chunks = (s.blocks + KB_REDUCE_CHUNK_BLOCKS - 1) / KB_REDUCE_CHUNK_BLOCKS;
    int64_t tasks = p->nout * s.chunks;
    if (tasks == 1) {
        /* One output in one chunk (a small axis=None): no scratch, no thread team. */
        kb_partial r;
        inner_chunks(p, k, &s, p->in, 0, 1, &r);
        return kb_reduce_store(p, &r, p->out);
    }

    kb_partial *partials = kb_scratch_get(KB_SCRATCH_CALL, (size_t)tasks * sizeof *partials);
    if (!partials)
        return kb_fail(KB_ENOMEM, "out of memory for %lld partial results", (long long)tasks);
    int parallel = threads > 1 && p->nout * p->count >= KB_REDUCE_PARALLEL_MIN;
    /* A thread's work goes a span of an output's chunks at a time: at most as many as a group
     * of blocks holds, and, when the outputs are fewer than the threads, as many spans as make
     * equal shares for them. The chunks' partials do not depend on the span. */
    int64_t spans = (s.chunks + KB_REDUCE_GROUP_CHUNKS - 1) / KB_REDUCE_GROUP_CHUNKS;
    int64_t shares = parallel && p->nout < threads ? threads : 1;
    spans = (spans + shares - 1) / shares * shares;
    if (spans > s.chunks)
        spans = s.chunks;
    int64_t span = (s.chunks + spans - 1) / spans;
    spans = (s.chunks + span - 1) / span;
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
    for (int64_t t = 0; t < p->nout * spans; t++) {
        int64_t o = t / spans, c0 = t % spans * span, in_off, out_off;
        int64_t c1 = c0 + span < s.chunks ? c0 + span : s.chunks;
        kb_reduce_plan_koffsets(p, o, &in_off, &out_off);
        inner_chunks(p, k, &s, p->in + in_off, c0, c1, partials + o * s.chunks + c0);
    }

    kb_status status = KB_OK;
    kb_partial *storage =
        kb_scratch_get(KB_SCRATCH_WORK, (size_t)kb_pairwise_depth(s.chunks) * sizeof *storage);
    if (!storage)
        status = kb_fail(KB_ENOMEM, "out of memory");
    for (int64_t o = 0; o < p->nout && status == KB_OK; o++) {
        kb_pairwise pw;
        kb_pairwise_init(&pw, p->op, 1, storage);
        for (int64_t c = 0; c < s.chunks; c++)
            kb_pairwise_push(&pw, &partials[o * s.chunks + c]);
        int64_t in_off, out_off;
        kb_reduce_plan_koffsets(p, o, &in_off, &out_off);
        status = kb_reduce_store(p, kb_pairwise_finish(&pw), p->out + out_off);
    }
    kb_scratch_release(KB_SCRATCH_WORK, storage);
    kb_scratch_release(KB_SCRATCH_CALL, partials);
    return status;
}

/* The cols mode: kept dimension `col` is contiguous; the others are walked as groups. */
typedef struct cols_shape {
    int col;
    int64_t columns, tile, tiles;
    int64_t groups;       /* product of the other kept dimensions */
    int64_t rows;         /* = plan count */
    int64_t block_rows;   /* rows per block */
    int64_t chunk_blocks; /* blocks per chunk */
    int64_t blocks, chunks;
} cols_shape;

/* Input and output offsets of group g (the kept dimensions other than col). */
static void group_offsets(const kb_reduce_plan *p, int col, int64_t g, int64_t *in_off,
                          int64_t *out_off) {
    int64_t a = 0, b = 0;
    for (int i = p->nk - 1; i >= 0; i--) {
        if (i == col)
            continue;
        int64_t idx = g % p->kshape[i];
        g /= p->kshape[i];
        a += idx * p->kin[i];
        b += idx * p->kout[i];
    }
    *in_off = a;
    *out_off = b;
}

/* The columns of (group, tile) number gt, over the groups and tiles: where the first is in the
 * input and in the output, and how many there are. */
typedef struct cols_span {
    const char *in;
    char *out;
    int64_t w;
} cols_span;

static cols_span span_of(const kb_reduce_plan *p, int col, const cols_shape *s, int64_t gt) {
    int64_t in_off, out_off, j0 = gt % s->tiles * s->tile;
    group_offsets(p, col, gt / s->tiles, &in_off, &out_off);
    return (cols_span){.in = p->in + in_off + j0 * p->kin[col],
                       .out = p->out + out_off + j0 * p->kout[col],
                       .w = s->columns - j0 < s->tile ? s->columns - j0 : s->tile};
}

typedef struct cols_scratch {
    /* The rows the cols kernels load and store as they stream a block: each placed by
     * cols_block, in its room (KB_ALIAS_PAGE bytes more), where the block's first row puts
     * it (core/alias.h), so that its speed is the same in every process. */
    double *sum, *dev;
    float *best32;
    double *best64;
    char *room[4];        /* sum, dev, best32, best64 */
    double *hi, *lo, *m2; /* var and std's running moments (moments_chunk) */
    int64_t *index;
    kb_partial *row;
    kb_partial *stack;
    void *memory; /* all of the above, from kb_scratch_get */
} cols_scratch;

/* Calls fn for each stretch of rows [r0, r1) that is evenly strided: rows within the last
 * reduced dimension. */
#define FOR_EACH_STRETCH(p, base, r0, r1, x, n, first, body)                                       \
    do {                                                                                           \
        int64_t run_ = (p)->rshape[(p)->nr - 1];                                                   \
        for (int64_t r_ = (r0); r_ < (r1);) {                                                      \
            int64_t in_run_ = r_ % run_;                                                           \
            int64_t n = run_ - in_run_ < (r1)-r_ ? run_ - in_run_ : (r1)-r_;                       \
            const char *x = (base) + kb_reduce_plan_roffset((p), (p)->nr, r_);                     \
            int64_t first = r_;                                                                    \
            body;                                                                                  \
            r_ += n;                                                                               \
        }                                                                                          \
    } while (0)

/* The columns of a piece of a block whose rows rows (of item-byte elements) take half of L2,
 * so that a two-pass form's second pass over the piece reads L2: a multiple of 64, at least
 * 64. */
static int64_t l2_piece_columns(int64_t rows, int64_t item) {
    int64_t piece = kb_cache_l2_bytes() / 2 / (rows * item);
    return piece < 64 ? 64 : piece - piece % 64;
}

static void cols_block(const kb_reduce_plan *p, const kb_reduce_kernels *k, const char *base,
                       int64_t w, int64_t r0, int64_t r1, cols_scratch *sc) {
    bool f32 = p->in_dtype == KB_F32;
    int64_t stride = p->rin[p->nr - 1];
    int64_t nb = r1 - r0;
    const char *first_row = base + kb_reduce_plan_roffset(p, p->nr, r0);
    sc->sum = kb_alias_place(sc->room[0], first_row);
    sc->dev = kb_alias_place(sc->room[1], first_row);
    sc->best32 = kb_alias_place(sc->room[2], first_row);
    sc->best64 = kb_alias_place(sc->room[3], first_row);
    switch (p->op) {
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD:
            /* From memory, float64's first pass is the column sum's kernel, which streams whole
             * rows and prefetches (reduce_sum.h): sumd_cols' tiles of register sums read a row
             * in 512-byte pieces and took 55% of a float64 4096 x 4096 std along axis 0 from
             * DRAM at 14 GB/s. From the caches the tiles, which keep their sums in registers
             * over all the block's rows, were as fast or faster (1024 x 1024, 64 x 64). */
            memset(sc->sum, 0, (size_t)w * sizeof *sc->sum);
            memset(sc->dev, 0, (size_t)w * sizeof *sc->dev);
            /* Both passes over a piece of the block's columns before the next piece, a piece
             * being as wide as keeps its rows in half of L2 for the second pass (whole rows when
             * they fit): a float64 4096 x 4096 std along axis 0 read its 2 MiB blocks a second
             * time from L3. Columns are independent, so the pieces change no bits. */
            int64_t item = (int64_t)kb_dtype_size(p->in_dtype);
            int64_t piece = l2_piece_columns(nb, item);
            for (int64_t j0 = 0; j0 < w; j0 += piece) {
                int64_t pw = w - j0 < piece ? w - j0 : piece;
                double *sum = sc->sum + j0, *dev = sc->dev + j0;
                FOR_EACH_STRETCH(p, base, r0, r1, x, n, first, {
                    (void)first;
                    if (!f32 && p->far)
                        sum_kernels(p, k)->cols(x + j0 * item, n, stride, pw, sum, true);
                    else
                        (f32 ? k->sumd_cols_f32 : k->sumd_cols_f64)(x + j0 * item, n, stride, pw,
                                                                    sum);
                });
                for (int64_t j = 0; j < pw; j++)
                    sum[j] /= (double)nb;
                FOR_EACH_STRETCH(p, base, r0, r1, x, n, first, {
                    (void)first;
                    (f32 ? k->sqdev_cols_f32 : k->sqdev_cols_f64)(x + j0 * item, n, stride, pw, sum,
                                                                  dev);
                });
            }
            for (int64_t j = 0; j < w; j++) {
                sc->row[j].a = (double)nb;
                sc->row[j].b = sc->sum[j];
                sc->row[j].c = sc->dev[j];
                sc->row[j].d = 0; /* narrow columns: the mean as rounded (docs/reductions.md) */
            }
            return;
        default:
            break;
    }
    /* Extremes start from the block's first row and fold in the rest. */
    if (f32)
        memcpy(sc->best32, first_row, (size_t)w * sizeof(float));
    else
        memcpy(sc->best64, first_row, (size_t)w * sizeof(double));
    if (p->op == KB_REDUCE_ARGMIN || p->op == KB_REDUCE_ARGMAX)
        for (int64_t j = 0; j < w; j++)
            sc->index[j] = r0;
    FOR_EACH_STRETCH(p, base, r0 + 1, r1, x, n, first, {
        switch (p->op) {
            case KB_REDUCE_MIN:
                f32 ? k->min_cols_f32(x, n, stride, w, sc->best32)
                    : k->min_cols_f64(x, n, stride, w, sc->best64);
                break;
            case KB_REDUCE_MAX:
                f32 ? k->max_cols_f32(x, n, stride, w, sc->best32)
                    : k->max_cols_f64(x, n, stride, w, sc->best64);
                break;
            case KB_REDUCE_ARGMIN:
                f32 ? k->argmin_cols_f32(x, n, stride, w, first, sc->best32, sc->index)
                    : k->argmin_cols_f64(x, n, stride, w, first, sc->best64, sc->index);
                break;
            default:
                f32 ? k->argmax_cols_f32(x, n, stride, w, first, sc->best32, sc->index)
                    : k->argmax_cols_f64(x, n, stride, w, first, sc->best64, sc->index);
                break;
        }
    });
}

/* A block's extremes (from cols_block) as partial results, to merge with other chunks'. */
static void extremes_to_row(const kb_reduce_plan *p, int64_t w, cols_scratch *sc) {
    for (int64_t j = 0; j < w; j++) {
        sc->row[j].a = p->in_dtype == KB_F32 ? sc->best32[j] : sc->best64[j];
        sc->row[j].index = sc->index[j];
    }
}

/* Whether float32 lanes held a block's sums of nb rows (moments_cols_near_f32): every column's
 * sum of squared deviations finite and either at least nb * 2^-100, so that squares that
 * underflowed (below 2^-126, float32's least normal) are too few and small to matter to the
 * bound, or 0 with a sum of 0 (deviations all 0: a constant column). Deviations of about 2^61
 * or more (whose squares can overflow float32), or an infinite or NaN value, fail it; moments_chunk
 * then reads the block again widened to double, which holds any finite data (docs/reductions.md).
 */
static bool float_lanes_held(int64_t w, double nb, const double *sum, const double *sq) {
    double least = nb * 0x1p-100;
    bool held = true;
    for (int64_t j = 0; j < w; j++)
        held &= (sq[j] >= least && sq[j] <= DBL_MAX) || (sq[j] == 0 && sum[j] == 0);
    return held;
}

/* A block's sums around its centers (F32: c32, hi rounded to float32; else hi itself), of nb
 * rows after n, merged into the running moments hi + lo and m2 (moments_chunk): delta, the
 * block's mean c + sum / nb less the running mean hi + lo (c - hi is exact); the new mean
 * hi + lo + delta * nb / (n + nb), kept as hi + lo (kb_two_sum); M2 grows by the block's
 * own and Chan's delta^2 * n * nb / (n + nb). A loop of plain arithmetic over arrays, which
 * the compiler turns into vectors: one column at a time, its division and two-sum had cost
 * 17% of a float32 1024 x 1024 var along axis 0. */
static inline __attribute__((always_inline)) void
moments_merge_block(bool F32, int64_t w, double n, double nb, const float *c32, const double *sum,
                    const double *dev, double *hi, double *lo, double *m2) {
    double total = n + nb, to_mean = nb / total, to_m2 = n * nb / total;
    for (int64_t j = 0; j < w; j++) {
        double c = F32 ? (double)c32[j] : hi[j];
        kb_partial block = kb_moments_partial(nb, c, sum[j], dev[j]);
        double delta = block.d + (c - hi[j]) - lo[j];
        hi[j] = kb_two_sum(hi[j], lo[j] + delta * to_mean, &lo[j]);
        m2[j] += block.c + delta * delta * to_m2;
    }
}

/* var and std of the rows [r0, r1) of a chunk, read from memory once, into sc->row as
 * cols_block leaves a block's (and their M2 into sc->dev, which store_block's vector stores
 * read). The running mean of the rows so far is kept per column as hi + lo, two doubles; each
 * block after the first (each as long as all the rows before it) is summed around a center c
 * near hi (moments_cols_f64 around hi itself, moments_cols_near_f32 around hi rounded to
 * float32): sum(d) / nb + (c - hi) - lo is then the distance delta from the running mean to
 * the block's, to the last bit however far from zero both lie, and sum(d^2) - sum(d)^2 / nb
 * the block's own M2, which Chan's formula adds with delta^2 * n * nb / (n + nb). The
 * rounding of a block's M2 is a few ulps (float64) or a few float32 roundings (float32's
 * lanes) of its own M2 plus nb * (delta + lo + c - hi)^2, and the merge adds at least half of
 * nb * delta^2 to the result (the rows before number at least nb): the error stays within
 * that many roundings of the result whatever the data, where float32 lanes around a fixed
 * center, as a block's first row, would lose accuracy in proportion to
 * n (center - mean)^2 / M2 (docs/reductions.md). The first block of float64 is read twice
 * while it is in cache: its sum gives hi, its deviations around hi lo and its M2 (Chan, Golub
 * and LeVeque's corrected two-pass form); float32's once, widened, around its first row
 * (moments_cols_f32, whose d are exact in double), which gives its mean as hi + lo. */
static void moments_chunk(const kb_reduce_plan *p, const kb_reduce_kernels *k, const char *base,
                          int64_t w, int64_t r0, int64_t r1, int64_t block_rows, cols_scratch *sc) {
    bool f32 = p->in_dtype == KB_F32;
    int64_t stride = p->rin[p->nr - 1],
            item = f32 ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    const char *first_row = base + kb_reduce_plan_roffset(p, p->nr, r0);
    const float *first32 = (const float *)(const void *)first_row;
    double *sum = kb_alias_place(sc->room[0], first_row),
           *dev = kb_alias_place(sc->room[1], first_row);
    /* float32's centers, in the row the extremes keep their best values in */
    float *c32 = kb_alias_place(sc->room[2], first_row);
    double *hi = sc->hi, *lo = sc->lo, *m2 = sc->m2;
    double n = 0;
    /* a chunk of one block is its partial (and its M2 for the stores) as it stands */
    bool single = r1 - r0 <= block_rows;
    for (int64_t b0 = r0, b1; b0 < r1; b0 = b1) {
        /* each block after the first as long as the rows before it, which the bound asks no
         * more than, so that the merges, a division or two a column each, come a logarithm's
         * worth a chunk: one per 64 rows had cost as much as reading the rows from L3 */
        int64_t want = b0 == r0 ? block_rows : b0 - r0;
        b1 = b0 + want < r1 ? b0 + want : r1;
        double nb = (double)(b1 - b0);
        memset(sum, 0, (size_t)w * sizeof *sum);
        memset(dev, 0, (size_t)w * sizeof *dev);
        if (f32) {
            if (b0 > r0)
                for (int64_t j = 0; j < w; j++)
                    c32[j] = (float)hi[j];
            FOR_EACH_STRETCH(p, base, b0, b1, x, rows, first, {
                (void)first;
                (b0 == r0 ? k->moments_cols_f32 : k->moments_cols_near_f32)(
                    x, rows, stride, w, b0 == r0 ? first32 : c32, sum, dev, p->far);
            });
            if (b0 > r0 && !float_lanes_held(w, nb, sum, dev)) {
                memset(sum, 0, (size_t)w * sizeof *sum);
                memset(dev, 0, (size_t)w * sizeof *dev);
                FOR_EACH_STRETCH(p, base, b0, b1, x, rows, first, {
                    (void)first;
                    k->moments_cols_f32(x, rows, stride, w, c32, sum, dev, p->far);
                });
            }
        } else {
            /* The first block's two passes go a piece of its columns at a time, a piece being
             * as wide as keeps its rows in half of L2 for the second pass (whole rows when they
             * fit); the later blocks' one pass takes all the columns at once. */
            int64_t piece = b0 > r0 ? w : l2_piece_columns(b1 - b0, item);
            for (int64_t j0 = 0; j0 < w; j0 += piece) {
                int64_t pw = w - j0 < piece ? w - j0 : piece, off = j0 * item;
                if (b0 == r0) {
                    memset(hi + j0, 0, (size_t)pw * sizeof *hi);
                    FOR_EACH_STRETCH(p, base, b0, b1, x, rows, first, {
                        (void)first;
                        sum_kernels(p, k)->cols(x + off, rows, stride, pw, hi + j0, p->far);
                    });
                    for (int64_t j = j0; j < j0 + pw; j++)
                        hi[j] /= nb;
                }
                FOR_EACH_STRETCH(p, base, b0, b1, x, rows, first, {
                    (void)first;
                    k->moments_cols_f64(x + off, rows, stride, pw, hi + j0, sum + j0, dev + j0,
                                        p->far);
                });
            }
        }
        if (single) {
            for (int64_t j = 0; j < w; j++) {
                sc->row[j] = kb_moments_partial(nb, f32 ? first32[j] : hi[j], sum[j], dev[j]);
                dev[j] = sc->row[j].c;
            }
            sc->dev = dev;
            return;
        }
        if (b0 == r0)
            for (int64_t j = 0; j < w; j++) {
                double c = f32 ? (double)first32[j] : hi[j];
                kb_partial block = kb_moments_partial(nb, c, sum[j], dev[j]);
                /* the block's mean c + block.d as hi + lo: float64's hi is its rounded mean
                 * already; float32's c, its first row, is far from it, so the two are added
                 * exactly */
                if (f32) {
                    hi[j] = kb_two_sum(c, block.d, &lo[j]);
                } else {
                    hi[j] = c;
                    lo[j] = block.d;
                }
                m2[j] = block.c;
            }
        else if (f32)
            moments_merge_block(true, w, n, nb, c32, sum, dev, hi, lo, m2);
        else
            moments_merge_block(false, w, n, nb, NULL, sum, dev, hi, lo, m2);
        n += nb;
    }
    sc->dev = dev;
    for (int64_t j = 0; j < w; j++) {
        sc->row[j] = (kb_partial){.a = n, .b = hi[j], .c = m2[j], .d = lo[j]};
        dev[j] = m2[j];
    }
}

/* A block's results (from cols_block) stored as the output, when the block is all the rows:
 * extremes in the input's type (min, max) or int64 (argmin, argmax); var and std divided,
 * and rooted for std, by the vector stores where the output is contiguous. False when a value
 * cannot be stored. */
static bool store_block(const kb_reduce_plan *p, const kb_reduce_kernels *k, int col, char *out,
                        int64_t w, const cols_scratch *sc) {
    int64_t step = p->kout[col];
    if (p->op == KB_REDUCE_VAR || p->op == KB_REDUCE_STD) {
        bool root = p->op == KB_REDUCE_STD, stored = true;
        if (p->out_dtype == KB_F32 && step == (int64_t)sizeof(float))
            (root ? k->store_sqrt_f32 : k->store_f32)(sc->dev, w, kb_reduce_dof(p),
                                                      (float *)(void *)out);
        else if (p->out_dtype == KB_F64 && step == (int64_t)sizeof(double))
            (root ? k->store_sqrt_f64 : k->store_f64)(sc->dev, w, kb_reduce_dof(p),
                                                      (double *)(void *)out);
        else
            for (int64_t j = 0; j < w; j++)
                stored &= kb_reduce_store(p, &sc->row[j], out + j * step) == KB_OK;
        return stored;
    }
    if (p->op == KB_REDUCE_ARGMIN || p->op == KB_REDUCE_ARGMAX)
        for (int64_t j = 0; j < w; j++)
            memcpy(out + j * step, &sc->index[j], sizeof sc->index[j]);
    else if (p->in_dtype == KB_F32)
        for (int64_t j = 0; j < w; j++)
            memcpy(out + j * step, &sc->best32[j], sizeof sc->best32[j]);
    else
        for (int64_t j = 0; j < w; j++)
            memcpy(out + j * step, &sc->best64[j], sizeof sc->best64[j]);
    return true;
}

static void cols_scratch_free(cols_scratch *sc) {
    kb_scratch_release(KB_SCRATCH_WORK, sc->memory);
}

/* The arrays of a thread's scratch, one after another in one buffer, each on a cache line. */
static bool cols_scratch_alloc(cols_scratch *sc, int64_t w, int depth) {
    memset(sc, 0, sizeof *sc);
    size_t n = (size_t)w, line = 64;
    size_t sizes[] = {n * sizeof *sc->sum + KB_ALIAS_PAGE,
                      n * sizeof *sc->dev + KB_ALIAS_PAGE,
                      n * sizeof *sc->best32 + KB_ALIAS_PAGE,
                      n * sizeof *sc->best64 + KB_ALIAS_PAGE,
                      n * sizeof *sc->hi,
                      n * sizeof *sc->lo,
                      n * sizeof *sc->m2,
                      n * sizeof *sc->index,
                      n * sizeof *sc->row,
                      (size_t)depth * n * sizeof *sc->stack};
    size_t at[sizeof sizes / sizeof sizes[0]], total = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        at[i] = total;
        total += (sizes[i] + line - 1) / line * line;
    }
    char *m = sc->memory = kb_scratch_get(KB_SCRATCH_WORK, total);
    if (!m)
        return false;
    for (int i = 0; i < 4; i++)
        sc->room[i] = m + at[i];
    sc->hi = (double *)(void *)(m + at[4]);
    sc->lo = (double *)(void *)(m + at[5]);
    sc->m2 = (double *)(void *)(m + at[6]);
    sc->index = (int64_t *)(void *)(m + at[7]);
    sc->row = (kb_partial *)(void *)(m + at[8]);
    sc->stack = (kb_partial *)(void *)(m + at[9]);
    memset(sc->row, 0, sizes[8]);
    return true;
}

static cols_shape cols_shape_of(const kb_reduce_plan *p, int col) {
    cols_shape s = {.col = col, .columns = p->kshape[col], .rows = p->count};
    int64_t nominal = s.columns <= 2 * KB_REDUCE_TILE ? s.columns : KB_REDUCE_TILE;
    /* A task spans as many columns as fit its share of L2, so that a wide array streams a
     * few whole rows at a time (sequential pages, which DRAM prefetchers follow) instead of
     * narrow pieces of many rows. The span orders memory only: columns are independent, so
     * the bits depend on the blocks and chunks, which the nominal tile sizes. */
    int64_t span = kb_cache_l2_bytes() / KB_REDUCE_SPAN_BYTES_PER_COLUMN;
    span = span < nominal ? nominal : span - span % nominal;
    s.tile = s.columns <= span ? s.columns : span;
    s.tiles = (s.columns + s.tile - 1) / s.tile;
    s.groups = p->nout / s.columns;
    s.block_rows = KB_REDUCE_BLOCK_ELEMENTS / nominal;
    if (s.block_rows < 64)
        s.block_rows = 64;
    if (s.block_rows > KB_REDUCE_BLOCK)
        s.block_rows = KB_REDUCE_BLOCK;
    s.blocks = (s.rows + s.block_rows - 1) / s.block_rows;
    s.chunk_blocks = KB_REDUCE_CHUNK_ELEMENTS / (s.block_rows * nominal);
    if (s.chunk_blocks < 1)
        s.chunk_blocks = 1;
    s.chunks = (s.blocks + s.chunk_blocks - 1) / s.chunk_blocks;
    return s;
}

/* The sums of chunk number chunk of a (group, tile), over the columns span holds, into sum. */
static void sum_task(const kb_reduce_plan *p, const kb_sum_kernels *sk, const cols_shape *s,
                     const cols_span *span, int64_t chunk, double *sum) {
    int64_t stride = p->rin[p->nr - 1], chunk_rows = s->chunk_blocks * s->block_rows;
    memset(sum, 0, (size_t)span->w * sizeof *sum);
    int64_t r0 = chunk * chunk_rows, r1 = r0 + chunk_rows < s->rows ? r0 + chunk_rows : s->rows;
    FOR_EACH_STRETCH(p, span->in, r0, r1, x, n, first, {
        (void)first;
        sk->cols(x, n, stride, span->w, sum, p->far);
    });
}

/* Tasks [t0, t1)'s sums, task t's into sums + t * s->tile. From memory, with one reduced axis
 * (a chunk's rows then lie evenly spaced, rin[0] apart), the consecutive whole chunks of a
 * (group, tile) go to the kernel together (cols_ranges), which reads rows of several at once
 * where that is faster: the rows of a narrow array are one stream otherwise, read at two
 * thirds of the speed of three (docs/performance.md). Each chunk's sums have the bits
 * sum_task gives them. */
static void sum_tasks(const kb_reduce_plan *p, const kb_sum_kernels *sk, int col,
                      const cols_shape *s, int64_t t0, int64_t t1, double *sums) {
    for (int64_t t = t0; t < t1;) {
        int64_t chunk = t % s->chunks, whole = s->chunks - 1 - chunk;
        int64_t n = p->far && p->nr == 1 ? (t1 - t < whole ? t1 - t : whole) : 0;
        cols_span span = span_of(p, col, s, t / s->chunks);
        if (n < 2) {
            sum_task(p, sk, s, &span, chunk, sums + t * s->tile);
            t++;
            continue;
        }
        int64_t stride = p->rin[0], chunk_rows = s->chunk_blocks * s->block_rows;
        for (int64_t q = 0; q < n; q++)
            memset(sums + (t + q) * s->tile, 0, (size_t)span.w * sizeof *sums);
        sk->cols_ranges(span.in + chunk * chunk_rows * stride, n, chunk_rows * stride, chunk_rows,
                        stride, span.w, sums + t * s->tile, s->tile);
        t += n;
    }
}

/* What a sum is divided by: the count for a mean. */
static double sum_scale(const kb_reduce_plan *p) {
    return p->op == KB_REDUCE_MEAN ? (double)p->count : 1.0;
}

/* Stores n sums (or means) into out, step bytes apart, as kb_reduce_store would, in one typed
 * loop or vector kernel: a call per element, or a scalar division each, cost more than the
 * sums of a short, wide array (4 x 1000000 along axis 0). False when a value cannot be
 * stored. */
static bool store_sums(const kb_reduce_plan *p, const kb_reduce_kernels *k, const double *sums,
                       int64_t n, char *out, int64_t step) {
    double scale = sum_scale(p);
    bool stored = true;
    if (p->out_dtype == KB_F32 && step == (int64_t)sizeof(float))
        k->store_f32(sums, n, scale, (float *)(void *)out);
    else if (p->out_dtype == KB_F64 && step == (int64_t)sizeof(double))
        k->store_f64(sums, n, scale, (double *)(void *)out);
    else if (p->out_dtype == KB_F16 && step == (int64_t)sizeof(uint16_t))
        k->store_f16(sums, n, scale, (uint16_t *)(void *)out);
    else if (p->out_dtype == KB_F32)
        for (int64_t j = 0; j < n; j++) {
            float value = (float)(sums[j] / scale);
            memcpy(out + j * step, &value, sizeof value);
        }
    else if (p->out_dtype == KB_F64)
        for (int64_t j = 0; j < n; j++) {
            double value = sums[j] / scale;
            memcpy(out + j * step, &value, sizeof value);
        }
    else
        for (int64_t j = 0; j < n; j++) {
            kb_partial r = {.a = sums[j]};
            if (kb_reduce_store(p, &r, out + j * step) != KB_OK)
                stored = false;
        }
    return stored;
}

/* Sums and means: each task adds its chunk's rows into one row of double sums, in order
 * (KB_SUM_DEPTH-row partials in the input type fold into it, docs/reductions.md), and the
 * chunks' rows add up in chunk order. No per-block partials: for a sum they would only copy
 * rows of doubles around, a quarter of the time of a 1024 x 1024 float32 column sum. When
 * there is one chunk (few rows), a task stores its row at once from a scratch row that stays
 * in cache: a row of sums for every column in memory would be written and read back, more
 * traffic than the input itself for 4 x 1000000. */
static kb_status reduce_cols_sum(const kb_reduce_plan *p, const kb_reduce_kernels *k, int col,
                                 const cols_shape *s, int threads) {
    const kb_sum_kernels *sk = sum_kernels(p, k);
    int64_t tasks = s->groups * s->tiles * s->chunks;
    int parallel = threads > 1 && p->nout * p->count >= KB_REDUCE_PARALLEL_MIN;
    int stored = 1, failed = 0;
    /* Few rows go straight into a contiguous output of the input's type (cols_store): a row of
     * double sums between them had cost more than the rows themselves (4 x 1000000 float32
     * along axis 0: a memset, a fold and the store's read per column, for 16 bytes of input). */
    double scale = sum_scale(p);
    bool straight = sk->cols_store && p->nr == 1 && s->rows <= KB_SUM_STORE_ROWS &&
                    p->out_dtype == p->in_dtype &&
                    p->kout[col] == (int64_t)kb_dtype_size(p->out_dtype);
    if (s->chunks == 1) {
#pragma omp parallel num_threads(threads) if (parallel) reduction(& : stored) reduction(| : failed)
        {
            /* The sums, folded into once every KB_SUM_DEPTH rows, placed as cols_block's rows
             * are (core/alias.h) */
            char *room =
                kb_scratch_get(KB_SCRATCH_WORK, (size_t)s->tile * sizeof(double) + KB_ALIAS_PAGE);
            double *sum = room ? kb_alias_place(room, p->in) : NULL;
#pragma omp for schedule(static)
            for (int64_t t = 0; t < tasks; t++) {
                cols_span span = span_of(p, col, s, t);
                if (straight &&
                    sk->cols_store(span.in, s->rows, p->rin[0], span.w, scale, span.out))
                    continue;
                if (!sum) {
                    failed = 1;
                    continue;
                }
                sum_task(p, sk, s, &span, 0, sum);
                stored &= store_sums(p, k, sum, span.w, span.out, p->kout[col]);
            }
            kb_scratch_release(KB_SCRATCH_WORK, room);
        }
    } else {
        char *room = kb_scratch_get(KB_SCRATCH_CALL,
                                    (size_t)(tasks * s->tile) * sizeof(double) + KB_ALIAS_PAGE);
        if (!room)
            return kb_fail(KB_ENOMEM, "out of memory for %lld partial sums",
                           (long long)(tasks * s->tile));
        double *sums = kb_alias_place(room, p->in);
        /* a contiguous share of the tasks per thread, so that its chunks can go together */
        int64_t parts = parallel ? threads : 1;
#pragma omp parallel for num_threads(threads) if (parallel) schedule(static)
        for (int64_t part = 0; part < parts; part++)
            sum_tasks(p, sk, col, s, tasks * part / parts, tasks * (part + 1) / parts, sums);
#pragma omp parallel for num_threads(threads) if (parallel) schedule(static) reduction(& : stored)
        for (int64_t gt = 0; gt < s->groups * s->tiles; gt++) {
            double *total = sums + gt * s->chunks * s->tile;
            cols_span span = span_of(p, col, s, gt);
            for (int64_t c = 1; c < s->chunks; c++)
                for (int64_t j = 0; j < span.w; j++)
                    total[j] += total[c * s->tile + j];
            stored &= store_sums(p, k, total, span.w, span.out, p->kout[col]);
        }
        kb_scratch_release(KB_SCRATCH_CALL, room);
    }
    /* Messages are per thread: restate a worker's failure on the calling thread. */
    if (failed)
        return kb_fail(KB_ENOMEM, "out of memory for reduction scratch space");
    return stored ? KB_OK : kb_fail(KB_EINVAL, "cannot store a reduction result");
}

static kb_status reduce_cols(const kb_reduce_plan *p, const kb_reduce_kernels *k, int col,
                             int threads) {
    cols_shape s = cols_shape_of(p, col);
    if (p->op == KB_REDUCE_SUM || p->op == KB_REDUCE_MEAN)
        return reduce_cols_sum(p, k, col, &s, threads);
    int parallel = threads > 1 && p->nout * p->count >= KB_REDUCE_PARALLEL_MIN;
    /* var and std take one pass over a chunk when there are columns enough for vectors: the
     * deviations of each block from the mean of the rows before it (moments_chunk). Narrow
     * columns keep two-pass blocks (the mean, then the deviations from it, while the block is
     * in cache), sized for L2 and combined pairwise: two passes and a merge per block had held
     * a float64 4096 x 4096 std along axis 0 to half the speed of its sum (one thread, Zen 4,
     * from DRAM). */
    bool moments = p->op == KB_REDUCE_VAR || p->op == KB_REDUCE_STD;
    bool one_pass = moments && s.columns >= KB_REDUCE_ONE_PASS_COLUMNS;
    if (one_pass) {
        /* A chunk is read once (moments_chunk): longer chunks, fewer rows of partials to
         * merge. */
        s.chunk_blocks *= KB_REDUCE_ONE_PASS_CHUNK_BLOCKS;
        s.chunk_blocks = s.chunk_blocks < s.blocks ? s.chunk_blocks : s.blocks;
        s.chunks = (s.blocks + s.chunk_blocks - 1) / s.chunk_blocks;
    }
    if (!moments) {
        /* Extremes and their indices are exact in any order (the earliest row wins ties, and
         * chunks merge in row order), so no block fixes their bits: a (group, tile) is cut
         * into only as many chunks as the threads need work. Chunks of 64 rows had cost a
         * copy of the first row, a row of partial results and a merge each, 45% of the time
         * of a 1024 x 1024 float32 max along axis 0. */
        int64_t pieces = s.groups * s.tiles;
        int64_t want = parallel ? (threads + pieces - 1) / pieces : 1;
        s.chunk_blocks = (s.blocks + want - 1) / want;
        s.chunks = (s.blocks + s.chunk_blocks - 1) / s.chunk_blocks;
    }
    int64_t tasks = s.groups * s.tiles * s.chunks;

    /* Extremes and one-pass moments of one chunk per (group, tile) go straight to the output. */
    bool direct = (!moments || one_pass) && s.chunks == 1;
    kb_partial *partials = NULL;
    if (!direct &&
        !(partials = kb_scratch_get(KB_SCRATCH_CALL, (size_t)(tasks * s.tile) * sizeof *partials)))
        return kb_fail(KB_ENOMEM, "out of memory for %lld partial results",
                       (long long)(tasks * s.tile));
    int failed = 0, unstored = 0;
#pragma omp parallel num_threads(threads) if (parallel) reduction(| : failed, unstored)
    {
        cols_scratch sc;
        int depth = kb_pairwise_depth(s.chunk_blocks);
        if (!cols_scratch_alloc(&sc, s.tile, depth))
            failed = 1;
#pragma omp for schedule(static)
        for (int64_t t = 0; t < tasks; t++) {
            if (failed)
                continue;
            int64_t chunk = t % s.chunks;
            cols_span span = span_of(p, col, &s, t / s.chunks);
            const char *base = span.in;
            int64_t w = span.w;
            int64_t b0 = chunk * s.chunk_blocks, b1 = b0 + s.chunk_blocks;
            b1 = b1 < s.blocks ? b1 : s.blocks;
            if (!moments || one_pass) {
                /* Extremes are exact in any order, and one-pass moments merge their blocks as
                 * they read them: the chunk goes at once. */
                int64_t r1 = b1 * s.block_rows < s.rows ? b1 * s.block_rows : s.rows;
                if (one_pass)
                    moments_chunk(p, k, base, w, b0 * s.block_rows, r1, s.block_rows, &sc);
                else
                    cols_block(p, k, base, w, b0 * s.block_rows, r1, &sc);
                if (direct) {
                    if (!store_block(p, k, col, span.out, w, &sc))
                        unstored = 1;
                } else {
                    if (!moments)
                        extremes_to_row(p, w, &sc);
                    memcpy(partials + t * s.tile, sc.row, (size_t)w * sizeof *partials);
                }
                continue;
            }
            kb_pairwise pw;
            kb_pairwise_init(&pw, p->op, (int)w, sc.stack);
            for (int64_t b = b0; b < b1; b++) {
                int64_t r0 = b * s.block_rows;
                int64_t r1 = r0 + s.block_rows < s.rows ? r0 + s.block_rows : s.rows;
                cols_block(p, k, base, w, r0, r1, &sc);
                kb_pairwise_push(&pw, sc.row);
            }
            memcpy(partials + t * s.tile, kb_pairwise_finish(&pw), (size_t)w * sizeof *partials);
        }
        if (sc.memory)
            cols_scratch_free(&sc);
    }
    if (failed) {
        kb_scratch_release(KB_SCRATCH_CALL, partials);
        return kb_fail(KB_ENOMEM, "out of memory for reduction scratch space");
    }
    if (direct)
        return unstored ? kb_fail(KB_EINVAL, "cannot store a reduction result") : KB_OK;

    /* Chunk partials merge per (group, tile), in parallel: the tiles are independent. */
    int stored = 1;
#pragma omp parallel num_threads(threads) if (parallel) reduction(& : stored) reduction(| : failed)
    {
        kb_partial *storage = kb_scratch_get(KB_SCRATCH_WORK, (size_t)kb_pairwise_depth(s.chunks) *
                                                                  (size_t)s.tile * sizeof *storage);
        if (!storage)
            failed = 1;
#pragma omp for schedule(static)
        for (int64_t gt = 0; gt < s.groups * s.tiles; gt++) {
            if (!storage)
                continue;
            cols_span span = span_of(p, col, &s, gt);
            int64_t w = span.w;
            kb_pairwise pw;
            kb_pairwise_init(&pw, p->op, (int)w, storage);
            /* Rows of the partial buffer are s.tile wide; the pairwise rows are w wide. */
            for (int64_t c = 0; c < s.chunks; c++)
                kb_pairwise_push(&pw, partials + (gt * s.chunks + c) * s.tile);
            const kb_partial *result = kb_pairwise_finish(&pw);
            for (int64_t j = 0; j < w; j++)
                if (kb_reduce_store(p, &result[j], span.out + j * p->kout[col]) != KB_OK)
                    stored = 0;
        }
        kb_scratch_release(KB_SCRATCH_WORK, storage);
    }
    kb_scratch_release(KB_SCRATCH_CALL, partials);
    /* Messages are per thread: restate a worker's failure on the calling thread. */
    if (failed)
        return kb_fail(KB_ENOMEM, "out of memory for reduction scratch space");
    return stored ? KB_OK : kb_fail(KB_EINVAL, "cannot store a reduction result");
}

/* The rows of the rows and narrow modes' batch starting at output o0. */
static int64_t batch_rows(const kb_reduce_plan *p, int64_t o0) {
    return p->nout - o0 < KB_REDUCE_ROWS_BATCH ? p->nout - o0 : KB_REDUCE_ROWS_BATCH;
}

/* The reduction of narrow row number o, one element at a time: the reference of the narrow
 * mode, which takes any type, op and layout, and rows the narrow kernels gave back (a NaN). */
static kb_status narrow_row(const kb_reduce_plan *p, int64_t o) {
    int64_t n = p->count;
    int64_t size = (int64_t)p->itemsize;
    /* A single kept dimension, the usual (N, k) case, steps without dividing. */
    int64_t in_off = o * p->kin[0], out_off = o * p->kout[0];
    if (p->nk != 1)
        kb_reduce_plan_koffsets(p, o, &in_off, &out_off);
    const char *x = p->in + in_off;
    kb_partial r = {.a = load(p, x), .index = 0};
    switch (p->op) {
        case KB_REDUCE_SUM:
        case KB_REDUCE_MEAN:
            for (int64_t i = 1; i < n; i++)
                r.a += load(p, x + i * size);
            break;
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD: {
            /* the mean as x0 + sum(x - x0) / n, which a constant row gives exactly */
            double x0 = r.a, sum = 0;
            for (int64_t i = 1; i < n; i++)
                sum += load(p, x + i * size) - x0;
            double mean = x0 + sum / (double)n, dev = 0;
            for (int64_t i = 0; i < n; i++) {
                double d = load(p, x + i * size) - mean;
                dev += d * d;
            }
            r.a = (double)n;
            r.b = mean;
            r.c = dev;
            break;
        }
        default:
            for (int64_t i = 1; i < n; i++) {
                kb_partial e = {.a = load(p, x + i * size), .index = i};
                kb_partial_merge(p->op, &r, &e);
            }
            break;
    }
    return kb_reduce_store(p, &r, p->out + out_off);
}

/* Whether the level's narrow kernels (reduce_narrow.h) take the plan: float32 or float64 rows
 * of 2 to KB_REDUCE_NARROW adjacent elements along one kept dimension, and contiguous results
 * of the input's type (int64 indices for argmin and argmax). */
static bool narrow_kernels_apply(const kb_reduce_plan *p) {
    if ((p->in_dtype != KB_F32 && p->in_dtype != KB_F64) || p->nk != 1 || p->count < 2 ||
        p->count > KB_REDUCE_NARROW || p->kin[0] != p->count * (int64_t)p->itemsize ||
        p->op == KB_REDUCE_PROD)
        return false;
    if (p->op == KB_REDUCE_ARGMIN || p->op == KB_REDUCE_ARGMAX)
        return p->out_dtype == KB_INT64 && p->kout[0] == (int64_t)sizeof(int64_t);
    return p->out_dtype == p->in_dtype && p->kout[0] == (int64_t)p->itemsize;
}

/* Narrow rows through the level's narrow kernels, a batch of rows a call, the results stored
 * a vector at a time as reduce_rows stores its sums (one by one, a store cost more than a
 * short row takes to reduce). A batch whose min, max or arg op met a NaN is redone row by row
 * by the reference. */
static kb_status reduce_narrow_kernels(const kb_reduce_plan *p, const kb_reduce_kernels *k,
                                       int threads) {
    bool f32 = p->in_dtype == KB_F32;
    bool arg = p->op == KB_REDUCE_ARGMIN || p->op == KB_REDUCE_ARGMAX;
    bool root = p->op == KB_REDUCE_STD;
    double scale = 1;
    if (p->op == KB_REDUCE_MEAN)
        scale = (double)p->count;
    else if (p->op == KB_REDUCE_VAR || root)
        scale = kb_reduce_dof(p);
    int64_t batches = (p->nout + KB_REDUCE_ROWS_BATCH - 1) / KB_REDUCE_ROWS_BATCH;
    int parallel = threads > 1 && p->nout * p->count >= KB_REDUCE_PARALLEL_MIN;
    int stored = 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel) reduction(& : stored)
    for (int64_t b = 0; b < batches; b++) {
        double val[KB_REDUCE_ROWS_BATCH];
        int64_t o0 = b * KB_REDUCE_ROWS_BATCH, rows = batch_rows(p, o0);
        const void *x = p->in + o0 * p->kin[0];
        void *out = p->out + o0 * p->kout[0];
        int redo = f32 ? k->narrow_rows_f32(p->op, x, rows, p->count, val, out)
                       : k->narrow_rows_f64(p->op, x, rows, p->count, val, out);
        if (redo) {
            for (int64_t i = 0; i < rows; i++)
                stored &= narrow_row(p, o0 + i) == KB_OK;
        } else if (!arg) {
            if (f32)
                (root ? k->store_sqrt_f32 : k->store_f32)(val, rows, scale, out);
            else
                (root ? k->store_sqrt_f64 : k->store_f64)(val, rows, scale, out);
        }
    }
    return stored ? KB_OK : kb_fail(KB_EINVAL, "cannot store a reduction result");
}

/* Narrow rows (a short contiguous run per output, such as shape (N, 4) along axis 1): the
 * level's narrow kernels where they apply, else one tight loop per output, cheaper than a
 * kernel call and a pairwise merge each. */
static kb_status reduce_narrow(const kb_reduce_plan *p, const kb_reduce_kernels *k, int threads) {
    if (narrow_kernels_apply(p))
        return reduce_narrow_kernels(p, k, threads);
    kb_status status = KB_OK;
    int parallel = threads > 1 && p->nout * p->count >= KB_REDUCE_PARALLEL_MIN;
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
    for (int64_t o = 0; o < p->nout; o++)
        if (narrow_row(p, o) != KB_OK)
            status = KB_EINVAL;
    /* Messages are per thread: restate a worker's failure on the calling thread. */
    return status == KB_OK ? KB_OK : kb_fail(status, "cannot store a reduction result");
}

/* Whether the sum, extreme and arg rows kernels read several rows at once (their far): from
 * memory, and from beyond L2 where each row spans a page or more. A core's prefetchers follow a
 * stream only within its page, so a row that starts a page waits for its first lines, unless
 * other rows' streams are in flight: 1024 x 1024 along axis 1 from L3, one thread, Zen 3, max
 * 0.84-0.86 of the time one row at a time, sum float64 0.96, argmax 0.63 (float32) and 0.80. */
static bool rows_together(const kb_reduce_plan *p) {
    int64_t row = p->count * (int64_t)p->itemsize;
    return p->far || (row >= KB_REDUCE_PAGE_BYTES && p->nout * row > kb_cache_l2_bytes());
}

/* Rows of at most one block each (shape (N, 32) along axis 1): one run kernel call per output,
 * stored at once. The inner mode would give each row the same single block, hence the same
 * bits (but for the var and std of rows short enough to take two passes, reduce_moments.h, and
 * only where the results are contiguous), and spend more on its chunk and pairwise bookkeeping
 * than short rows cost to read. */
static kb_status reduce_rows(const kb_reduce_plan *p, const kb_reduce_kernels *k, int threads) {
    int64_t n = p->count;
    /* The batched forms below take KB_REDUCE_ROWS_BATCH rows a kernel call. */
    int64_t batches = (p->nout + KB_REDUCE_ROWS_BATCH - 1) / KB_REDUCE_ROWS_BATCH;
    kb_status status = KB_OK;
    int parallel = threads > 1 && p->nout * p->count >= KB_REDUCE_PARALLEL_MIN;
    bool together = rows_together(p);
    if ((p->op == KB_REDUCE_SUM || p->op == KB_REDUCE_MEAN) && p->nk == 1) {
        /* Sums of many rows per kernel call, stored a batch at a time, as kb_reduce_store
         * would store them. */
        const kb_sum_kernels *sk = sum_kernels(p, k);
        int stored = 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel) reduction(& : stored)
        for (int64_t b = 0; b < batches; b++) {
            double sums[KB_REDUCE_ROWS_BATCH];
            int64_t o0 = b * KB_REDUCE_ROWS_BATCH, rows = batch_rows(p, o0);
            sk->rows(p->in + o0 * p->kin[0], rows, p->kin[0], n, sums, together);
            stored &= store_sums(p, k, sums, rows, p->out + o0 * p->kout[0], p->kout[0]);
        }
        return stored ? KB_OK : kb_fail(KB_EINVAL, "cannot store a reduction result");
    }
    bool moments = p->op == KB_REDUCE_VAR || p->op == KB_REDUCE_STD;
    if (moments && p->nk == 1 && p->kout[0] == (int64_t)p->itemsize &&
        p->out_dtype == p->in_dtype) {
        /* Squared deviations of many rows per kernel call (short rows a group at a time,
         * reduce_moments.h), then their divisions (and std's roots) a vector at a time: one by
         * one, a division and a square root per row had cost more than reading short rows (62%
         * of (100000, 32) float32 std along axis 1). */
        double dof = kb_reduce_dof(p);
        bool f32 = p->in_dtype == KB_F32, root = p->op == KB_REDUCE_STD;
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
        for (int64_t b = 0; b < batches; b++) {
            double dev[KB_REDUCE_ROWS_BATCH];
            int64_t o0 = b * KB_REDUCE_ROWS_BATCH, rows = batch_rows(p, o0);
            if (f32)
                k->moments_rows_f32(p->in + o0 * p->kin[0], rows, p->kin[0], n, dev, NULL, p->far);
            else
                k->moments_rows_f64(p->in + o0 * p->kin[0], rows, p->kin[0], n, dev, NULL, p->far);
            void *out = p->out + o0 * p->kout[0];
            if (f32)
                (root ? k->store_sqrt_f32 : k->store_f32)(dev, rows, dof, out);
            else
                (root ? k->store_sqrt_f64 : k->store_f64)(dev, rows, dof, out);
        }
        return KB_OK;
    }
    if ((p->op == KB_REDUCE_ARGMIN || p->op == KB_REDUCE_ARGMAX) && p->nk == 1 &&
        p->out_dtype == KB_INT64 && p->kout[0] == (int64_t)sizeof(int64_t)) {
        /* Indices of many rows per kernel call, stored by it. */
        arg_rows_kernel rows_kernel = arg_rows(p, k);
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
        for (int64_t b = 0; b < batches; b++) {
            int64_t o0 = b * KB_REDUCE_ROWS_BATCH, rows = batch_rows(p, o0);
            rows_kernel(p->in + o0 * p->kin[0], rows, p->kin[0], n,
                        (int64_t *)(void *)(p->out + o0 * p->kout[0]), together);
        }
        return KB_OK;
    }
    if ((p->op == KB_REDUCE_MIN || p->op == KB_REDUCE_MAX) && p->nk == 1) {
        /* Extremes of many rows per kernel call, stored by it (they keep the input's type). */
        extreme_rows_kernel rows_kernel = extreme_rows(p, k);
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
        for (int64_t b = 0; b < batches; b++) {
            int64_t o0 = b * KB_REDUCE_ROWS_BATCH, rows = batch_rows(p, o0);
            rows_kernel(p->in + o0 * p->kin[0], rows, p->kin[0], n, p->out + o0 * p->kout[0],
                        p->kout[0], together);
        }
        return KB_OK;
    }
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
    for (int64_t o = 0; o < p->nout; o++) {
        int64_t in_off = o * p->kin[0], out_off = o * p->kout[0];
        if (p->nk != 1)
            kb_reduce_plan_koffsets(p, o, &in_off, &out_off);
        kb_partial r = run_block(p, k, p->in + in_off, n, 0);
        if (kb_reduce_store(p, &r, p->out + out_off) != KB_OK)
            status = KB_EINVAL;
    }
    /* Messages are per thread: restate a worker's failure on the calling thread. */
    return status == KB_OK ? KB_OK : kb_fail(status, "cannot store a reduction result");
}

/* float32 and float64 take every op but prod; the types the sum kernels widen as they load
 * take the sums that stay floating: float16 and bfloat16 sums and means, int32 means (an
 * int32 sum is an integer, exact modulo 2^64, which double partials would not keep). */
static bool float_op_applies(const kb_reduce_plan *p) {
    switch (p->in_dtype) {
        case KB_F32:
        case KB_F64:
            return p->op != KB_REDUCE_PROD;
        case KB_F16:
        case KB_BF16:
            return p->op == KB_REDUCE_SUM || p->op == KB_REDUCE_MEAN;
        case KB_INT32:
            return p->op == KB_REDUCE_MEAN;
        default:
            return false;
    }
}

bool kb_reduce_float_applies(const kb_reduce_plan *p) {
    if (!float_op_applies(p))
        return false;
    if (p->nr == 0 || p->count == 0 || p->nout == 0)
        return false;
    int64_t size = (int64_t)p->itemsize;
    if (p->rin[p->nr - 1] == size)
        return true;
    if (p->rin[p->nr - 1] <= 0)
        return false;
    for (int i = 0; i < p->nk; i++)
        if (p->kin[i] == size)
            return true;
    return false;
}

kb_status kb_reduce_float(const kb_reduce_plan *p, const kb_reduce_kernels *k, int threads) {
    int64_t size = (int64_t)p->itemsize;
    if (p->rin[p->nr - 1] == size) {
        if (p->nr == 1 && p->count <= KB_REDUCE_NARROW && p->nout > 1)
            return reduce_narrow(p, k, threads);
        if (p->nr == 1 && p->count <= KB_REDUCE_BLOCK && p->nout > 1)
            return reduce_rows(p, k, threads);
        return reduce_inner(p, k, threads);
    }
    int col = -1;
    for (int i = 0; i < p->nk; i++)
        if (p->kin[i] == size)
            col = i;
    return reduce_cols(p, k, col, threads);
}
