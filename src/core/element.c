/* Element access by dtype: loading any element as a double or integer, storing back. */
#include <math.h>
#include <string.h>

#include "core/element.h"
#include "core/fail.h"
#include "kbench/half.h"

kb_element kb_element_load(kb_dtype dtype, const char *p) {
    kb_element e = {0};
    switch (dtype) {
#define LOAD_INT(D, T)                                                                             \
    case D: {                                                                                      \
        T v;                                                                                       \
        memcpy(&v, p, sizeof v);                                                                   \
        e.bits = (uint64_t)v;                                                                      \
        e.real = (long double)v;                                                                   \
        return e;                                                                                  \
    }
        LOAD_INT(KB_INT8, int8_t)
        LOAD_INT(KB_INT16, int16_t)
        LOAD_INT(KB_INT32, int32_t)
        LOAD_INT(KB_INT64, int64_t)
        LOAD_INT(KB_UINT8, uint8_t)
        LOAD_INT(KB_UINT16, uint16_t)
        LOAD_INT(KB_UINT32, uint32_t)
        LOAD_INT(KB_UINT64, uint64_t)
#undef LOAD_INT
        case KB_BOOL:
            e.bits = *(const uint8_t *)p != 0;
            e.real = (long double)e.bits;
            return e;
        case KB_F16:
        case KB_BF16: {
            uint16_t h;
            memcpy(&h, p, sizeof h);
            e.is_float = true;
            e.real = dtype == KB_F16 ? kb_f16_to_f32(h) : kb_bf16_to_f32(h);
            return e;
        }
        case KB_F32: {
            float v;
            memcpy(&v, p, sizeof v);
            e.is_float = true;
            e.real = v;
            return e;
        }
        case KB_F64: {
            double v;
            memcpy(&v, p, sizeof v);
            e.is_float = true;
            e.real = v;
            return e;
        }
        default:
            return e;
    }
}

/* Rounds to float with round-to-odd: inexact results get their last bit set. A float
 * rounded this way then rounds correctly to any format with at least two fewer mantissa
 * bits (half, bfloat16), avoiding double-rounding errors. */
static float round_to_odd_float(long double x) {
    float f = (float)x;
    if (isnan(x) || (long double)f == x || isinf(f))
        return f;
    if (fabsl((long double)f) > fabsl(x))
        f = nextafterf(f, 0.0f);
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits |= 1;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The value as NumPy prints it: every NaN is "nan", whatever its sign bit. */
static kb_status refuse(kb_dtype dtype, long double value) {
    if (isnan(value))
        return kb_fail(KB_EINVAL, "value nan cannot be converted to %s", kb_dtype_name(dtype));
    return kb_fail(KB_EINVAL, "value %Lg cannot be converted to %s", value, kb_dtype_name(dtype));
}

kb_status kb_element_store(kb_dtype dtype, char *p, kb_element e) {
    if (kb_dtype_is_float(dtype)) {
        if (dtype == KB_F64) {
            double v = (double)e.real;
            memcpy(p, &v, sizeof v);
        } else if (dtype == KB_F32) {
            float v = (float)e.real;
            memcpy(p, &v, sizeof v);
        } else {
            float odd = round_to_odd_float(e.real);
            uint16_t h = dtype == KB_F16 ? kb_f32_to_f16(odd) : kb_f32_to_bf16(odd);
            memcpy(p, &h, sizeof h);
        }
        return KB_OK;
    }
    if (dtype == KB_BOOL) {
        *(uint8_t *)p = e.is_float ? e.real != 0 : e.bits != 0;
        return KB_OK;
    }
    uint64_t bits = e.bits;
    if (e.is_float) {
        /* NumPy leaves NaN and out-of-range casts undefined; kbench refuses them. */
        long double t = truncl(e.real);
        bool fits =
            kb_dtype_is_signed(dtype) ? (t >= -0x1p63L && t < 0x1p63L) : (t >= 0 && t < 0x1p64L);
        if (isnan(e.real) || !fits)
            return refuse(dtype, e.real);
        bits = kb_dtype_is_signed(dtype) ? (uint64_t)(int64_t)t : (uint64_t)t;
        size_t size = kb_dtype_size(dtype);
        if (size < 8) {
            long double lo = kb_dtype_is_signed(dtype) ? -ldexpl(1, (int)size * 8 - 1) : 0;
            long double hi =
                kb_dtype_is_signed(dtype) ? ldexpl(1, (int)size * 8 - 1) : ldexpl(1, (int)size * 8);
            if (t < lo || t >= hi)
                return refuse(dtype, e.real);
        }
    }
    /* Little-endian hosts keep the low bytes first; big-endian hosts are not supported. */
    memcpy(p, &bits, kb_dtype_size(dtype));
    return KB_OK;
}
