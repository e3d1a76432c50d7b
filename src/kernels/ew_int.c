/* Elementwise inner loops of bool and the integer types, with NumPy's integer semantics. */
#include <stdbool.h>
#include <stdint.h>

#include "kernels/ew.h"

/* Arithmetic wraps modulo 2^bits, as NumPy's does: computed in uint64_t, where overflow is
 * defined, and truncated to the type (C's int promotion would make uint16 * uint16 an int
 * multiplication, which may overflow). Division by zero gives 0 and is reported for NumPy's
 * warning; MIN // -1 wraps to MIN and MIN % -1 is 0, as in NumPy. */

#define BINARY(NAME, T, EXPR)                                                                      \
    static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {               \
        const T *x = in[0], *y = in[1];                                                            \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i], b = y[i];                                                                  \
            o[i] = (T)(EXPR);                                                                      \
        }                                                                                          \
    }
#define UNARY(NAME, T, EXPR)                                                                       \
    static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {               \
        const T *x = in[0];                                                                        \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i];                                                                            \
            o[i] = (T)(EXPR);                                                                      \
        }                                                                                          \
    }
#define COMPARE(NAME, T, OP)                                                                       \
    static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {               \
        const T *x = in[0], *y = in[1];                                                            \
        bool *o = out;                                                                             \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = x[i] OP y[i];                                                                   \
    }

#define U64(v) ((uint64_t)(v))
/* v < 0 for a signed type, without -Wtype-limits' complaint for unsigned ones. */
static inline bool is_negative(int64_t v) {
    return v < 0;
}
#define NEG(v) is_negative((int64_t)(v))

/* Everything of one integer type T (MIN its least value, 0 for unsigned types). */
#define INT_LOOPS(S, T, MIN, SIGNED)                                                               \
    BINARY(add_##S, T, U64(a) + U64(b))                                                            \
    BINARY(sub_##S, T, U64(a) - U64(b))                                                            \
    BINARY(mul_##S, T, U64(a) * U64(b))                                                            \
    BINARY(max_##S, T, a > b ? a : b)                                                              \
    BINARY(min_##S, T, a < b ? a : b)                                                              \
    BINARY(and_##S, T, a &b)                                                                       \
    BINARY(or_##S, T, a | b)                                                                       \
    COMPARE(lt_##S, T, <)                                                                          \
    COMPARE(le_##S, T, <=)                                                                         \
    COMPARE(gt_##S, T, >)                                                                          \
    COMPARE(ge_##S, T, >=)                                                                         \
    COMPARE(eq_##S, T, ==)                                                                         \
    COMPARE(ne_##S, T, !=)                                                                         \
    UNARY(neg_##S, T, 0 - U64(a))                                                                  \
    UNARY(invert_##S, T, ~U64(a))                                                                  \
    UNARY(abs_##S, T, SIGNED &&NEG(a) ? 0 - U64(a) : U64(a))                                       \
    UNARY(square_##S, T, U64(a) * U64(a))                                                          \
    UNARY(copy_##S, T, a)                                                                          \
    UNARY(sign_##S, T, a > 0 ? 1 : SIGNED && NEG(a) ? -1 : 0)                                      \
    static void floordiv_##S(int64_t n, void *out, const void *const *in, unsigned *found) {       \
        const T *x = in[0], *y = in[1];                                                            \
        T *o = out;                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i], b = y[i];                                                                  \
            if (b == 0) {                                                                          \
                *found |= KB_EW_DIVIDE_BY_ZERO;                                                    \
                o[i] = 0;                                                                          \
            } else if (SIGNED && a == MIN && b == (T)-1) {                                         \
                o[i] = MIN;                                                                        \
            } else {                                                                               \
                T q = (T)(a / b);                                                                  \
                o[i] = (T)(SIGNED && a % b != 0 && (NEG(a) != NEG(b)) ? q - 1 : q);                \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void mod_##S(int64_t n, void *out, const void *const *in, unsigned *found) {            \
        const T *x = in[0], *y = in[1];                                                            \
        T *o = out;                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i], b = y[i];                                                                  \
            if (b == 0) {                                                                          \
                *found |= KB_EW_DIVIDE_BY_ZERO;                                                    \
                o[i] = 0;                                                                          \
            } else if (SIGNED && a == MIN && b == (T)-1) {                                         \
                o[i] = 0;                                                                          \
            } else {                                                                               \
                T r = (T)(a % b);                                                                  \
                o[i] = (T)(SIGNED && r != 0 && (NEG(r) != NEG(b)) ? r + b : r);                    \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* 1 / a truncated. NumPy leaves 1 / 0 to C's undefined conversion of infinity; on x86-64      \
     * that gives int32 and int64 their least value and the others 0, and so does kbench. */       \
    static void reciprocal_##S(int64_t n, void *out, const void *const *in, unsigned *found) {     \
        const T *x = in[0];                                                                        \
        T *o = out;                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i];                                                                            \
            if (a == 0) {                                                                          \
                *found |= KB_EW_DIVIDE_BY_ZERO;                                                    \
                o[i] = (T)(SIGNED && sizeof(T) >= 4 ? MIN : 0);                                    \
            } else {                                                                               \
                o[i] = (T)(a == 1 ? 1 : SIGNED && a == (T)-1 ? -1 : 0);                            \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* By squaring, wrapping; a negative exponent is reported, as NumPy refuses it. */             \
    static void pow_##S(int64_t n, void *out, const void *const *in, unsigned *found) {            \
        const T *x = in[0], *y = in[1];                                                            \
        T *o = out;                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T b = y[i];                                                                            \
            if (SIGNED && NEG(b)) {                                                                \
                *found |= KB_EW_NEGATIVE_POWER;                                                    \
                o[i] = 0;                                                                          \
                continue;                                                                          \
            }                                                                                      \
            uint64_t base = U64(x[i]), e = U64(b), r = 1;                                          \
            while (e) {                                                                            \
                if (e & 1)                                                                         \
                    r *= base;                                                                     \
                base *= base;                                                                      \
                e >>= 1;                                                                           \
            }                                                                                      \
            o[i] = (T)r;                                                                           \
        }                                                                                          \
    }

INT_LOOPS(i8, int8_t, INT8_MIN, 1)
INT_LOOPS(i16, int16_t, INT16_MIN, 1)
INT_LOOPS(i32, int32_t, INT32_MIN, 1)
INT_LOOPS(i64, int64_t, INT64_MIN, 1)
INT_LOOPS(u8, uint8_t, 0, 0)
INT_LOOPS(u16, uint16_t, 0, 0)
INT_LOOPS(u32, uint32_t, 0, 0)
INT_LOOPS(u64, uint64_t, 0, 0)

/* bool: + and * are or and and, as NumPy's logical loops; ~ is not. */
UNARY(invert_b, bool, !a)

static void where_1(int64_t n, void *out, const void *const *in, unsigned *found) {
    const bool *c = in[0];
    const uint8_t *x = in[1], *y = in[2];
    uint8_t *o = out;
    (void)found;
    for (int64_t i = 0; i < n; i++)
        o[i] = c[i] ? x[i] : y[i];
}
#define WHERE(S, T)                                                                                \
    static void where_##S(int64_t n, void *out, const void *const *in, unsigned *found) {          \
        const bool *c = in[0];                                                                     \
        const T *x = in[1], *y = in[2];                                                            \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = c[i] ? x[i] : y[i];                                                             \
    }
WHERE(2, uint16_t)
WHERE(4, uint32_t)
WHERE(8, uint64_t)

static void false_1(int64_t n, void *out, const void *const *in, unsigned *found) {
    (void)in;
    (void)found;
    for (int64_t i = 0; i < n; i++)
        ((bool *)out)[i] = false;
}
static void true_1(int64_t n, void *out, const void *const *in, unsigned *found) {
    (void)in;
    (void)found;
    for (int64_t i = 0; i < n; i++)
        ((bool *)out)[i] = true;
}

kb_ew_loop kb_ew_int_loop(kb_ew_op op, kb_dtype dtype) {
    size_t size = kb_dtype_size(dtype);
    if (op == KB_EW_WHERE)
        return size == 1 ? where_1 : size == 2 ? where_2 : size == 4 ? where_4 : where_8;
    if (op == KB_EW_ISNAN)
        return false_1;
    if (op == KB_EW_ISFINITE)
        return true_1;
    if (dtype == KB_BOOL) {
        switch (op) {
            case KB_EW_ADD:
            case KB_EW_MAXIMUM:
            case KB_EW_OR:
                return or_u8;
            case KB_EW_MUL:
            case KB_EW_MINIMUM:
            case KB_EW_AND:
                return and_u8;
            case KB_EW_INVERT:
                return invert_b;
            case KB_EW_ABS:
            case KB_EW_COPY:
            case KB_EW_FLOOR:
            case KB_EW_CEIL:
                return copy_u8;
            case KB_EW_LT:
                return lt_u8;
            case KB_EW_LE:
                return le_u8;
            case KB_EW_GT:
                return gt_u8;
            case KB_EW_GE:
                return ge_u8;
            case KB_EW_EQ:
                return eq_u8;
            case KB_EW_NE:
                return ne_u8;
            default:
                return NULL;
        }
    }
#define TABLE(S)                                                                                   \
    switch (op) {                                                                                  \
        case KB_EW_ADD:                                                                            \
            return add_##S;                                                                        \
        case KB_EW_SUB:                                                                            \
            return sub_##S;                                                                        \
        case KB_EW_MUL:                                                                            \
            return mul_##S;                                                                        \
        case KB_EW_FLOORDIV:                                                                       \
            return floordiv_##S;                                                                   \
        case KB_EW_MOD:                                                                            \
            return mod_##S;                                                                        \
        case KB_EW_POW:                                                                            \
            return pow_##S;                                                                        \
        case KB_EW_MAXIMUM:                                                                        \
            return max_##S;                                                                        \
        case KB_EW_MINIMUM:                                                                        \
            return min_##S;                                                                        \
        case KB_EW_AND:                                                                            \
            return and_##S;                                                                        \
        case KB_EW_OR:                                                                             \
            return or_##S;                                                                         \
        case KB_EW_LT:                                                                             \
            return lt_##S;                                                                         \
        case KB_EW_LE:                                                                             \
            return le_##S;                                                                         \
        case KB_EW_GT:                                                                             \
            return gt_##S;                                                                         \
        case KB_EW_GE:                                                                             \
            return ge_##S;                                                                         \
        case KB_EW_EQ:                                                                             \
            return eq_##S;                                                                         \
        case KB_EW_NE:                                                                             \
            return ne_##S;                                                                         \
        case KB_EW_NEG:                                                                            \
            return neg_##S;                                                                        \
        case KB_EW_INVERT:                                                                         \
            return invert_##S;                                                                     \
        case KB_EW_ABS:                                                                            \
            return abs_##S;                                                                        \
        case KB_EW_SQUARE:                                                                         \
            return square_##S;                                                                     \
        case KB_EW_RECIPROCAL:                                                                     \
            return reciprocal_##S;                                                                 \
        case KB_EW_SIGN:                                                                           \
            return sign_##S;                                                                       \
        case KB_EW_COPY:                                                                           \
        case KB_EW_FLOOR:                                                                          \
        case KB_EW_CEIL:                                                                           \
            return copy_##S;                                                                       \
        default:                                                                                   \
            return NULL;                                                                           \
    }
    switch (dtype) {
        case KB_INT8:
            TABLE(i8)
        case KB_INT16:
            TABLE(i16)
        case KB_INT32:
            TABLE(i32)
        case KB_INT64:
            TABLE(i64)
        case KB_UINT8:
            TABLE(u8)
        case KB_UINT16:
            TABLE(u16)
        case KB_UINT32:
            TABLE(u32)
        case KB_UINT64:
            TABLE(u64)
        default:
            return NULL;
    }
#undef TABLE
}
