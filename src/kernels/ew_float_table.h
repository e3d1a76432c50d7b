#ifndef KB_KERNELS_EW_FLOAT_TABLE_H
#define KB_KERNELS_EW_FLOAT_TABLE_H

#include "kernels/ew.h"

/* The float32 and float64 elementwise loops of one dispatch level (family "elementwise" in
 * core/dispatch.h): indexed by kb_ew_op, NULL where the op has no float loop (& | ~). */
typedef struct kb_ew_float_table {
    kb_ew_loop f32[KB_EW_OP_COUNT];
    kb_ew_loop f64[KB_EW_OP_COUNT];
    /* The loops for operands streamed from memory, which prefetch ahead (ew_float_target.h);
     * NULL where the level streams with its plain loop (kb_ew_float_loop). */
    kb_ew_loop f32_far[KB_EW_OP_COUNT];
    kb_ew_loop f64_far[KB_EW_OP_COUNT];
    /* The loops for operands and an output beyond the last-level cache, which also write with
     * non-temporal stores; NULL where the level has none. */
    kb_ew_loop f32_nt[KB_EW_OP_COUNT];
    kb_ew_loop f64_nt[KB_EW_OP_COUNT];
    /* sum(exp(x - shift)) (kb_ew_float_exp_sum) */
    kb_ew_exp_sum exp_sum_f32, exp_sum_f64;
} kb_ew_float_table;

/* The vector ops bound by memory, a few instructions an element, that also have far loops. */
#define KB_EW_STREAM_OPS(X)                                                                        \
    X(ADD, add)                                                                                    \
    X(SUB, sub)                                                                                    \
    X(MUL, mul)                                                                                    \
    X(DIV, div)                                                                                    \
    X(MAXIMUM, max)                                                                                \
    X(MINIMUM, min)                                                                                \
    X(NEG, neg)                                                                                    \
    X(ABS, abs)                                                                                    \
    X(SQRT, sqrt)                                                                                  \
    X(SQUARE, square)                                                                              \
    X(RECIPROCAL, reciprocal)

/* The ops the vector levels run over the vector layer (ew_float_target.h), X(ENUM, name):
 * the arithmetic, the sign operations, and the functions SLEEF computes. */
#define KB_EW_VECTOR_OPS(X)                                                                        \
    KB_EW_STREAM_OPS(X)                                                                            \
    X(POW, pow)                                                                                    \
    X(EXP, exp)                                                                                    \
    X(EXPM1, expm1)                                                                                \
    X(EXP2, exp2)                                                                                  \
    X(LOG, log)                                                                                    \
    X(LOG1P, log1p)                                                                                \
    X(LOG2, log2)                                                                                  \
    X(LOG10, log10)                                                                                \
    X(SIN, sin)                                                                                    \
    X(COS, cos)                                                                                    \
    X(TAN, tan)                                                                                    \
    X(ARCSIN, arcsin)                                                                              \
    X(ARCCOS, arccos)                                                                              \
    X(ARCTAN, arctan)                                                                              \
    X(TANH, tanh)                                                                                  \
    X(SINH, sinh)                                                                                  \
    X(COSH, cosh)                                                                                  \
    X(ERF, erf)                                                                                    \
    X(SIGMOID, sigmoid)

/* The ops every level runs as C loops (ew_float_loops.h), compiled with the level's flags:
 * comparisons and predicates (bool results), floor division and remainder (NumPy's divmod
 * rules), rounding, sign, where and the copy. */
#define KB_EW_C_OPS(X)                                                                             \
    X(FLOORDIV, floordiv)                                                                          \
    X(MOD, mod)                                                                                    \
    X(LT, lt)                                                                                      \
    X(LE, le)                                                                                      \
    X(GT, gt)                                                                                      \
    X(GE, ge)                                                                                      \
    X(EQ, eq)                                                                                      \
    X(NE, ne)                                                                                      \
    X(COPY, copy)                                                                                  \
    X(FLOOR, floor)                                                                                \
    X(CEIL, ceil)                                                                                  \
    X(RINT, rint)                                                                                  \
    X(SIGN, sign)                                                                                  \
    X(ISNAN, isnan)                                                                                \
    X(ISFINITE, isfinite)                                                                          \
    X(WHERE, where)

const kb_ew_float_table *kb_ew_float_table_scalar(void);
const kb_ew_float_table *kb_ew_float_table_avx2(void);
const kb_ew_float_table *kb_ew_float_table_avx512(void);
const kb_ew_float_table *kb_ew_float_table_neon(void);

#endif
