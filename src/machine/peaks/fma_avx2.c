/* The FMA chains with AVX2 and FMA3. */
#include <immintrin.h>

#include "machine/peaks/fma_kernels.h"

/* Twelve independent 256-bit chains: FMA latency (4-5 cycles) times two FMA pipes needs at
 * least ten, and twelve plus the two constants fit the sixteen ymm registers. */
#define ACCUMULATORS 12

static double chain_f32(int64_t iterations, const kb_fma_params *p) {
    const __m256 a = _mm256_set1_ps((float)p->a), b = _mm256_set1_ps((float)p->b);
    float v[ACCUMULATORS * 8];
    for (int k = 0; k < ACCUMULATORS * 8; k++)
        v[k] = (float)(p->init + k * p->step);
#define LOAD(i) __m256 x##i = _mm256_loadu_ps(v + 8 * (i));
    KB_FMA_EACH12(LOAD)
#undef LOAD
    for (int64_t it = 0; it < iterations; it++) {
#define STEP(i) x##i = _mm256_fmadd_ps(x##i, a, b);
        KB_FMA_EACH12(STEP)
#undef STEP
    }
#define STORE(i) _mm256_storeu_ps(v + 8 * (i), x##i);
    KB_FMA_EACH12(STORE)
#undef STORE
    double sum = 0;
    for (int k = 0; k < ACCUMULATORS * 8; k++)
        sum += (double)v[k];
    return sum;
}

static double chain_f64(int64_t iterations, const kb_fma_params *p) {
    const __m256d a = _mm256_set1_pd(p->a), b = _mm256_set1_pd(p->b);
    double v[ACCUMULATORS * 4];
    for (int k = 0; k < ACCUMULATORS * 4; k++)
        v[k] = p->init + k * p->step;
#define LOAD(i) __m256d x##i = _mm256_loadu_pd(v + 4 * (i));
    KB_FMA_EACH12(LOAD)
#undef LOAD
    for (int64_t it = 0; it < iterations; it++) {
#define STEP(i) x##i = _mm256_fmadd_pd(x##i, a, b);
        KB_FMA_EACH12(STEP)
#undef STEP
    }
#define STORE(i) _mm256_storeu_pd(v + 4 * (i), x##i);
    KB_FMA_EACH12(STORE)
#undef STORE
    double sum = 0;
    for (int k = 0; k < ACCUMULATORS * 4; k++)
        sum += v[k];
    return sum;
}

const kb_fma_kernels kb_fma_kernels_avx2 = {chain_f32, chain_f64, 8, 4, ACCUMULATORS};
