/* The FMA chains in portable C. */
#include "machine/peaks/fma_kernels.h"

/* Twelve chains: a multiply and an add take some 6-8 cycles of latency and most cores issue two
 * of each per cycle. The multiply and the add are separate statements so that no compiler fuses
 * them (clang contracts a * b + c within one expression): this is what portable C computes. */
#define ACCUMULATORS 12

#define KB_SCALAR_CHAIN(name, T)                                                                   \
    static double name(int64_t iterations, const kb_fma_params *p) {                               \
        const T a = (T)p->a, b = (T)p->b;                                                          \
        T x[ACCUMULATORS];                                                                         \
        for (int k = 0; k < ACCUMULATORS; k++)                                                     \
            x[k] = (T)(p->init + k * p->step);                                                     \
        for (int64_t i = 0; i < iterations; i++)                                                   \
            for (int k = 0; k < ACCUMULATORS; k++) {                                               \
                T t = x[k] * a;                                                                    \
                x[k] = t + b;                                                                      \
            }                                                                                      \
        double sum = 0;                                                                            \
        for (int k = 0; k < ACCUMULATORS; k++)                                                     \
            sum += (double)x[k];                                                                   \
        return sum;                                                                                \
    }

KB_SCALAR_CHAIN(chain_f32, float)
KB_SCALAR_CHAIN(chain_f64, double)

const kb_fma_kernels kb_fma_kernels_scalar = {chain_f32, chain_f64, 1, 1, ACCUMULATORS};
