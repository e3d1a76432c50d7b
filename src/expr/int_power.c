/* x ** k for a small integer k by repeated squaring and multiplication: the one place both
 * evaluators (eager, elementwise.c's run, and fused, kb_expr_ew_steps) take the steps from. */
#include <string.h>

#include "expr/int_power.h"

/* x ** 3 and x ** 4 take two steps; x ** 5 would take three (square, square, multiply). */
_Static_assert(KB_EXPR_INT_POWER_MAX <= 4 && KB_EXPR_EW_MAX_STEPS >= 2,
               "KB_EXPR_EW_MAX_STEPS must hold the steps of the largest power");

int kb_expr_int_power(const kb_expr_value *base, const kb_expr_value *exponent, kb_dtype loop) {
    if (!exponent->weak || !kb_dtype_is_float(loop))
        return 0;
    int64_t k;
    if (exponent->array.dtype == KB_INT64) {
        memcpy(&k, exponent->array.data, sizeof k);
    } else if (exponent->array.dtype == KB_F64) {
        double d;
        memcpy(&d, exponent->array.data, sizeof d);
        if (!(d >= 2 && d <= KB_EXPR_INT_POWER_MAX) || d != (double)(int64_t)d)
            return 0;
        k = (int64_t)d;
    } else {
        return 0;
    }
    if (k == 2)
        return 2;
    /* Python's own arithmetic (a Python scalar base) is pow's; float16 loops round every step to
     * float16; its pow computes in float32 and rounds once */
    if (k < 2 || k > KB_EXPR_INT_POWER_MAX || (loop != KB_F32 && loop != KB_F64) || base->weak)
        return 0;
    return (int)k;
}

int kb_expr_int_power_steps(int k, kb_dtype loop, kb_dtype out, kb_expr_ew_step *steps) {
    int top = 0;
    while (k >> (top + 1))
        top++;
    /* the running value starts as x, the leading bit; each further bit squares it, and
     * multiplies it by x where the bit is 1: every operand is x or the running value, the
     * previous step's result, as the planner's steps chain */
    int n = 0;
    for (int bit = top - 1; bit >= 0; bit--) {
        steps[n] = (kb_expr_ew_step){"square", KB_EW_SQUARE, 1, {n ? -1 : 0, 0, 0}, loop, loop};
        n++;
        if (k >> bit & 1)
            steps[n++] = (kb_expr_ew_step){"multiply", KB_EW_MUL, 2, {-1, 0, 0}, loop, loop};
    }
    steps[n - 1].out = out;
    return n;
}
