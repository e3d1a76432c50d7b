/* NumPy 2's type promotion, with NEP 50's weak Python scalars. */
#include "expr/promote.h"

bool kb_promote_supported(kb_dtype a) {
    return (unsigned)a < KB_DTYPE_COUNT && a != KB_BF16;
}

static kb_dtype signed_of_size(size_t size) {
    return size == 1 ? KB_INT8 : size == 2 ? KB_INT16 : size == 4 ? KB_INT32 : KB_INT64;
}

kb_dtype kb_promote_float(kb_dtype a) {
    if (kb_dtype_is_float(a))
        return a;
    if (a == KB_BOOL)
        return KB_F16;
    size_t size = kb_dtype_size(a);
    return size == 1 ? KB_F16 : size == 2 ? KB_F32 : KB_F64;
}

kb_dtype kb_promote(kb_dtype a, kb_dtype b) {
    if (a == b)
        return a;
    if (a == KB_BOOL)
        return b;
    if (b == KB_BOOL)
        return a;
    size_t sa = kb_dtype_size(a), sb = kb_dtype_size(b);
    bool fa = kb_dtype_is_float(a), fb = kb_dtype_is_float(b);
    if (fa && fb)
        return sa > sb ? a : b;
    if (fa || fb) { /* a float and an integer: a float that holds the integer exactly */
        kb_dtype f = fa ? a : b, i = fa ? b : a;
        kb_dtype need = kb_promote_float(i);
        return kb_dtype_size(need) > kb_dtype_size(f) ? need : f;
    }
    bool ua = !kb_dtype_is_signed(a), ub = !kb_dtype_is_signed(b);
    if (ua == ub)
        return sa > sb ? a : b;
    /* A signed and an unsigned integer: a signed type wider than the unsigned one, which
     * uint64 has none of, hence float64. */
    size_t ssize = ua ? sb : sa, usize = ua ? sa : sb;
    if (ssize > usize)
        return ua ? b : a;
    if (usize == 8)
        return KB_F64;
    return signed_of_size(2 * usize);
}

kb_dtype kb_promote_weak(kb_dtype a, kb_weak_kind scalar) {
    switch (scalar) {
        case KB_WEAK_BOOL:
            return a;
        case KB_WEAK_INT:
            return a == KB_BOOL ? KB_INT64 : a;
        case KB_WEAK_FLOAT:
            return kb_dtype_is_float(a) ? a : KB_F64;
    }
    return a;
}
