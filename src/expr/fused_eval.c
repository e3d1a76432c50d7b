/* The fused evaluator: plans an expression, then runs each kernel of the plan over tiles of
 * its iteration, every op of a tile through the elementwise kernels' loops and the
 * reductions' run kernels, or a compiled kernel (a whole elementwise kernel, or a run of a row
 * kernel's elementwise ops), threads over tiles (docs/fusion.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/array_uninit.h"
#include "core/cache_size.h"
#include "core/internal.h"
#include "expr/eager.h"
#include "expr/fused_place.h"
#include "expr/fused_compile.h"
#include "expr/plan_build.h"
#include "expr/plan.h"
#include "expr/view_call.h"
#include "kbench/memory.h"
#include "kbench/simd.h"
#include "kbench/threads.h"
#include "kernels/reduce_kernels.h"
#include "kernels/reduce_partial.h"

/* Below this many elements a kernel runs on one thread: a team costs more than it saves. */
#define PARALLEL_MIN ((int64_t)1 << 16)

/* The elements of a compiled kernel's task (a power of two, so a whole number of vectors). */
#define COMPILED_CHUNK ((int64_t)1 << 13)

typedef struct kernel_run {
    const kb_pgraph *g;
    int k;
    kb_fused_iter it;
    int64_t chunk, nchunks;
    bool phased;
    int *order; /* the kernel's nodes, in topological order */
    int norder;
    int *slot;              /* per graph node: its value's slot in a thread's buffers, or -1 */
    kb_fused_place *places; /* per graph node read from or written to memory */
    bool *placed;
    kb_ew_loop *loops;      /* per slot */
    kb_ew_loop *nt_loops;   /* per slot: for an output written straight to memory */
    bool nt;                /* some op writes with non-temporal stores */
    bool far;               /* the kernel streams from memory (kb_cache_reach) */
    kb_ew_exp_sum *exp_sum; /* per slot of an online or shifted sum */
    int nconst;             /* constant operands of element nodes, prefilled per thread */
    int *const_slot;        /* per slot * 3 + operand: its prefilled buffer, or -1 */
    const kb_reduce_kernels *rk;
    kb_partial *partials; /* per slot of a reduction: rows * nchunks, streaming kernels */
    int64_t *partial_at;  /* per slot: offset into partials, or -1 */
    unsigned *seen;       /* per slot of a reduction: NAN_RESULT | NAN_INPUT, over all rows */
    /* The kernel compiled, which computes a chunk of every output from a chunk of every input
     * in one call (its fn NULL where it runs op by op), and how its loop runs (KB_CK_NEAR,
     * KB_CK_FAR or KB_CK_STREAM). */
    kb_fused_compiled compiled;
    int cmode;
    /* A phased kernel's compiled runs of ops (kb_fused_compile_runs), how each one's loop runs,
     * and per index into order: the run that starts there, or -1. */
    kb_fused_run *runs;
    int nruns;
    int *run_mode;
    int *run_at;
    int nscratch; /* chunks of scratch a thread needs */
} kernel_run;

/* What a reduction saw, for NumPy's "invalid value encountered in reduce": a NaN result, and
 * a NaN among its operand's elements (which makes the NaN expected). */
enum { NAN_RESULT = 1, NAN_INPUT = 2 };

/* A thread's buffers: a chunk of every value of the kernel, one value per row for row
 * values, three operand buffers, and the prefilled constants. */
typedef struct buffers {
    char *values;
    char *rowvals;
    char *scratch;
    char *consts;
    int64_t *base;      /* per graph node with a place: its offset at the current row */
    int64_t *ahead;     /* the same at the row of the task prefetched (run_task) */
    double *run_consts; /* a compiled run's constants, its row values among them */
    char **at;      /* per slot: where the chunk\'s values are (the value buffer, or the output) */
    unsigned *seen; /* per slot: what this thread's reductions saw */
} buffers;

enum { ITEM = 8 };

static char *value_of(const kernel_run *x, buffers *b, int node) {
    return b->values + (size_t)x->slot[node] * (size_t)x->chunk * ITEM;
}

static char *rowval_of(const kernel_run *x, buffers *b, int node) {
    return b->rowvals + (size_t)x->slot[node] * ITEM;
}

static char *scratch_of(const kernel_run *x, buffers *b, int i) {
    return b->scratch + (size_t)i * (size_t)x->chunk * ITEM;
}

/* The offsets of every place at row r. */
static void row_bases(const kernel_run *x, int64_t *base, int64_t r) {
    int64_t idx[KB_MAX_DIMS];
    kb_fused_row_index(&x->it, r, idx);
    for (int i = 0; i < x->g->count; i++)
        if (x->placed[i])
            base[i] = kb_fused_row_offset(&x->it, &x->places[i], idx);
}

/* n copies of one value (of type have) as want, in buf: typed loops that vectorize, where the
 * casts' stride-0 copy does not (it took half the time of an RMS norm whose rows fit L2). */
static const void *broadcast(kb_dtype want, void *buf, kb_dtype have, const char *value,
                             int64_t n) {
    char one[8];
    if (kb_ew_cast(want, one, have, value, 0, 1) != KB_OK)
        return NULL;
    if (want == KB_F32) {
        float v, *o = buf;
        memcpy(&v, one, sizeof v);
        for (int64_t i = 0; i < n; i++)
            o[i] = v;
    } else if (want == KB_F64) {
        double v, *o = buf;
        memcpy(&v, one, sizeof v);
        for (int64_t i = 0; i < n; i++)
            o[i] = v;
    } else {
        return kb_ew_cast(want, buf, want, one, 0, n) == KB_OK ? buf : NULL;
    }
    return buf;
}

/* Operand a of node at chunk [j0, j0 + n) of the current row (n is 1 for a row value), as a
 * contiguous run of want. */
static const void *operand(const kernel_run *x, buffers *b, int node, int a, int64_t j0, int64_t n,
                           kb_dtype want) {
    const kb_pgraph *g = x->g;
    const kb_pnode *o = &g->nodes[g->nodes[node].in[a]];
    int oi = g->nodes[node].in[a];
    void *buf = scratch_of(x, b, a);
    if (o->kind == KB_PNODE_CONST) {
        int c = n > 1 || !g->nodes[node].row ? x->const_slot[x->slot[node] * 3 + a] : -1;
        if (c >= 0)
            return b->consts + (size_t)c * (size_t)x->chunk * ITEM;
        return kb_ew_cast(want, buf, o->dtype, (const char *)&o->value, 0, n) == KB_OK ? buf : NULL;
    }
    if (x->slot[oi] >= 0) {
        const char *v = o->row ? rowval_of(x, b, oi) : b->at[x->slot[oi]];
        if (o->row && !g->nodes[node].row) /* a row value broadcast along the row */
            return broadcast(want, buf, o->dtype, v, n);
        if (o->dtype == want)
            return v;
        return kb_ew_cast(want, buf, o->dtype, v, (int64_t)kb_dtype_size(o->dtype), n) == KB_OK
                   ? buf
                   : NULL;
    }
    return kb_fused_gather(&x->it, &x->places[oi], b->base[oi], j0, n, want, buf);
}

/* Node (an elementwise op) over n elements into its value buffer (a row value: n is 1). */
static bool run_ew(const kernel_run *x, buffers *b, int node, int64_t j0, int64_t n) {
    const kb_pnode *p = &x->g->nodes[node];
    const void *ins[3];
    for (int a = 0; a < p->nin; a++) {
        kb_dtype want = p->op == KB_EW_WHERE && a == 0 ? KB_BOOL : p->loop;
        if (!(ins[a] = operand(x, b, node, a, j0, n, want)))
            return false;
    }
    /* an output computed straight into its buffer, where the chunk is one run of it */
    char *out = p->row ? rowval_of(x, b, node) : value_of(x, b, node);
    if (!p->row) {
        char *direct =
            p->output ? kb_fused_contiguous(&x->it, &x->places[node], b->base[node], j0, n) : NULL;
        b->at[x->slot[node]] = out = direct ? direct : out;
    }
    unsigned found = 0;
    /* the non-temporal loop (set for outputs only, never row values) where out is the output */
    kb_ew_loop nt = x->nt_loops[x->slot[node]];
    (nt && out != value_of(x, b, node) ? nt : x->loops[x->slot[node]])(n, out, ins, &found);
    return true;
}

/* Folds the partial (b: a maximum, a: the sum of exp(x - b)) of the elements after acc's into
 * acc: both sums rescaled to the larger maximum. A maximum of -inf contributes nothing (all its
 * elements are -inf), NaN propagates. */
static void online_merge(kb_partial *acc, const kb_partial *later) {
    if (isnan(acc->b) || isnan(later->b)) {
        acc->a = acc->b = NAN;
        return;
    }
    double m = acc->b > later->b ? acc->b : later->b;
    double sum = 0;
    if (acc->b != -INFINITY)
        sum += acc->a * exp(acc->b - m);
    if (later->b != -INFINITY)
        sum += later->a * exp(later->b - m);
    acc->a = sum;
    acc->b = m;
    acc->index |= later->index;
}

/* The online partial of n <= KB_REDUCE_BLOCK contiguous elements v of type t: their maximum, and
 * the sum of exp(v - maximum) (kb_ew_exp_sum). */
static kb_partial online_run(const kernel_run *x, int node, kb_dtype t, const char *v, int64_t n) {
    kb_partial part = {.b = t == KB_F32 ? (double)x->rk->max_f32((const void *)v, n)
                                        : x->rk->max_f64((const void *)v, n)};
    if (isnan(part.b) || part.b == -INFINITY || part.b == INFINITY) {
        part.a = part.b == -INFINITY ? 0 : NAN; /* as exp(x - max) sums there: NaN, or nothing */
        return part;
    }
    part.a = x->exp_sum[x->slot[node]](n, v, part.b);
    return part;
}

/* The partial of a reduction over n <= KB_REDUCE_BLOCK contiguous elements of type t. */
static double reduce_run(const kernel_run *x, kb_reduce_op op, kb_dtype t, const void *v,
                         int64_t n) {
    bool f32 = t == KB_F32;
    switch (op) {
        case KB_REDUCE_MAX:
            return f32 ? (double)x->rk->max_f32(v, n) : x->rk->max_f64(v, n);
        case KB_REDUCE_MIN:
            return f32 ? (double)x->rk->min_f32(v, n) : x->rk->min_f64(v, n);
        case KB_REDUCE_PROD: {
            double p = 1;
            for (int64_t i = 0; i < n; i++)
                p *= f32 ? (double)((const float *)v)[i] : ((const double *)v)[i];
            return p;
        }
        default:
            return x->rk->sum[f32 ? KB_SUM_F32 : KB_SUM_F64].run(v, n, false);
    }
}

/* A reduction's value from its merged partial, in its dtype, into its row value. */
static void reduce_store(const kernel_run *x, buffers *b, int node, double a) {
    const kb_pnode *p = &x->g->nodes[node];
    if (p->reduce == KB_REDUCE_MEAN)
        a /= (double)x->it.m;
    if (p->dtype == KB_F32) {
        float f = (float)a;
        memcpy(rowval_of(x, b, node), &f, sizeof f);
    } else {
        memcpy(rowval_of(x, b, node), &a, sizeof a);
    }
}

/* Writes a node's value for the chunk (or its row value) to memory, when it is an output. */
static void write_out(const kernel_run *x, buffers *b, int node, int64_t j0, int64_t n) {
    const kb_pnode *p = &x->g->nodes[node];
    if (!p->output)
        return;
    if (p->row)
        memcpy(x->places[node].data + b->base[node], rowval_of(x, b, node),
               kb_dtype_size(p->dtype));
    else if (b->at[x->slot[node]] == value_of(x, b, node))
        kb_fused_scatter(&x->it, &x->places[node], b->base[node], j0, n, value_of(x, b, node));
}

/* A reduction over the operand's chunk [j0, j0 + n), in runs of at most KB_REDUCE_BLOCK
 * merged pairwise: the same tree for a whole row (phased) and for its chunks (streaming). */
static bool reduce_chunk(const kernel_run *x, buffers *b, int node, int64_t j0, int64_t n,
                         kb_partial *out) {
    const kb_pnode *p = &x->g->nodes[node];
    kb_dtype t = x->g->nodes[p->in[0]].dtype;
    const char *v = operand(x, b, node, 0, j0, n, t);
    if (!v)
        return false;
    if (p->online) {
        for (int64_t s = 0; s < n; s += KB_REDUCE_BLOCK) {
            int64_t len = n - s < KB_REDUCE_BLOCK ? n - s : KB_REDUCE_BLOCK;
            kb_partial part = online_run(x, node, t, v + s * (int64_t)kb_dtype_size(t), len);
            if (s == 0)
                *out = part;
            else
                online_merge(out, &part);
        }
    } else {
        /* a shifted sum's shift: the row's maximum (computed before it in a phased kernel, or
         * read from memory) */
        double shift = 0;
        if (p->shifted) {
            const void *m = operand(x, b, node, 1, 0, 1, KB_F64);
            if (!m)
                return false;
            memcpy(&shift, m, sizeof shift);
        }
        kb_partial storage[KB_PAIRWISE_DEPTH];
        kb_pairwise pw;
        kb_pairwise_init(&pw, p->reduce, 1, storage);
        for (int64_t s = 0; s < n; s += KB_REDUCE_BLOCK) {
            int64_t len = n - s < KB_REDUCE_BLOCK ? n - s : KB_REDUCE_BLOCK;
            const char *at = v + s * (int64_t)kb_dtype_size(t);
            kb_partial part = {.a = p->shifted ? x->exp_sum[x->slot[node]](len, at, shift)
                                               : reduce_run(x, p->reduce, t, at, len)};
            kb_pairwise_push(&pw, &part);
        }
        *out = *kb_pairwise_finish(&pw);
    }
    /* the partial's index, unused by these ops, says whether a NaN came from the operand */
    out->index = 0;
    for (int64_t i = 0; isnan(out->a) && i < n && !out->index; i++)
        out->index = t == KB_F32 ? isnan(((const float *)(const void *)v)[i])
                                 : isnan(((const double *)(const void *)v)[i]);
    return true;
}

/* The runs of the inputs a task prefetches: elements [j0, j0 + n) of the row at base of every
 * array the kernel reads from memory, where they are contiguous; at most PREFETCH_RUNS. */
enum { PREFETCH_RUNS = 8 };
typedef struct prefetch_runs {
    const char *at[PREFETCH_RUNS];
    size_t bytes[PREFETCH_RUNS];
    int count;
} prefetch_runs;

static void prefetch_runs_of(const kernel_run *x, const int64_t *base, int64_t j0, int64_t n,
                             prefetch_runs *runs) {
    runs->count = 0;
    for (int o = 0; o < x->g->count && runs->count < PREFETCH_RUNS; o++) {
        if (!x->placed[o] || x->slot[o] >= 0)
            continue;
        const char *p = kb_fused_contiguous(&x->it, &x->places[o], base[o], j0, n);
        if (p) {
            runs->at[runs->count] = p;
            runs->bytes[runs->count++] = (size_t)n * kb_dtype_size(x->g->nodes[o].dtype);
        }
    }
}

/* Prefetches share k of `shares` of every run, a line at a time. */
static void prefetch_share(const prefetch_runs *runs, int k, int shares) {
    for (int i = 0; i < runs->count; i++) {
        size_t from = runs->bytes[i] * (size_t)k / (size_t)shares / 64 * 64;
        size_t to = runs->bytes[i] * (size_t)(k + 1) / (size_t)shares;
        for (size_t at = from; at < to; at += 64)
            __builtin_prefetch(runs->at[i] + at, 0, 2);
    }
}

/* Where a compiled kernel writes node's chunk [j0, j0 + n) straight into its array: there,
 * when node is an output and the chunk a contiguous run of it; else NULL. A streaming *mode
 * falls back to prefetching (plain stores, the same elements) where the chunk is not written
 * there or not aligned for non-temporal stores. */
static char *compiled_direct(const kernel_run *x, const buffers *b, int node, int64_t j0, int64_t n,
                             int *mode) {
    char *direct = x->g->nodes[node].output
                       ? kb_fused_contiguous(&x->it, &x->places[node], b->base[node], j0, n)
                       : NULL;
    if (!direct || (uintptr_t)direct % KB_NT_ALIGN != 0)
        *mode = *mode == KB_CK_STREAM ? KB_CK_FAR : *mode;
    return direct;
}

/* One task of a compiled kernel: chunk q of its one row, every input gathered as its type (its
 * own memory where it is a contiguous run of it), every output written straight to its array
 * where it is contiguous there, else through scratch. The streaming mode's non-temporal stores
 * need every output aligned; where one is not, the chunk streams with plain stores, which
 * compute the same elements. */
static bool run_compiled(const kernel_run *x, buffers *b, int64_t q) {
    int64_t j0 = q * x->chunk;
    int64_t n = x->it.m - j0 < x->chunk ? x->it.m - j0 : x->chunk;
    row_bases(x, b->base, 0);
    const void *in[KB_CK_MAX_IO];
    void *out[KB_CK_MAX_IO];
    const kb_fused_compiled *c = &x->compiled;
    for (int k = 0; k < c->ninputs; k++) {
        int node = c->in[k];
        in[k] = kb_fused_gather(&x->it, &x->places[node], b->base[node], j0, n, c->type,
                                scratch_of(x, b, k));
        if (!in[k])
            return false;
    }
    int mode = x->cmode;
    for (int k = 0; k < c->nouts; k++) {
        char *direct = compiled_direct(x, b, c->out[k], j0, n, &mode);
        out[k] = direct ? direct : scratch_of(x, b, c->ninputs + k);
    }
    c->fn(n, in, out, c->consts, mode);
    for (int k = 0; k < c->nouts; k++)
        if (out[k] == scratch_of(x, b, c->ninputs + k))
            kb_fused_scatter(&x->it, &x->places[c->out[k]], b->base[c->out[k]], j0, n, out[k]);
    return true;
}

/* Compiled run u of a phased kernel over its row (elements [j0, j0 + n)): its inputs where the
 * kernel's other ops left them or from memory, its row values into its constants, its outputs
 * straight to their arrays where a run of them is contiguous, else into their value buffers
 * (then scattered where they are outputs), which the kernel's other ops read. */
static bool run_compiled_ops(const kernel_run *x, buffers *b, int u, int64_t j0, int64_t n) {
    const kb_fused_compiled *c = &x->runs[u].c;
    const void *in[KB_CK_MAX_IO];
    void *out[KB_CK_MAX_IO];
    for (int k = 0; k < c->ninputs; k++) {
        int node = c->in[k];
        in[k] = x->slot[node] >= 0 ? b->at[x->slot[node]]
                                   : kb_fused_gather(&x->it, &x->places[node], b->base[node], j0, n,
                                                     c->type, scratch_of(x, b, k));
        if (!in[k])
            return false;
    }
    size_t item = kb_dtype_size(c->type);
    memcpy(b->run_consts, c->consts, (size_t)c->nconsts * item);
    for (int k = 0; k < c->nconsts; k++) {
        const kb_pnode *o = &x->g->nodes[c->const_node[k]];
        if (o->kind != KB_PNODE_CONST &&
            kb_ew_cast(c->type, (char *)b->run_consts + (size_t)k * item, o->dtype,
                       rowval_of(x, b, c->const_node[k]), 0, 1) != KB_OK)
            return false;
    }
    int mode = x->run_mode[u];
    for (int k = 0; k < c->nouts; k++) {
        int node = c->out[k];
        char *direct = compiled_direct(x, b, node, j0, n, &mode);
        out[k] = b->at[x->slot[node]] = direct ? direct : value_of(x, b, node);
    }
    c->fn(n, in, out, b->run_consts, mode);
    for (int k = 0; k < c->nouts; k++)
        write_out(x, b, c->out[k], j0, n);
    return true;
}

/* One task: chunk q of row r. Phased kernels have one chunk per row and compute the row
 * values as they come; streaming ones leave the reductions' partials and the row values to
 * finish_rows. A kernel that reads memory prefetches the inputs of the task after next (the
 * chunk, or for a phased kernel the row), a share before each op: the ops of a chunk run in the
 * caches one after another, so without it the first one waits on memory while the others leave
 * it idle. Measured at 32 Mi float32 elements (Zen 4, one thread, ns an element, without and
 * with): the polynomial of the expr suite 1.21 and 0.99 (0.7 in L2), a*b + c 0.68 and 0.59,
 * sqrt(x**2 + y**2) 0.71 and 0.49. The whole next chunk prefetched at once did better for the
 * polynomial (0.87) and worse for a*b + c (0.85), whose three inputs' chunks then evicted its
 * buffers from L1. */
static bool run_task(const kernel_run *x, buffers *b, int64_t r, int64_t q) {
    int64_t j0 = q * x->chunk;
    int64_t n = x->it.m - j0 < x->chunk ? x->it.m - j0 : x->chunk;
    row_bases(x, b->base, r);
    int64_t chunks = x->phased ? 1 : x->nchunks;
    int64_t r2 = r + (q + 2) / chunks, j2 = (q + 2) % chunks * x->chunk;
    prefetch_runs runs = {.count = 0};
    if (x->far && r2 < x->it.rows) {
        if (r2 != r)
            row_bases(x, b->ahead, r2);
        prefetch_runs_of(x, r2 != r ? b->ahead : b->base, j2,
                         x->it.m - j2 < x->chunk ? x->it.m - j2 : x->chunk, &runs);
    }
    for (int i = 0; i < x->norder; i++) {
        prefetch_share(&runs, i, x->norder);
        int node = x->order[i];
        const kb_pnode *p = &x->g->nodes[node];
        int u = x->run_at[i];
        if (u >= 0) {
            for (int k = 1; k < x->runs[u].count; k++)
                prefetch_share(&runs, i + k, x->norder);
            if (!run_compiled_ops(x, b, u, j0, n))
                return false;
            i += x->runs[u].count - 1;
        } else if (p->kind == KB_PNODE_REDUCE) {
            kb_partial part;
            if (!reduce_chunk(x, b, node, j0, n, &part))
                return false;
            if (x->phased) {
                if (p->online && part.b == -INFINITY)
                    part.a = NAN;
                b->seen[x->slot[node]] |=
                    (isnan(part.a) ? NAN_RESULT : 0u) | (part.index ? NAN_INPUT : 0u);
                reduce_store(x, b, node, part.a);
                write_out(x, b, node, j0, n);
            } else {
                x->partials[x->partial_at[x->slot[node]] + r * x->nchunks + q] = part;
            }
        } else if (p->row) {
            if (x->phased) {
                if (!run_ew(x, b, node, 0, 1))
                    return false;
                write_out(x, b, node, j0, n);
            }
        } else {
            if (!run_ew(x, b, node, j0, n))
                return false;
            write_out(x, b, node, j0, n);
        }
    }
    return true;
}

/* Streaming kernels, after the chunks: each row's reductions merged over its chunks in a fixed
 * order, then the ops on row values. */
static bool finish_rows(const kernel_run *x, buffers *b) {
    for (int64_t r = 0; r < x->it.rows; r++) {
        row_bases(x, b->base, r);
        for (int i = 0; i < x->norder; i++) {
            int node = x->order[i];
            const kb_pnode *p = &x->g->nodes[node];
            if (!p->row)
                continue;
            if (p->kind == KB_PNODE_REDUCE) {
                kb_partial storage[KB_PAIRWISE_DEPTH];
                kb_pairwise pw;
                kb_pairwise_init(&pw, p->reduce, 1, storage);
                const kb_partial *parts =
                    x->partials + x->partial_at[x->slot[node]] + r * x->nchunks;
                kb_partial online = parts[0];
                for (int64_t q = 0; q < x->nchunks; q++) {
                    if (!p->online)
                        kb_pairwise_push(&pw, &parts[q]);
                    else if (q > 0)
                        online_merge(&online, &parts[q]);
                    b->seen[x->slot[node]] |= parts[q].index ? NAN_INPUT : 0u;
                }
                double a = !p->online              ? kb_pairwise_finish(&pw)->a
                           : online.b == -INFINITY ? NAN /* exp(-inf - -inf), as eager */
                                                   : online.a;
                b->seen[x->slot[node]] |= isnan(a) ? NAN_RESULT : 0u;
                reduce_store(x, b, node, a);
            } else if (!run_ew(x, b, node, 0, 1)) {
                return false;
            }
            write_out(x, b, node, 0, 1);
        }
    }
    return true;
}

static void buffers_free(buffers *b) {
    kb_aligned_free(b->values);
    free(b->rowvals);
    kb_aligned_free(b->scratch);
    kb_aligned_free(b->consts);
    free(b->run_consts);
    free(b->base);
    free(b->ahead);
    free(b->seen);
    free(b->at);
}

static bool buffers_new(const kernel_run *x, buffers *b) {
    size_t chunk = (size_t)x->chunk * ITEM;
    int nslots = x->norder > 0 ? x->norder : 1;
    /* a compiled kernel keeps its values and constants in registers: scratch alone */
    bool compiled = x->compiled.fn != NULL;
    memset(b, 0, sizeof *b);
    b->values = kb_aligned_alloc(compiled ? ITEM : (size_t)nslots * chunk);
    b->rowvals = malloc((size_t)nslots * ITEM);
    b->scratch = kb_aligned_alloc((size_t)x->nscratch * chunk);
    b->consts = kb_aligned_alloc(compiled ? ITEM : (size_t)(x->nconst > 0 ? x->nconst : 1) * chunk);
    b->base = calloc((size_t)x->g->count, sizeof *b->base);
    b->ahead = calloc((size_t)x->g->count, sizeof *b->ahead);
    b->run_consts = malloc(KB_CK_MAX_CONSTS * sizeof *b->run_consts);
    b->seen = calloc((size_t)nslots, sizeof *b->seen);
    b->at = calloc((size_t)nslots, sizeof *b->at);
    if (!b->values || !b->rowvals || !b->scratch || !b->consts || !b->base || !b->ahead ||
        !b->run_consts || !b->seen || !b->at) {
        buffers_free(b);
        return false;
    }
    /* the constants of element ops, filled once */
    for (int i = 0; !compiled && i < x->norder; i++) {
        const kb_pnode *p = &x->g->nodes[x->order[i]];
        for (int a = 0; a < p->nin; a++) {
            int c = x->const_slot[i * 3 + a];
            if (c < 0)
                continue;
            const kb_pnode *o = &x->g->nodes[p->in[a]];
            kb_dtype want = p->op == KB_EW_WHERE && a == 0 ? KB_BOOL : p->loop;
            if (kb_ew_cast(want, b->consts + (size_t)c * chunk, o->dtype, (const char *)&o->value,
                           0, x->chunk) != KB_OK) {
                buffers_free(b);
                return false;
            }
        }
    }
    return true;
}

static kb_status run_kernel(kernel_run *x, int threads) {
    int64_t tasks = x->phased ? x->it.rows : x->it.rows * x->nchunks;
    int parallel = threads > 1 && x->it.rows * x->it.m >= PARALLEL_MIN && tasks > 1;
    bool failed = false;
#pragma omp parallel num_threads(threads) if (parallel) reduction(|| : failed)
    {
        buffers b;
        if (!buffers_new(x, &b)) {
            failed = true;
        } else {
#pragma omp for schedule(static)
            for (int64_t t = 0; t < tasks; t++) {
                if (failed)
                    continue;
                bool ok = x->compiled.fn ? run_compiled(x, &b, t)
                          : x->phased    ? run_task(x, &b, t, 0)
                                         : run_task(x, &b, t / x->nchunks, t % x->nchunks);
                failed |= !ok;
            }
            if (x->nt)
                kb_nt_fence();
#pragma omp critical(kb_fused_seen)
            for (int i = 0; i < x->norder; i++)
                x->seen[i] |= b.seen[i];
            buffers_free(&b);
        }
    }
    if (!failed && !x->phased) {
        buffers b;
        if (!buffers_new(x, &b))
            return kb_fail(KB_ENOMEM, "out of memory for a fused kernel");
        failed = !finish_rows(x, &b);
        for (int i = 0; i < x->norder; i++)
            x->seen[i] |= b.seen[i];
        buffers_free(&b);
    }
    if (failed)
        return kb_fail(KB_ENOMEM, "out of memory for a fused kernel, or a failed cast");
    return KB_OK;
}

/* The array a node reads: a binding's view, a materialised value, or a view of one. */
static kb_array array_of(const kb_pgraph *g, const kb_array *arrays, int node) {
    const kb_pnode *o = &g->nodes[node];
    if (o->kind == KB_PNODE_INPUT && o->source < 0)
        return o->view;
    if (o->kind == KB_PNODE_INPUT) {
        kb_array a = arrays[o->source];
        kb_expr_view_apply(&a, o->perm);
        return a;
    }
    return arrays[node];
}

/* Whether an op of the kernel (x->order) reads node's value. */
static bool read_in_kernel(const kernel_run *x, int node) {
    for (int k = 0; k < x->norder; k++) {
        const kb_pnode *p = &x->g->nodes[x->order[k]];
        for (int a = 0; a < p->nin; a++)
            if (p->in[a] == node)
                return true;
    }
    return false;
}

/* Kernel x->k's iteration (rows, row length, chunk), its nodes' slots and loops, the places
 * of what it reads and writes, and its reductions' partials. */
static kb_status prepare(kernel_run *x, const kb_array *arrays) {
    const kb_pgraph *g = x->g;
    const kb_pkernel *K = &g->kernels[x->k];
    kb_fused_iter_init(&x->it, K);
    x->phased = K->phased;
    x->norder = 0;
    for (int i = 0; i < g->count; i++) {
        x->slot[i] = -1;
        x->placed[i] = false;
    }
    for (int i = 0; i < g->count; i++)
        if (g->nodes[i].kernel == x->k) {
            x->slot[i] = x->norder;
            x->order[x->norder++] = i;
        }
    for (int i = 0; i < x->norder; i++)
        x->seen[i] = 0;
    int values = x->norder + 3;
    x->nconst = 0;
    for (int i = 0; i < x->norder; i++) {
        const kb_pnode *p = &g->nodes[x->order[i]];
        for (int a = 0; a < 3; a++) {
            bool c = a < p->nin && !p->row && g->nodes[p->in[a]].kind == KB_PNODE_CONST;
            x->const_slot[i * 3 + a] = c ? x->nconst++ : -1;
        }
    }
    values += x->nconst;
    if (x->phased) {
        x->chunk = x->it.m;
    } else {
        /* A tile's values in the L1 cache: at 4096 elements (the L2 budget) a*b + c in L2 ran
         * 2.8 times slower than at 1024 (71 against 25 us per call for 87040 float32
         * elements, one thread, Zen 5 with 32 KiB of L1). */
        int64_t item = 4;
        for (int i = 0; i < x->norder; i++)
            if (kb_dtype_size(g->nodes[x->order[i]].dtype) > (size_t)item)
                item = (int64_t)kb_dtype_size(g->nodes[x->order[i]].dtype);
        int64_t tile = kb_cache_l1d_bytes() / item / values;
        int64_t chunk = 256;
        while (chunk * 2 <= tile && chunk * 2 <= KB_REDUCE_BLOCK)
            chunk *= 2;
        x->chunk = x->it.m < chunk ? x->it.m : chunk;
    }
    x->nchunks = (x->it.m + x->chunk - 1) / x->chunk;
    /* whether the kernel streams memory: its elements times the bytes of an element of each
     * array it reads or writes */
    int64_t element_bytes = 0;
    for (int i = 0; i < g->count; i++) {
        bool read = false;
        for (int k = 0; k < x->norder && !read; k++)
            for (int a = 0; a < g->nodes[x->order[k]].nin; a++)
                read |= g->nodes[x->order[k]].in[a] == i;
        bool memory = x->slot[i] < 0 && g->nodes[i].kind != KB_PNODE_CONST;
        if ((read && memory) || (x->slot[i] >= 0 && g->nodes[i].output))
            element_bytes += (int64_t)kb_dtype_size(g->nodes[i].dtype);
    }
    kb_reach reach = kb_cache_reach(x->it.rows * x->it.m * element_bytes);
    x->nt = false;
    x->far = reach != KB_REACH_CACHE;
    x->nscratch = 3;
    kb_simd_level level;
    KB_TRY(kb_simd_current(&level));
    KB_TRY(kb_fused_compile(g, x->k, &x->compiled));
    if (x->compiled.fn) {
        /* Values stay in registers: a chunk is only a task, as large as keeps the tasks'
         * bookkeeping small and the threads' shares even. */
        x->chunk = x->it.m < COMPILED_CHUNK ? x->it.m : COMPILED_CHUNK;
        x->nchunks = (x->it.m + x->chunk - 1) / x->chunk;
        x->cmode = reach == KB_REACH_BEYOND  ? KB_CK_STREAM
                   : reach != KB_REACH_CACHE ? KB_CK_FAR
                                             : KB_CK_NEAR;
        x->nt = x->cmode == KB_CK_STREAM;
        if (x->compiled.ninputs + x->compiled.nouts > x->nscratch)
            x->nscratch = x->compiled.ninputs + x->compiled.nouts;
    }
    free(x->runs);
    free(x->run_mode);
    x->runs = NULL;
    x->run_mode = NULL;
    x->nruns = 0;
    if (!x->compiled.fn)
        KB_TRY(kb_fused_compile_runs(g, x->k, &x->runs, &x->nruns));
    if (x->nruns > 0 && !(x->run_mode = malloc((size_t)x->nruns * sizeof *x->run_mode)))
        return kb_fail(KB_ENOMEM, "out of memory for a fused kernel");
    for (int i = 0; i < x->norder; i++)
        x->run_at[i] = -1;
    for (int u = 0; u < x->nruns; u++) {
        /* Streaming: its outputs written with non-temporal stores when each goes to memory
         * and no other op reads it back; reading or writing memory, prefetching ahead. */
        const kb_fused_compiled *c = &x->runs[u].c;
        bool memory = false, stream = reach == KB_REACH_BEYOND;
        for (int k = 0; k < c->ninputs; k++)
            memory |= x->slot[c->in[k]] < 0;
        for (int k = 0; k < c->nouts; k++) {
            bool out = g->nodes[c->out[k]].output;
            memory |= out;
            stream &= out && !read_in_kernel(x, c->out[k]);
        }
        x->run_mode[u] = stream                              ? KB_CK_STREAM
                         : memory && reach != KB_REACH_CACHE ? KB_CK_FAR
                                                             : KB_CK_NEAR;
        x->nt |= stream;
        x->run_at[x->runs[u].first] = u;
        if (c->ninputs > x->nscratch)
            x->nscratch = c->ninputs;
    }
    /* the places of what the kernel reads from memory, and of what it writes */
    for (int i = 0; i < x->norder; i++) {
        int node = x->order[i];
        const kb_pnode *p = &g->nodes[node];
        for (int a = 0; a < p->nin; a++) {
            int o = p->in[a];
            if (x->slot[o] >= 0 || g->nodes[o].kind == KB_PNODE_CONST || x->placed[o])
                continue;
            kb_array a_ = array_of(g, arrays, o);
            kb_fused_place_of(K, &a_, &x->places[o]);
            x->placed[o] = true;
        }
        if (p->output) {
            if (p->flat)
                kb_fused_place_flat(&x->it, &arrays[node], &x->places[node]);
            else
                kb_fused_place_of(K, &arrays[node], &x->places[node]);
            x->placed[node] = true;
        }
        if (p->kind == KB_PNODE_EW) {
            /* An op that reads an input from memory or writes an output there, in a kernel
             * that streams more than the caches hold, runs the loop that prefetches ahead. */
            bool touches_memory = p->output && !p->row;
            for (int a = 0; a < p->nin; a++) {
                const kb_pnode *in = &g->nodes[p->in[a]];
                touches_memory |= x->slot[p->in[a]] < 0 && in->kind != KB_PNODE_CONST;
            }
            kb_reach own =
                touches_memory && reach != KB_REACH_CACHE ? KB_REACH_FAR : KB_REACH_CACHE;
            x->loops[i] = kb_ew_float_loop(p->op, p->loop, level, own);
            if (!x->loops[i])
                return kb_fail(KB_EUNSUPPORTED, "no float loop for op %d", (int)p->op);
            /* An output no other op of the kernel reads, in a kernel beyond the last-level
             * cache, goes out with non-temporal stores where it is written straight to its
             * array (run_ew): read back, it would come from memory. */
            x->nt_loops[i] = NULL;
            if (p->output && !p->row && reach == KB_REACH_BEYOND && !read_in_kernel(x, node)) {
                x->nt_loops[i] = kb_ew_float_loop(p->op, p->loop, level, KB_REACH_BEYOND);
                x->nt |= x->nt_loops[i] != x->loops[i];
            }
        }
        if (p->online || p->shifted) {
            x->exp_sum[i] = kb_ew_float_exp_sum(g->nodes[p->in[0]].dtype, level);
            if (!x->exp_sum[i])
                return kb_fail(KB_EUNSUPPORTED, "no sum of exp for this type");
        }
    }
    /* streaming reductions keep a partial per row and chunk */
    int64_t total = 0;
    for (int i = 0; i < x->norder; i++) {
        x->partial_at[i] = -1;
        if (!x->phased && g->nodes[x->order[i]].kind == KB_PNODE_REDUCE) {
            x->partial_at[i] = total;
            total += x->it.rows * x->nchunks;
        }
    }
    free(x->partials);
    x->partials = NULL;
    if (total > 0 && !(x->partials = malloc((size_t)total * sizeof *x->partials)))
        return kb_fail(KB_ENOMEM, "out of memory for a fused kernel");
    return KB_OK;
}

/* NumPy's warning of a sum, prod or mean whose result is NaN without a NaN in its operand
 * (inf - inf, 0 * inf), as the eager evaluator gives it. An online or shifted sum of
 * exp(x - max) is NaN only where exp(x - max) is (a NaN, or a row whose max is infinite):
 * never a warning. */
static void warn_kernel(const kernel_run *x, const kb_expr_inputs *inputs) {
    for (int i = 0; inputs->warn && i < x->norder; i++) {
        const kb_pnode *p = &x->g->nodes[x->order[i]];
        bool sums = p->reduce == KB_REDUCE_SUM || p->reduce == KB_REDUCE_PROD ||
                    p->reduce == KB_REDUCE_MEAN;
        if (p->kind == KB_PNODE_REDUCE && sums && !p->online && !p->shifted &&
            x->seen[i] == NAN_RESULT)
            inputs->warn("invalid value encountered in reduce", inputs->context);
    }
}

/* Runs the planned graph: allocates every written buffer, then the kernels in order. */
static kb_status run_graph(const kb_pgraph *g, const kb_expr_inputs *inputs, kb_array *outs,
                           bool into) {
    kb_simd_level level;
    int threads = 1;
    KB_TRY(kb_simd_current(&level));
    KB_TRY(kb_threads_current(&threads));
    kb_array *arrays = calloc((size_t)g->count, sizeof *arrays);
    kernel_run x = {.g = g, .rk = kb_reduce_kernels_for(level)};
    x.order = malloc((size_t)g->count * sizeof *x.order);
    x.slot = malloc((size_t)g->count * sizeof *x.slot);
    x.places = calloc((size_t)g->count, sizeof *x.places);
    x.placed = calloc((size_t)g->count, sizeof *x.placed);
    x.loops = calloc((size_t)g->count, sizeof *x.loops);
    x.nt_loops = calloc((size_t)g->count, sizeof *x.nt_loops);
    x.exp_sum = calloc((size_t)g->count, sizeof *x.exp_sum);
    x.const_slot = malloc((size_t)g->count * 3 * sizeof *x.const_slot);
    x.partial_at = malloc((size_t)g->count * sizeof *x.partial_at);
    x.seen = malloc((size_t)g->count * sizeof *x.seen);
    x.run_at = malloc((size_t)g->count * sizeof *x.run_at);
    kb_status st = KB_OK;
    if (!arrays || !x.order || !x.slot || !x.places || !x.placed || !x.loops || !x.nt_loops ||
        !x.exp_sum || !x.const_slot || !x.partial_at || !x.seen || !x.run_at)
        st = kb_fail(KB_ENOMEM, "out of memory for a fused evaluation");
    for (int i = 0; i < g->count && st == KB_OK; i++) {
        const kb_pnode *n = &g->nodes[i];
        if (into && n->result >= 0) { /* the caller's array, written in place, not owned */
            arrays[i] = outs[n->result];
            arrays[i].owned = NULL;
            arrays[i].owned_size = 0;
        } else if (n->output) {
            st = kb_array_new_uninit(&arrays[i], n->dtype, n->ndim, n->shape, KB_ORDER_C);
        }
    }
    for (int k = 0; k < g->nkernels && st == KB_OK; k++) {
        x.k = k;
        if ((st = prepare(&x, arrays)) == KB_OK && (st = run_kernel(&x, threads)) == KB_OK)
            warn_kernel(&x, inputs);
    }
    for (int i = 0; arrays && i < g->count; i++) {
        if (st == KB_OK && g->nodes[i].result >= 0 && !into)
            outs[g->nodes[i].result] = arrays[i];
        else
            kb_array_free(&arrays[i]);
    }
    free(arrays);
    free(x.order);
    free(x.slot);
    free(x.places);
    free(x.placed);
    free(x.loops);
    free(x.nt_loops);
    free(x.exp_sum);
    free(x.const_slot);
    free(x.partial_at);
    free(x.partials);
    free(x.seen);
    free(x.run_at);
    free(x.runs);
    free(x.run_mode);
    return st;
}

/* Whether the caller's arrays have the results' dtypes and shapes. */
static kb_status check_into(const kb_pgraph *g, const kb_array *outs) {
    for (int r = 0; r < g->nresults; r++) {
        const kb_pnode *n = &g->nodes[g->results[r]];
        const kb_array *o = &outs[r];
        bool same = o->data && o->dtype == n->dtype && o->ndim == n->ndim &&
                    !(o->flags & KB_ARRAY_READONLY) &&
                    memcmp(o->shape, n->shape, sizeof(int64_t) * (size_t)n->ndim) == 0;
        if (!same) {
            char want[96], got[96];
            kb_plan_shape_text(want, sizeof want, n->ndim, n->shape);
            kb_plan_shape_text(got, sizeof got, o->ndim, o->shape);
            return kb_fail(KB_EINVAL, "result %d is %s %s; its array is %s %s%s", r,
                           kb_dtype_name(n->dtype), want, kb_dtype_name(o->dtype), got,
                           o->flags & KB_ARRAY_READONLY ? ", read-only" : "");
        }
    }
    return KB_OK;
}

/* The eager evaluation into the caller's arrays: into new ones, then copied. */
static kb_status eager_into(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *outs,
                            int nouts) {
    kb_array *results = calloc((size_t)(nouts > 0 ? nouts : 1), sizeof *results);
    if (!results)
        return kb_fail(KB_ENOMEM, "out of memory for an expression's results");
    kb_status st = kb_expr_eval_eager(expr, inputs, NULL, results, nouts);
    for (int r = 0; r < nouts && st == KB_OK; r++) {
        const kb_array *o = &outs[r], *e = &results[r];
        if (!o->data || o->dtype != e->dtype || o->ndim != e->ndim ||
            (o->flags & KB_ARRAY_READONLY) ||
            memcmp(o->shape, e->shape, sizeof(int64_t) * (size_t)e->ndim) != 0)
            st = kb_fail(KB_EINVAL, "result %d's array is not of its dtype and shape", r);
        else
            st = kb_array_copy(&outs[r], e);
    }
    for (int r = 0; r < nouts; r++)
        kb_array_free(&results[r]);
    free(results);
    return st;
}

/* The fused evaluation, into new arrays or (into) the caller's. */
static kb_status eval_fused(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *outs,
                            int nouts, bool into) {
    KB_TRY(kb_expr_check_inputs(expr, inputs, nouts));
    kb_pgraph g;
    kb_status st = kb_pgraph_build(expr, inputs, &g);
    if (st == KB_OK) {
        st = kb_pgraph_fuse(&g);
        if (st == KB_OK && into)
            st = check_into(&g, outs);
        if (st == KB_OK)
            st = run_graph(&g, inputs, outs, into);
        kb_pgraph_free(&g);
        return st;
    }
    if (st == KB_ENOMEM)
        return st;
    /* What the planner does not take, and every error, goes to the eager evaluator: its
     * messages point at the expression. */
    return into ? eager_into(expr, inputs, outs, nouts)
                : kb_expr_eval_eager(expr, inputs, NULL, outs, nouts);
}

kb_status kb_expr_eval_fused(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *outs,
                             int nouts) {
    for (int i = 0; i < nouts; i++)
        memset(&outs[i], 0, sizeof outs[i]);
    return eval_fused(expr, inputs, outs, nouts, false);
}

kb_status kb_expr_eval_into(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *outs,
                            int nouts) {
    if (nouts > 0 && !outs)
        return kb_fail(KB_EINVAL, "kb_expr_eval_into: no arrays");
    if (inputs && inputs->mode == KB_EXPR_FUSED)
        return eval_fused(expr, inputs, outs, nouts, true);
    KB_TRY(kb_expr_check_inputs(expr, inputs, nouts));
    return eager_into(expr, inputs, outs, nouts);
}
