#ifndef KB_CORE_ELEMENT_H
#define KB_CORE_ELEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/dtype.h"
#include "kbench/error.h"

/* One element of any dtype, held exactly: integers and bool as their 64-bit two's
 * complement pattern (so integer-to-integer casts wrap as NumPy's do), and every value as a
 * long double, which holds int64, uint64 and float64 exactly on x86-64 (64-bit mantissa)
 * and aarch64 (113-bit), so each conversion to a float type rounds exactly once. */
typedef struct kb_element {
    bool is_float;
    uint64_t bits;    /* integers and bool: the value, sign-extended */
    long double real; /* every type: the exact value */
} kb_element;

kb_element kb_element_load(kb_dtype dtype, const char *p);

/* Stores with one correct rounding for float targets. Integer targets take integers
 * modulo 2^bits and floats truncated toward zero; NaN and out-of-range floats fail. */
kb_status kb_element_store(kb_dtype dtype, char *p, kb_element e);

/* The exact value of a float element, for callers that accumulate in double. */
static inline kb_element kb_element_from_double(double value) {
    kb_element e = {.is_float = true, .real = value};
    return e;
}

#endif
