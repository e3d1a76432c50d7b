/* The FMA chains with AVX-512. */
#include <immintrin.h>

#include "machine/peaks/fma_kernels.h"

/* Twelve independent 512-bit chains: two FMA pipes with a latency of 4 cycles need eight;
 * twelve leave room for a core whose latency is longer, in 32 zmm registers. */
#define ACCUMULATORS 12

static double chain_f32(int64_t iterations, const kb_fma_params *p) {
    const __m512 a = _mm512_set1_ps((float)p->a), b = _mm512_set1_ps((float)p->b);
    float v[ACCUMULATORS * 16];
    for (int k = 0; k < ACCUMULATORS * 16; k++)
        v[k] = (float)(p->init + k * p->step);
#define LOAD(i) __m512 x##i = _mm512_loadu_ps(v + 16 * (i));
    KB_FMA_EACH12(LOAD)
#undef LOAD
    for (int64_t it = 0; it < iterations; it++) {
#define STEP(i) x##i = _mm512_fmadd_ps(x##i, a, b);
        KB_FMA_EACH12(STEP)
#undef STEP
    }
#define STORE(i) _mm512_storeu_ps(v + 16 * (i), x##i);
    KB_FMA_EACH12(STORE)
#undef STORE
    double sum = 0;
    for (int k = 0; k < ACCUMULATORS * 16; k++)
        sum += (double)v[k];
    return sum;
}

static double chain_f64(int64_t iterations, const kb_fma_params *p) {
    const __m512d a = _mm512_set1_pd(p->a), b = _mm512_set1_pd(p->b);
    double v[ACCUMULATORS * 8];
    for (int k = 0; k < ACCUMULATORS * 8; k++)
        v[k] = p->init + k * p->step;
#define LOAD(i) __m512d x##i = _mm512_loadu_pd(v + 8 * (i));
    KB_FMA_EACH12(LOAD)
#undef LOAD
    for (int64_t it = 0; it < iterations; it++) {
#define STEP(i) x##i = _mm512_fmadd_pd(x##i, a, b);
        KB_FMA_EACH12(STEP)
#undef STEP
    }
#define STORE(i) _mm512_storeu_pd(v + 8 * (i), x##i);
    KB_FMA_EACH12(STORE)
#undef STORE
    double sum = 0;
    for (int k = 0; k < ACCUMULATORS * 8; k++)
        sum += v[k];
    return sum;
}

const kb_fma_kernels kb_fma_kernels_avx512 = {chain_f32, chain_f64, 16, 8, ACCUMULATORS};
