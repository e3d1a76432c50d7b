#ifndef KB_EXPR_INT_POWER_H
#define KB_EXPR_INT_POWER_H

#include "expr/elementwise.h"

/* x ** k for a float array x and a small integer k, computed by multiplication as numexpr,
 * JAX (lax.integer_pow) and TorchInductor compute it, rather than by pow (int_power.c;
 * docs/expressions.md gives the rule and its accuracy).
 *
 * The largest k so computed: the error grows with k (measured 1.29 ULP at 3, 1.90 at 4, 2.9
 * at 5, 5.1 at 8), and up to 4 it stays within the largest of the vector math functions'
 * (docs/expressions.md). */
enum { KB_EXPR_INT_POWER_MAX = 4 };

/* The exponent k of base ** exponent when exponent is a Python int or an integer-valued Python
 * float with 2 <= k <= KB_EXPR_INT_POWER_MAX, base is an array (not a Python scalar) and the
 * loop type is float32 or float64; k = 2 in any float loop, whatever base is (square, as NumPy
 * computes it). Otherwise 0: pow computes it. */
int kb_expr_int_power(const kb_expr_value *base, const kb_expr_value *exponent, kb_dtype loop);

/* The steps of x ** k (k from kb_expr_int_power), each on x (operand 0) or the previous step's
 * result, all in loop, the last one into out: the binary method from the exponent's leading
 * bit (k = 3 is square, multiply; k = 4 square, square). Returns the number of steps, at most
 * KB_EXPR_EW_MAX_STEPS. */
int kb_expr_int_power_steps(int k, kb_dtype loop, kb_dtype out, kb_expr_ew_step *steps);

#endif
