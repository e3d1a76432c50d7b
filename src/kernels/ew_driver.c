/* The elementwise driver: broadcasting, strides, casts, blocks and threads around the loops. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/threads.h"
#include "kernels/ew.h"

/* Elements per block: each operand that is not already a contiguous run of the compute type
 * is cast into a buffer of this many, on the stack (8 KiB each for 8-byte types), so that a
 * block's operands stay in L1. */
enum { BLOCK = 1024, MAX_OPERANDS = 3 };
/* Elements per task, the unit a thread takes: whole blocks, which a task whose operands and
 * output need no cast runs as one call of the loop. Calls of one block each cost a 64 MiB
 * float32 a + b 7% of its time (Zen 4, one thread). */
enum { TASK = 16 * BLOCK };
/* Below this many elements one thread does it all: a team costs more than it saves. */
#define PARALLEL_MIN ((int64_t)1 << 16)

int kb_ew_arity(kb_ew_op op) {
    if (op == KB_EW_WHERE)
        return 3;
    return op < KB_EW_NEG ? 2 : 1;
}

int kb_ew_is_predicate(kb_ew_op op) {
    return (op >= KB_EW_LT && op <= KB_EW_NE) || op == KB_EW_ISNAN || op == KB_EW_ISFINITE;
}

/* The shapes as NumPy prints them in its message: (2,3), (4,), (). */
static int shape_text(char *buf, size_t size, const kb_array *a) {
    int n = snprintf(buf, size, "(");
    for (int d = 0; d < a->ndim; d++)
        n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%s%lld", d ? "," : "",
                      (long long)a->shape[d]);
    n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%s)", a->ndim == 1 ? "," : "");
    return n;
}

static kb_status broadcast_error(int nin, const kb_array *const *in) {
    char text[512];
    size_t used = 0;
    for (int i = 0; i < nin && used < sizeof text; i++) {
        if (i)
            text[used++] = ' ';
        used += (size_t)shape_text(text + used, sizeof text - used, in[i]);
    }
    if (used >= sizeof text)
        used = sizeof text - 1;
    text[used] = '\0';
    return kb_fail(KB_EINVAL, "operands could not be broadcast together with shapes %s", text);
}

/* The layout of one application: the broadcast shape collapsed to as few dimensions as the
 * strides allow, each operand's byte strides over it (0 along broadcast dimensions), and the
 * last dimension walked in blocks. */
typedef struct layout {
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    int64_t strides[MAX_OPERANDS + 1][KB_MAX_DIMS]; /* operands, then the output */
    int nops;
    const char *data[MAX_OPERANDS];
    kb_dtype dtype[MAX_OPERANDS];
    char *out;
    int64_t rows, blocks_per_row;
} layout;

static kb_status make_layout(int nin, const kb_array *const *in, kb_array *out, layout *l) {
    memset(l, 0, sizeof *l);
    l->nops = nin;
    int ndim = 0;
    for (int i = 0; i < nin; i++)
        ndim = in[i]->ndim > ndim ? in[i]->ndim : ndim;
    int64_t shape[KB_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        shape[d] = 1;
        for (int i = 0; i < nin; i++) {
            int k = d - (ndim - in[i]->ndim);
            if (k < 0 || in[i]->shape[k] == 1)
                continue;
            if (shape[d] != 1 && shape[d] != in[i]->shape[k])
                return broadcast_error(nin, in);
            shape[d] = in[i]->shape[k];
        }
    }
    (void)out;
    l->ndim = ndim;
    memcpy(l->shape, shape, sizeof(int64_t) * (size_t)ndim);
    for (int i = 0; i < nin; i++) {
        for (int d = 0; d < ndim; d++) {
            int k = d - (ndim - in[i]->ndim);
            l->strides[i][d] = (k < 0 || in[i]->shape[k] == 1) ? 0 : in[i]->strides[k];
        }
        l->data[i] = in[i]->data;
        l->dtype[i] = in[i]->dtype;
    }
    return KB_OK;
}

/* Merges dimension d into d + 1 wherever every operand and the output step through them as
 * through one; drops dimensions of length 1. */
static void collapse(layout *l) {
    int nops = l->nops + 1;
    int kept = 0;
    for (int d = 0; d < l->ndim; d++) {
        if (l->shape[d] == 1 && l->ndim > 1)
            continue;
        if (kept > 0) {
            bool merge = true;
            for (int i = 0; i < nops && merge; i++)
                merge = l->strides[i][kept - 1] == l->strides[i][d] * l->shape[d];
            if (merge) {
                l->shape[kept - 1] *= l->shape[d];
                for (int i = 0; i < nops; i++)
                    l->strides[i][kept - 1] = l->strides[i][d];
                continue;
            }
        }
        l->shape[kept] = l->shape[d];
        for (int i = 0; i < nops; i++)
            l->strides[i][kept] = l->strides[i][d];
        kept++;
    }
    if (kept == 0) { /* a 0-d result, or all dimensions of length 1: one element */
        l->shape[0] = 1;
        for (int i = 0; i < nops; i++)
            l->strides[i][0] = 0;
        kept = 1;
    }
    l->ndim = kept;
}

typedef struct job {
    const layout *l;
    kb_ew_op op;
    kb_ew_loop loop;
    kb_simd_level level;
    kb_dtype compute;  /* what the loop reads */
    kb_dtype produced; /* what it writes: compute, or bool for predicates */
    kb_dtype out_dtype;
} job;

/* One block: elements [j0, j0 + n) (n <= BLOCK) of the last dimension, at offset (bytes of each
 * operand and the output) in the row. */
static kb_status run_block(const job *jb, const int64_t *offset, int64_t j0, int64_t n,
                           unsigned *found) {
    const layout *l = jb->l;
    int last = l->ndim - 1;
    _Alignas(64) char buffers[MAX_OPERANDS + 1][BLOCK * 8];
    const void *ins[MAX_OPERANDS];
    for (int i = 0; i < l->nops; i++) {
        const char *p = l->data[i] + offset[i] + j0 * l->strides[i][last];
        /* The condition of where is read as bool whatever the compute type is. */
        kb_dtype want = jb->op == KB_EW_WHERE && i == 0 ? KB_BOOL : jb->compute;
        if (l->dtype[i] == want && l->strides[i][last] == (int64_t)kb_dtype_size(want)) {
            ins[i] = p;
        } else {
            KB_TRY(kb_ew_cast(want, buffers[i], l->dtype[i], p, l->strides[i][last], n));
            ins[i] = buffers[i];
        }
    }
    char *o = jb->l->out + offset[l->nops] + j0 * (int64_t)kb_dtype_size(jb->out_dtype);
    if (jb->produced == jb->out_dtype) {
        jb->loop(n, o, ins, found);
        return KB_OK;
    }
    jb->loop(n, buffers[MAX_OPERANDS], ins, found);
    return kb_ew_cast(jb->out_dtype, o, jb->produced, buffers[MAX_OPERANDS],
                      (int64_t)kb_dtype_size(jb->produced), n);
}

/* One task: row r of the collapsed shape, elements [j0, j0 + n) of its last dimension (n <=
 * TASK), as one call of the loop where nothing needs a cast, else block by block. */
static kb_status run_task(const job *jb, int64_t r, int64_t j0, int64_t n, unsigned *found) {
    const layout *l = jb->l;
    int last = l->ndim - 1;
    int64_t offset[MAX_OPERANDS + 1] = {0};
    for (int d = last - 1; d >= 0; d--) {
        int64_t k = r % l->shape[d];
        r /= l->shape[d];
        for (int i = 0; i <= l->nops; i++)
            offset[i] += k * l->strides[i][d];
    }
    bool direct = jb->produced == jb->out_dtype;
    for (int i = 0; i < l->nops; i++) {
        kb_dtype want = jb->op == KB_EW_WHERE && i == 0 ? KB_BOOL : jb->compute;
        direct &= l->dtype[i] == want && l->strides[i][last] == (int64_t)kb_dtype_size(want);
    }
    if (direct) {
        const void *ins[MAX_OPERANDS];
        for (int i = 0; i < l->nops; i++)
            ins[i] = l->data[i] + offset[i] + j0 * l->strides[i][last];
        jb->loop(n, l->out + offset[l->nops] + j0 * (int64_t)kb_dtype_size(jb->out_dtype), ins,
                 found);
        return KB_OK;
    }
    for (int64_t s = 0; s < n; s += BLOCK) {
        unsigned f = 0;
        KB_TRY(run_block(jb, offset, j0 + s, n - s < BLOCK ? n - s : BLOCK, &f));
        *found |= f;
    }
    return KB_OK;
}

static kb_status apply_to(const job *jbp, int nin, const kb_array *const *in, kb_dtype loop_dtype,
                          kb_dtype out_dtype, kb_array *out, bool allocate, unsigned *found);

/* kb_ew_apply and kb_ew_apply_into: the loop chosen, then float16's operands rounded. */
static kb_status apply(kb_ew_op op, int nin, const kb_array *const *in, kb_dtype loop_dtype,
                       kb_dtype out_dtype, kb_array *out, bool allocate, unsigned *found) {
    *found = 0;
    if (nin != kb_ew_arity(op) || nin > MAX_OPERANDS)
        return kb_fail(KB_EINVAL, "elementwise op %d takes %d operands, not %d", (int)op,
                       kb_ew_arity(op), nin);
    job jb = {
        .op = op, .compute = loop_dtype == KB_F16 ? KB_F32 : loop_dtype, .out_dtype = out_dtype};
    KB_TRY(kb_simd_current(&jb.level));
    jb.loop = kb_dtype_is_float(jb.compute)
                  ? kb_ew_float_loop(op, jb.compute, jb.level, KB_REACH_CACHE)
                  : kb_ew_int_loop(op, jb.compute);
    if (!jb.loop)
        return kb_fail(KB_EUNSUPPORTED, "no elementwise loop of op %d for %s", (int)op,
                       kb_dtype_name(loop_dtype));
    jb.produced = kb_ew_is_predicate(op) ? KB_BOOL : jb.compute;

    /* A float16 loop computes in float32, but its operands are float16 first: 70000 becomes
     * inf, as NumPy casts it, not 70000.0f. Such operands are rare (a scalar beside a float16
     * array, or where's branches), and converted whole. */
    kb_array rounded[MAX_OPERANDS];
    const kb_array *operands[MAX_OPERANDS];
    int nrounded = 0;
    kb_status st = KB_OK;
    for (int i = 0; i < nin; i++) {
        operands[i] = in[i];
        bool condition = op == KB_EW_WHERE && i == 0;
        if (loop_dtype != KB_F16 || in[i]->dtype == KB_F16 || condition)
            continue;
        kb_array *r = &rounded[nrounded++];
        st = kb_array_new(r, KB_F16, in[i]->ndim, in[i]->shape, KB_ORDER_C);
        if (st == KB_OK)
            st = kb_array_copy(r, in[i]);
        if (st != KB_OK)
            break;
        operands[i] = r;
    }
    if (st == KB_OK)
        st = apply_to(&jb, nin, operands, loop_dtype, out_dtype, out, allocate, found);
    for (int i = 0; i < nrounded; i++)
        kb_array_free(&rounded[i]);
    return st;
}

kb_status kb_ew_apply(kb_ew_op op, int nin, const kb_array *const *in, kb_dtype loop_dtype,
                      kb_dtype out_dtype, kb_array *out, unsigned *found) {
    memset(out, 0, sizeof *out);
    return apply(op, nin, in, loop_dtype, out_dtype, out, true, found);
}

kb_status kb_ew_apply_into(kb_ew_op op, int nin, const kb_array *const *in, kb_dtype loop_dtype,
                           kb_array *out, unsigned *found) {
    *found = 0;
    if (out->flags & KB_ARRAY_READONLY)
        return kb_fail(KB_EINVAL, "the output of an elementwise op is read-only");
    /* The blocks write whole contiguous runs of the output (run_block). */
    if (!kb_array_is_c_contiguous(out))
        return kb_fail(KB_EINVAL, "the output of an elementwise op must be C-contiguous");
    return apply(op, nin, in, loop_dtype, out->dtype, out, false, found);
}

/* Whether out has the broadcast shape of the layout, before it is collapsed. */
static kb_status check_out_shape(const layout *l, const kb_array *out) {
    bool same = out->ndim == l->ndim;
    for (int d = 0; same && d < l->ndim; d++)
        same = out->shape[d] == l->shape[d];
    if (same)
        return KB_OK;
    char want[256], have[256];
    kb_array broadcast = {.ndim = l->ndim};
    memcpy(broadcast.shape, l->shape, sizeof(int64_t) * (size_t)l->ndim);
    shape_text(want, sizeof want, &broadcast);
    shape_text(have, sizeof have, out);
    return kb_fail(KB_EINVAL, "output of shape %s for operands broadcast to shape %s", have, want);
}

/* kb_ew_apply once the loop is chosen. */
static kb_status apply_to(const job *jbp, int nin, const kb_array *const *in, kb_dtype loop_dtype,
                          kb_dtype out_dtype, kb_array *out, bool allocate, unsigned *found) {
    job jb = *jbp;
    layout l;
    KB_TRY(make_layout(nin, in, out, &l));
    if (allocate)
        KB_TRY(kb_array_new_uninit(out, out_dtype, l.ndim, l.shape, KB_ORDER_C));
    else
        KB_TRY(check_out_shape(&l, out));
    for (int d = 0; d < l.ndim; d++)
        l.strides[nin][d] = out->strides[d];
    l.out = out->data;
    int64_t count = 1;
    for (int d = 0; d < l.ndim; d++)
        count *= l.shape[d];
    if (count == 0)
        return KB_OK;
    collapse(&l);
    jb.l = &l;
    /* Operands and output streamed from memory: the loop that prefetches ahead, and beyond the
     * last-level cache the one that writes the output with non-temporal stores, where the loop
     * writes the output itself rather than a buffer to cast from. */
    int64_t bytes = count * (nin + 1) * (int64_t)kb_dtype_size(jb.compute);
    kb_reach reach = kb_cache_reach(bytes);
    if (reach == KB_REACH_BEYOND && jb.produced != jb.out_dtype)
        reach = KB_REACH_FAR;
    if (kb_dtype_is_float(jb.compute) && reach != KB_REACH_CACHE)
        jb.loop = kb_ew_float_loop(jb.op, jb.compute, jb.level, reach);
    bool nt = kb_dtype_is_float(jb.compute) && reach == KB_REACH_BEYOND;

    int64_t length = l.shape[l.ndim - 1];
    int64_t per_row = (length + TASK - 1) / TASK;
    int64_t tasks = count / length * per_row;
    int threads = 1;
    KB_TRY(kb_threads_current(&threads));
    int parallel = threads > 1 && count >= PARALLEL_MIN;
    unsigned seen = 0;
    kb_status failed = KB_OK;
#pragma omp parallel num_threads(threads) if (parallel) reduction(| : seen)
    {
#pragma omp for schedule(static) nowait
        for (int64_t t = 0; t < tasks; t++) {
            int64_t j0 = t % per_row * TASK;
            int64_t n = length - j0 < TASK ? length - j0 : TASK;
            unsigned f = 0;
            kb_status st = run_task(&jb, t / per_row, j0, n, &f);
            seen |= f;
            if (st != KB_OK) {
#pragma omp critical(kb_ew_failure)
                failed = st;
            }
        }
        if (nt)
            kb_nt_fence();
    }
    *found = seen;
    if (failed != KB_OK) {
        /* The cast's own message was left in the thread that failed. */
        if (allocate)
            kb_array_free(out);
        return kb_fail(failed, "cannot cast to %s: a value is NaN, infinite or out of range",
                       kb_dtype_name(loop_dtype));
    }
    return KB_OK;
}
