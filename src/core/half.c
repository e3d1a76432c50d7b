/* float16 and bfloat16 conversion to and from float32 and from double, rounding to nearest
 * even. */
#include <math.h>
#include <string.h>

#include "kbench/half.h"

/* Bit-level conversions, so that results do not depend on the compiler's or the FPU's
 * rounding mode. Signaling NaNs come out quiet, as the F16C and NEON instructions do. */

static uint32_t float_bits(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static float bits_float(uint32_t bits) {
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* Shifts mantissa right by shift (1..31) and rounds the dropped bits to nearest even. */
static uint32_t shift_round_even(uint32_t mantissa, unsigned shift) {
    uint32_t kept = mantissa >> shift;
    uint32_t dropped = mantissa & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (dropped > half || (dropped == half && (kept & 1)))
        kept++;
    return kept;
}

float kb_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1f;
    uint32_t mantissa = h & 0x3ff;
    if (exponent == 0x1f) {
        uint32_t quiet = mantissa ? 0x400000 : 0;
        return bits_float(sign | 0x7f800000 | quiet | (mantissa << 13));
    }
    if (exponent == 0) {
        if (mantissa == 0)
            return bits_float(sign);
        /* Subnormal: normalize so that the implicit bit (0x400) is set. */
        int e = 1;
        while (!(mantissa & 0x400)) {
            mantissa <<= 1;
            e--;
        }
        return bits_float(sign | ((uint32_t)(e + 112) << 23) | ((mantissa & 0x3ff) << 13));
    }
    return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t kb_f32_to_f16(float value) {
    uint32_t x = float_bits(value);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffff;
    if (ax >= 0x7f800000) {
        if (ax == 0x7f800000)
            return sign | 0x7c00;
        return sign | 0x7e00 | (uint16_t)((ax >> 13) & 0x3ff);
    }
    /* 65520 lies halfway between 65504 (the largest half, odd mantissa) and 65536: it and
     * everything above round to infinity. */
    if (ax >= 0x477ff000)
        return sign | 0x7c00;
    if (ax < 0x38800000) {
        /* Below 2^-14: a subnormal half, m * 2^-24. 2^-25 itself ties to 0. */
        if (ax <= 0x33000000)
            return sign;
        uint32_t exponent = ax >> 23;
        uint32_t mantissa = (ax & 0x7fffff) | 0x800000;
        return sign | (uint16_t)shift_round_even(mantissa, 126 - exponent);
    }
    /* Normal: rebias the exponent; a carry out of the mantissa correctly bumps it. */
    uint32_t rebased = ax - ((uint32_t)(127 - 15) << 23);
    return sign | (uint16_t)shift_round_even(rebased, 13);
}

float kb_bf16_to_f32(uint16_t bits) {
    uint32_t x = (uint32_t)bits << 16;
    if ((x & 0x7fffffff) > 0x7f800000)
        x |= 0x400000;
    return bits_float(x);
}

uint16_t kb_f32_to_bf16(float value) {
    uint32_t x = float_bits(value);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((x >> 16) | 0x40);
    /* Round to nearest even; overflow carries into the exponent and reaches infinity. */
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* x rounded to float with round-to-odd (an inexact result gets its last bit set), which
 * then rounds correctly to any format with at least two fewer mantissa bits: one rounding in
 * effect, never two. In double and on the bits, for the reductions' stores (core/element.c
 * does the same from long double, the general elements' type). */
static float round_to_odd(double x) {
    float f = (float)x;
    if ((double)f == x || isnan(x) || isinf(f))
        return f;
    uint32_t bits = float_bits(f);
    if (fabs((double)f) > fabs(x))
        bits--; /* toward zero: f is not zero here, since |f| > |x| */
    return bits_float(bits | 1);
}

uint16_t kb_f64_to_f16(double value) {
    return kb_f32_to_f16(round_to_odd(value));
}

uint16_t kb_f64_to_bf16(double value) {
    return kb_f32_to_bf16(round_to_odd(value));
}
