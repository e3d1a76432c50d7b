/* The FMA chains with NEON. */
#include <arm_neon.h>

#include "machine/peaks/fma_kernels.h"

/* Sixteen independent 128-bit chains: Neoverse V1/V2 and Apple's cores have four FMA pipes
 * with a latency of 4 cycles, so sixteen are needed; 32 vector registers hold them. */
#define ACCUMULATORS 16

static double chain_f32(int64_t iterations, const kb_fma_params *p) {
    const float32x4_t a = vdupq_n_f32((float)p->a), b = vdupq_n_f32((float)p->b);
    float v[ACCUMULATORS * 4];
    for (int k = 0; k < ACCUMULATORS * 4; k++)
        v[k] = (float)(p->init + k * p->step);
#define LOAD(i) float32x4_t x##i = vld1q_f32(v + 4 * (i));
    KB_FMA_EACH16(LOAD)
#undef LOAD
    for (int64_t it = 0; it < iterations; it++) {
#define STEP(i) x##i = vfmaq_f32(b, x##i, a);
        KB_FMA_EACH16(STEP)
#undef STEP
    }
#define STORE(i) vst1q_f32(v + 4 * (i), x##i);
    KB_FMA_EACH16(STORE)
#undef STORE
    double sum = 0;
    for (int k = 0; k < ACCUMULATORS * 4; k++)
        sum += (double)v[k];
    return sum;
}

static double chain_f64(int64_t iterations, const kb_fma_params *p) {
    const float64x2_t a = vdupq_n_f64(p->a), b = vdupq_n_f64(p->b);
    double v[ACCUMULATORS * 2];
    for (int k = 0; k < ACCUMULATORS * 2; k++)
        v[k] = p->init + k * p->step;
#define LOAD(i) float64x2_t x##i = vld1q_f64(v + 2 * (i));
    KB_FMA_EACH16(LOAD)
#undef LOAD
    for (int64_t it = 0; it < iterations; it++) {
#define STEP(i) x##i = vfmaq_f64(b, x##i, a);
        KB_FMA_EACH16(STEP)
#undef STEP
    }
#define STORE(i) vst1q_f64(v + 2 * (i), x##i);
    KB_FMA_EACH16(STORE)
#undef STORE
    double sum = 0;
    for (int k = 0; k < ACCUMULATORS * 2; k++)
        sum += v[k];
    return sum;
}

const kb_fma_kernels kb_fma_kernels_neon = {chain_f32, chain_f64, 4, 2, ACCUMULATORS};
