/* The FLOPs and bytes of PyTorch's matrix products and convolutions from the shapes, types
 * and strides a profiler trace records for them (docs/traces.md, "Counting work"). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/trace_ops.h"

#define MAX_DIMS 8
/* Far above any real tensor's extent; keeps every product finite and exact in a double. */
#define MAX_EXTENT (INT64_C(1) << 40)

typedef struct tensor {
    int ndim;
    int64_t dims[MAX_DIMS];
    double elements; /* the product of the dims */
    double stored;   /* elements in memory: a dimension of stride 0 (a broadcast) counts once */
    int size;        /* bytes per element */
    kb_trace_dtype dtype;
} tensor;

typedef struct inputs {
    const json_t *dims, *types, *strides, *concrete;
} inputs;

static const struct type_name {
    const char *name; /* as c10 prints the scalar type in "Input type" */
    kb_trace_dtype dtype;
    int size;
} type_names[] = {
    {"double", KB_TRACE_F64, 8},
    {"float", KB_TRACE_F32, 4},
    {"c10::Half", KB_TRACE_F16, 2},
    {"c10::BFloat16", KB_TRACE_BF16, 2},
    {"c10::Float8_e4m3fn", KB_TRACE_F8, 1},
    {"c10::Float8_e5m2", KB_TRACE_F8, 1},
    {"c10::Float8_e4m3fnuz", KB_TRACE_F8, 1},
    {"c10::Float8_e5m2fnuz", KB_TRACE_F8, 1},
    {"signed char", KB_TRACE_I8, 1},
    {"unsigned char", KB_TRACE_OTHER, 1},
    {"bool", KB_TRACE_OTHER, 1},
    {"short int", KB_TRACE_OTHER, 2},
    {"int", KB_TRACE_OTHER, 4},
    {"long int", KB_TRACE_OTHER, 8},
    {"c10::complex<float>", KB_TRACE_OTHER, 8},
    {"c10::complex<double>", KB_TRACE_OTHER, 16},
};

const char *kb_trace_dtype_name(kb_trace_dtype dtype) {
    static const char *const names[] = {"float64", "float32", "float16", "bfloat16",
                                        "float8",  "int8",    "other"};
    return dtype >= 0 && dtype <= KB_TRACE_OTHER ? names[dtype] : "?";
}

static kb_trace_op_status fail(kb_trace_work *w, kb_trace_op_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static kb_trace_op_status fail(kb_trace_work *w, kb_trace_op_status status, const char *format,
                               ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(w->why, sizeof w->why, format, args);
    va_end(args);
    /* A reason is one line of text, whatever the trace's names hold (a newline, an escape). */
    for (char *c = w->why; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return status;
}

/* Input i as a tensor: false when it is not one (None, a scalar, a list) or its record is
 * malformed. */
static bool tensor_at(const inputs *in, size_t i, tensor *t) {
    const json_t *dims = json_array_get(in->dims, i);
    const char *type = json_string_value(json_array_get(in->types, i));
    if (!json_is_array(dims) || !type || json_array_size(dims) > MAX_DIMS)
        return false;
    const struct type_name *found = NULL;
    for (size_t k = 0; k < sizeof type_names / sizeof type_names[0]; k++)
        if (strcmp(type, type_names[k].name) == 0)
            found = &type_names[k];
    if (!found)
        return false;
    t->ndim = (int)json_array_size(dims);
    t->dtype = found->dtype;
    t->size = found->size;
    const json_t *strides = json_array_get(in->strides, i);
    bool use_strides = json_is_array(strides) && json_array_size(strides) == (size_t)t->ndim;
    t->elements = t->stored = 1;
    for (int d = 0; d < t->ndim; d++) {
        const json_t *v = json_array_get(dims, (size_t)d);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > MAX_EXTENT)
            return false;
        t->dims[d] = json_integer_value(v);
        t->elements *= (double)t->dims[d];
        const json_t *stride = use_strides ? json_array_get(strides, (size_t)d) : NULL;
        if (!(json_is_integer(stride) && json_integer_value(stride) == 0))
            t->stored *= (double)t->dims[d];
    }
    return true;
}

/* The operands: required tensors, and optional ones (a bias) that count when present. */
static kb_trace_op_status operands(const inputs *in, const int *index, int count, tensor *t,
                                   bool *present, const char *op, kb_trace_work *w) {
    for (int k = 0; k < count; k++) {
        present[k] = tensor_at(in, (size_t)abs(index[k]) - 1, &t[k]);
        if (!present[k] && index[k] > 0)
            return fail(w, KB_TRACE_OP_NO_SHAPES,
                        "%s without the shapes and types of its inputs (record_shapes=True "
                        "records them)",
                        op);
    }
    return KB_TRACE_OP_OK;
}

static double bytes_of(const tensor *t) {
    return t->stored * t->size;
}

static kb_trace_op_status product(kb_trace_work *w, const tensor *a, double m, double n, double k,
                                  double batch) {
    w->flops = 2 * batch * m * n * k;
    w->bytes += batch * m * n * a->size; /* the output, of the operands' type */
    w->dtype = a->dtype;
    w->matrix = true;
    return KB_TRACE_OP_OK;
}

static kb_trace_op_status unfit(kb_trace_work *w, const char *op) {
    return fail(w, KB_TRACE_OP_UNSUPPORTED, "%s with input shapes that do not fit it", op);
}

/* mm, addmm, bmm, baddbmm: 2-d or 3-d (batched) operands at a and a + 1. */
static kb_trace_op_status plain_product(const inputs *in, const char *op, int a, bool bias,
                                        int ndim, kb_trace_work *w) {
    int index[3] = {-1, a + 1, a + 2};
    tensor t[3];
    bool present[3];
    kb_trace_op_status st = operands(in, index, 3, t, present, op, w);
    if (st != KB_TRACE_OP_OK)
        return st;
    const tensor *x = &t[1], *y = &t[2];
    if (x->ndim != ndim || y->ndim != ndim || x->dims[ndim - 1] != y->dims[ndim - 2] ||
        (ndim == 3 && x->dims[0] != y->dims[0]))
        return unfit(w, op);
    w->bytes = bytes_of(x) + bytes_of(y) + (bias && present[0] ? bytes_of(&t[0]) : 0);
    return product(w, x, (double)x->dims[ndim - 2], (double)y->dims[ndim - 1],
                   (double)x->dims[ndim - 1], ndim == 3 ? (double)x->dims[0] : 1);
}

/* matmul: 1-d operands are a row and a column; batch dimensions broadcast. */
static kb_trace_op_status matmul(const inputs *in, const char *op, kb_trace_work *w) {
    int index[2] = {1, 2};
    tensor t[2];
    bool present[2];
    kb_trace_op_status st = operands(in, index, 2, t, present, op, w);
    if (st != KB_TRACE_OP_OK)
        return st;
    const tensor *x = &t[0], *y = &t[1];
    if (x->ndim < 1 || y->ndim < 1)
        return unfit(w, op);
    int64_t k = x->dims[x->ndim - 1];
    int64_t m = x->ndim >= 2 ? x->dims[x->ndim - 2] : 1;
    int64_t ky = y->ndim >= 2 ? y->dims[y->ndim - 2] : y->dims[0];
    int64_t n = y->ndim >= 2 ? y->dims[y->ndim - 1] : 1;
    if (k != ky)
        return unfit(w, op);
    double batch = 1;
    int bx = x->ndim > 2 ? x->ndim - 2 : 0, by = y->ndim > 2 ? y->ndim - 2 : 0;
    for (int i = 0; i < (bx > by ? bx : by); i++) {
        int64_t dx = i < bx ? x->dims[bx - 1 - i] : 1, dy = i < by ? y->dims[by - 1 - i] : 1;
        if (dx != dy && dx != 1 && dy != 1)
            return unfit(w, op);
        batch *= (double)(dx > dy ? dx : dy);
    }
    w->bytes = bytes_of(x) + bytes_of(y);
    return product(w, x, (double)m, (double)n, (double)k, batch);
}

/* linear: input (..., K), weight (N, K), an optional bias (N). */
static kb_trace_op_status linear(const inputs *in, const char *op, kb_trace_work *w) {
    int index[3] = {1, 2, -3};
    tensor t[3];
    bool present[3];
    kb_trace_op_status st = operands(in, index, 3, t, present, op, w);
    if (st != KB_TRACE_OP_OK)
        return st;
    const tensor *x = &t[0], *weight = &t[1];
    if (x->ndim < 1 || weight->ndim != 2 || x->dims[x->ndim - 1] != weight->dims[1])
        return unfit(w, op);
    double rows = x->elements / (double)weight->dims[1];
    if (weight->dims[1] == 0)
        rows = 0;
    w->bytes = bytes_of(x) + bytes_of(weight) + (present[2] ? bytes_of(&t[2]) : 0);
    return product(w, x, rows, (double)weight->dims[0], (double)weight->dims[1], 1);
}

/* Where the convolutions keep their arguments (1-based input positions; 0: none). */
static const struct conv_op {
    const char *name;
    int bias, stride, padding, dilation, transposed;
} conv_ops[] = {
    {"aten::convolution", 3, 4, 5, 6, 7},
    {"aten::_convolution", 3, 4, 5, 6, 7},
    {"aten::conv1d", 3, 4, 5, 6, 0},
    {"aten::conv2d", 3, 4, 5, 6, 0},
    {"aten::conv3d", 3, 4, 5, 6, 0},
    {"aten::cudnn_convolution", 0, 4, 3, 5, 0},
    {"aten::miopen_convolution", 3, 5, 4, 6, 0},
};

/* A recorded list of integers ("[1, 1]", "2", "(1, 1)") into v for n spatial dimensions (one
 * value stands for all); 1: read, 0: not recorded, -1: recorded but not such a list. */
static int int_list(const inputs *in, int position, int n, int64_t *v) {
    const char *text =
        position > 0 ? json_string_value(json_array_get(in->concrete, (size_t)position - 1)) : NULL;
    if (!text || !*text)
        return 0;
    int count = 0;
    const char *c = text;
    while (*c) {
        if (strchr("[](), ", *c)) {
            c++;
            continue;
        }
        char *end;
        long long x = strtoll(c, &end, 10);
        if (end == c || count == MAX_DIMS || x < 0 || x > MAX_EXTENT)
            return -1;
        v[count++] = x;
        c = end;
    }
    if (count == 1)
        for (int i = 1; i < n; i++)
            v[i] = v[0];
    return count == 1 || count == n ? 1 : -1;
}

static kb_trace_op_status convolution(const inputs *in, const struct conv_op *op,
                                      kb_trace_work *w) {
    int index[3] = {1, 2, op->bias ? -op->bias : -3};
    tensor t[3];
    bool present[3];
    kb_trace_op_status st = operands(in, index, 3, t, present, op->name, w);
    if (st != KB_TRACE_OP_OK)
        return st;
    const tensor *x = &t[0], *weight = &t[1];
    bool bias = op->bias && present[2];
    int spatial = x->ndim - 2;
    if (x->ndim < 3 || x->ndim > 5 || weight->ndim != x->ndim || weight->dims[1] <= 0 ||
        x->dims[1] % weight->dims[1] != 0)
        return unfit(w, op->name);
    const char *transposed =
        op->transposed ? json_string_value(json_array_get(in->concrete, (size_t)op->transposed - 1))
                       : NULL;
    if (transposed && (strcmp(transposed, "True") == 0 || strcmp(transposed, "true") == 0))
        return fail(w, KB_TRACE_OP_UNSUPPORTED, "%s transposed: not counted", op->name);

    int64_t stride[MAX_DIMS], padding[MAX_DIMS], dilation[MAX_DIMS];
    int got_stride = int_list(in, op->stride, spatial, stride);
    int got_dilation = int_list(in, op->dilation, spatial, dilation);
    int got_padding = int_list(in, op->padding, spatial, padding);
    const char *pad_text = json_string_value(json_array_get(in->concrete, (size_t)op->padding - 1));
    bool same = false;
    if (got_padding < 0 && pad_text && (strstr(pad_text, "same") || strstr(pad_text, "valid"))) {
        same = strstr(pad_text, "same") != NULL; /* PyTorch allows 'same' at stride 1 only */
        for (int i = 0; i < spatial; i++)
            padding[i] = 0;
        got_padding = 1;
    }
    if (got_stride < 0 || got_padding < 0 || got_dilation < 0)
        return fail(w, KB_TRACE_OP_UNSUPPORTED,
                    "%s with a stride, padding or dilation kbench "
                    "cannot read",
                    op->name);
    w->assumed = got_stride == 0 || got_padding == 0 || got_dilation == 0;
    for (int i = 0; i < spatial; i++) {
        if (got_stride == 0)
            stride[i] = 1;
        if (got_padding == 0)
            padding[i] = 0;
        if (got_dilation == 0)
            dilation[i] = 1;
    }
    double window = 1, outputs = 1;
    for (int i = 0; i < spatial; i++) {
        int64_t h = x->dims[2 + i], r = weight->dims[2 + i];
        if (stride[i] < 1 || dilation[i] < 1)
            return unfit(w, op->name);
        int64_t p = same ? h : (h + 2 * padding[i] - dilation[i] * (r - 1) - 1) / stride[i] + 1;
        if (h + 2 * padding[i] - dilation[i] * (r - 1) - 1 < 0 && !same)
            return unfit(w, op->name);
        window *= (double)r;
        outputs *= (double)p;
    }
    double n = (double)x->dims[0], k = (double)weight->dims[0];
    w->flops = 2 * n * k * (double)weight->dims[1] * window * outputs;
    w->bytes =
        bytes_of(x) + bytes_of(weight) + (bias ? bytes_of(&t[2]) : 0) + n * k * outputs * x->size;
    w->dtype = x->dtype;
    w->matrix = true;
    return KB_TRACE_OP_OK;
}

kb_trace_op_status kb_trace_op_work(const char *name, const json_t *args, kb_trace_work *w) {
    memset(w, 0, sizeof *w);
    w->dtype = KB_TRACE_OTHER;
    inputs in = {json_object_get(args, "Input Dims"), json_object_get(args, "Input type"),
                 json_object_get(args, "Input Strides"), json_object_get(args, "Concrete Inputs")};
    if (!json_is_array(in.dims) || !json_is_array(in.types))
        in.dims = in.types = NULL; /* no shapes: a counted op fails on its first operand */
    if (strcmp(name, "aten::mm") == 0)
        return plain_product(&in, name, 0, false, 2, w);
    if (strcmp(name, "aten::addmm") == 0 || strcmp(name, "aten::_addmm_activation") == 0)
        return plain_product(&in, name, 1, true, 2, w);
    if (strcmp(name, "aten::bmm") == 0)
        return plain_product(&in, name, 0, false, 3, w);
    if (strcmp(name, "aten::baddbmm") == 0)
        return plain_product(&in, name, 1, true, 3, w);
    if (strcmp(name, "aten::matmul") == 0)
        return matmul(&in, name, w);
    if (strcmp(name, "aten::linear") == 0)
        return linear(&in, name, w);
    for (size_t i = 0; i < sizeof conv_ops / sizeof conv_ops[0]; i++)
        if (strcmp(name, conv_ops[i].name) == 0)
            return convolution(&in, &conv_ops[i], w);
    return fail(w, KB_TRACE_OP_UNKNOWN, "%s is not an op kbench counts", name);
}
