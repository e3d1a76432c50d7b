#ifndef KBENCH_HALF_H
#define KBENCH_HALF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* IEEE 754 binary16 and bfloat16 conversions, given as raw bit patterns.
 * Widening to float32 is exact. Narrowing rounds to nearest, ties to even; infinities are
 * kept, overflow gives infinity, and NaN stays NaN (quiet, sign and top payload bits kept). */

float kb_f16_to_f32(uint16_t bits);
uint16_t kb_f32_to_f16(float value);
float kb_bf16_to_f32(uint16_t bits);
uint16_t kb_f32_to_bf16(float value);
/* A double rounded once (not through float's rounding) to nearest, ties to even. */
uint16_t kb_f64_to_f16(double value);
uint16_t kb_f64_to_bf16(double value);

#ifdef __cplusplus
}
#endif

#endif
