/* The C source of a compiled elementwise kernel (expr/kernel_source.h): its ops one after
 * another on vectors, over the vector layer and each op's body of kernels/ew_float_bodies.h. */
#include "expr/kernel_source.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/cache_size.h"
#include "core/internal.h"
#include "kernels/ew_float_table.h"

static const char *const body_names[KB_EW_OP_COUNT] = {
#define BODY_NAME(ENUM, name) [KB_EW_##ENUM] = #name,
    KB_EW_VECTOR_OPS(BODY_NAME)
#undef BODY_NAME
};

/* The comparisons as lane masks of type S, their operands a and b: <= and >= are < or ==, > or
 * == (false on NaN, as NumPy's); != is true on NaN, which the layer's ordered compares cannot
 * give, so it is not compiled. */
static bool is_compare(kb_ew_op op) {
    return op == KB_EW_LT || op == KB_EW_GT || op == KB_EW_EQ || op == KB_EW_LE || op == KB_EW_GE;
}

static void write_compare(FILE *f, kb_ew_op op, const char *s, const char *a, const char *b) {
    const char *first = op == KB_EW_LT || op == KB_EW_LE ? "lt" : op == KB_EW_EQ ? "eq" : "gt";
    if (op == KB_EW_LE || op == KB_EW_GE)
        fprintf(f, "vm%s_or(v%s_%s(%s, %s), v%s_eq(%s, %s))", s, s, first, a, b, s, a, b);
    else
        fprintf(f, "v%s_%s(%s, %s)", s, first, a, b);
}

bool kb_ck_op_supported(kb_ew_op op) {
    return (unsigned)op < KB_EW_OP_COUNT && (body_names[op] || is_compare(op) || op == KB_EW_WHERE);
}

/* The name of value v in the source: "x0" an input, "CONST(c0)" a constant, "v3" an op's
 * result, "m3" a comparison's mask. */
static const char *value_name(char *buf, size_t size, const kb_ck *k, const bool *mask, int v) {
    int op = v - k->ninputs - k->nconsts;
    if (v < k->ninputs)
        snprintf(buf, size, "x%d", v);
    else if (op < 0)
        snprintf(buf, size, "CONST(c%d)", v - k->ninputs);
    else
        snprintf(buf, size, "%s%d", mask[op] ? "m" : "v", op);
    return buf;
}

/* Whether the kernel is one the source can compute: ops it knows, operands that exist and come
 * before their use, masks read only as where's condition and never written out. */
static bool check(const kb_ck *k, bool *mask) {
    int first_op = k->ninputs + k->nconsts;
    for (int i = 0; i < k->nops; i++) {
        const kb_ck_op *o = &k->ops[i];
        if (!kb_ck_op_supported(o->op) || o->nin != kb_ew_arity(o->op))
            return false;
        for (int a = 0; a < o->nin; a++) {
            int v = o->in[a];
            if (v < 0 || v >= first_op + i)
                return false;
            bool is_mask = v >= first_op && mask[v - first_op];
            if (is_mask != (o->op == KB_EW_WHERE && a == 0))
                return false;
        }
        mask[i] = is_compare(o->op);
        if (mask[i] && o->out >= 0)
            return false;
        if (o->out >= k->nouts)
            return false;
    }
    return true;
}

/* The statements computing every op of one vector of type S, as the body of a macro over
 * LOAD(p) (an input's vector at p), CONST(c), KEEP(v) (a result as the loops leave it) and
 * STORE(p, v). */
static void write_ops(FILE *f, const kb_ck *k, const bool *mask, const char *s) {
    char a[32], b[32], c[32];
    fprintf(f, "#define KB_CK_VECTOR(at, LOAD, CONST, KEEP, STORE) \\\n    do { \\\n");
    for (int v = 0; v < k->ninputs; v++)
        fprintf(f, "        const v%s x%d = LOAD(in%d + (at)); \\\n", s, v, v);
    for (int i = 0; i < k->nops; i++) {
        const kb_ck_op *o = &k->ops[i];
        value_name(a, sizeof a, k, mask, o->in[0]);
        value_name(b, sizeof b, k, mask, o->in[o->nin > 1 ? 1 : 0]);
        if (mask[i]) {
            fprintf(f, "        const vmf%s m%d = ", s + 1, i);
            write_compare(f, o->op, s, a, b);
        } else if (o->op == KB_EW_WHERE) {
            /* where(c, x, y): x where the mask is set, else y */
            value_name(c, sizeof c, k, mask, o->in[2]);
            fprintf(f, "        const v%s v%d = KEEP(v%s_select(%s, %s, %s))", s, i, s, c, a, b);
        } else {
            fprintf(f, "        const v%s v%d = KEEP(kb_ew_body_%s_%s(%s, %s))", s, i,
                    body_names[o->op], s, a, b);
        }
        fprintf(f, "; \\\n");
        if (o->out >= 0)
            fprintf(f, "        STORE(out%d + (at), v%d); \\\n", o->out, i);
    }
    for (int i = 0; i < k->nops; i++)
        fprintf(f, "        (void)%s%d; \\\n", mask[i] ? "m" : "v", i);
    fprintf(f, "    } while (0)\n\n");
}

bool kb_ck_computes(const kb_ck *k, kb_simd_level level) {
    if ((level != KB_SIMD_AVX2 && level != KB_SIMD_AVX512 && level != KB_SIMD_NEON) ||
        (k->type != KB_F32 && k->type != KB_F64) || k->nops <= 0 || k->nouts <= 0)
        return false;
    bool *mask = calloc((size_t)k->nops, sizeof *mask);
    bool ok = mask && check(k, mask);
    free(mask);
    return ok;
}

kb_status kb_ck_source(const kb_ck *k, kb_simd_level level, char **out) {
    *out = NULL;
    if (!kb_ck_computes(k, level))
        return kb_fail(KB_EUNSUPPORTED, "a kernel the compiled kernels do not compute at simd=%s",
                       kb_simd_name(level));
    bool *mask = calloc((size_t)k->nops, sizeof *mask);
    if (!mask)
        return kb_fail(KB_ENOMEM, "out of memory for a kernel's source");
    check(k, mask);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        free(mask);
        return kb_fail(KB_ENOMEM, "out of memory for a kernel's source");
    }
    bool f32 = k->type == KB_F32;
    const char *s = f32 ? "f32" : "f64";
    fprintf(f,
            "/* A kernel kbench compiled for a fused expression (expr/kernel_source.c): %d "
            "inputs, %d constants, %d ops, %d outputs, %s, %s. */\n",
            k->ninputs, k->nconsts, k->nops, k->nouts, kb_dtype_name(k->type), kb_simd_name(level));
    fprintf(f, "#define %s\n",
            level == KB_SIMD_AVX512 ? "KB_VEC_AVX512"
            : level == KB_SIMD_NEON ? "KB_VEC_NEON"
                                    : "KB_VEC_AVX2");
    fprintf(f, "#include \"simd/internal.h\"\n#include \"simd/vmath.h\"\n"
               "#include \"kernels/ew_float_bodies.h\"\n\n");
    fprintf(f, "typedef %s T;\n#define LANES VF%s_LANES\nKB_EW_BODY_FUNCTIONS(%s, T, LANES)\n\n",
            f32 ? "float" : "double", f32 ? "32" : "64", s);
    write_ops(f, k, mask, s);
    fprintf(f,
            "/* a result past the first r lanes made 0, as the loops' copy of a last vector "
            "leaves it */\n"
            "static inline v%s keep_till(v%s v, int64_t r) {\n"
            "    T t[LANES];\n    v%s_store(t, v);\n    return v%s_load_till(t, r);\n}\n"
            "static inline void store_till(T *p, v%s v, int64_t r) {\n"
            "    T t[LANES];\n    v%s_store(t, v);\n"
            "    memcpy(p, t, (size_t)r * sizeof(T));\n}\n\n",
            s, s, s, s, s, s);
    fprintf(f,
            "#define SAME(v) (v)\n"
            "#define LOAD_TILL(p) v%s_load_till(p, r)\n"
            "#define KEEP_TILL(v) keep_till(v, r)\n"
            "#define STORE_TILL(p, v) store_till(p, v, r)\n\n",
            s);
    fprintf(f, "void " KB_CK_SYMBOL "(int64_t n, const void *const *in, void *const *out, "
               "const void *consts, int mode) {\n");
    for (int v = 0; v < k->ninputs; v++)
        fprintf(f, "    const T *in%d = in[%d];\n", v, v);
    for (int o = 0; o < k->nouts; o++)
        fprintf(f, "    T *out%d = out[%d];\n", o, o);
    fprintf(f, "    const T *konst = consts;\n    (void)konst;\n");
    for (int c = 0; c < k->nconsts; c++)
        fprintf(f, "    const v%s c%d = v%s_set1(konst[%d]);\n", s, c, s, c);
    fprintf(f, "    (void)in;\n    (void)out;\n    int64_t i = 0;\n");
    fprintf(f, "    enum { STEP = LANES * sizeof(T) >= 64 ? LANES : 64 / sizeof(T) };\n");
    /* the streaming trips: a cache line of each operand a trip, its inputs prefetched ahead,
     * as the elementwise loops' far and non-temporal loops do (kernels/ew_float_target.h) */
    for (int m = KB_CK_STREAM; m >= KB_CK_FAR; m--) {
        fprintf(f, "    %sif (mode == %d)\n        for (; i + STEP <= n; i += STEP) {\n",
                m == KB_CK_STREAM ? "" : "else ", m);
        for (int v = 0; v < k->ninputs; v++)
            fprintf(f, "            __builtin_prefetch((const char *)(in%d + i) + %d, 0, %d);\n", v,
                    m == KB_CK_STREAM ? KB_NT_AHEAD_BYTES : KB_FAR_AHEAD_BYTES,
                    m == KB_CK_STREAM ? 0 : 2);
        if (m == KB_CK_FAR)
            for (int o = 0; o < k->nouts; o++)
                fprintf(f,
                        "            __builtin_prefetch((const char *)(out%d + i) + %d, 1, 2);\n",
                        o, KB_FAR_AHEAD_BYTES);
        fprintf(f,
                "            for (int s = 0; s < STEP; s += LANES)\n"
                "                KB_CK_VECTOR(i + s, v%s_load, SAME, SAME, v%s%s);\n"
                "        }\n",
                s, s, m == KB_CK_STREAM ? "_store_nt" : "_store");
    }
    fprintf(f,
            "    for (; i + LANES <= n; i += LANES)\n"
            "        KB_CK_VECTOR(i, v%s_load, SAME, SAME, v%s_store);\n"
            "    if (i < n) {\n        const int64_t r = n - i;\n"
            "        KB_CK_VECTOR(i, LOAD_TILL, KEEP_TILL, KEEP_TILL, STORE_TILL);\n"
            "    }\n}\n",
            s, s);
    free(mask);
    if (fclose(f) != 0) {
        free(text);
        return kb_fail(KB_ENOMEM, "out of memory for a kernel's source");
    }
    *out = text;
    return KB_OK;
}
