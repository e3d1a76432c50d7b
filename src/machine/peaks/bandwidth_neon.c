/* The bandwidth kernels with NEON. */
#include <arm_neon.h>

#include "machine/peaks/bandwidth_kernels.h"

/* Eight 128-bit vectors (one 128-byte block) per iteration and eight independent sums: Arm
 * server cores load three 128-bit vectors per cycle and add with a latency of 2-3 cycles. */
static double load(const double *a, int64_t n, bool far) {
    float64x2_t s[8];
    for (int k = 0; k < 8; k++)
        s[k] = vdupq_n_f64(0);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if (far)
            for (int k = 0; k < 16; k += 8)
                __builtin_prefetch((const char *)(a + i + k) + KB_FAR_AHEAD_BYTES, 0, 2);
        for (int k = 0; k < 8; k++)
            s[k] = vaddq_f64(s[k], vld1q_f64(a + i + 2 * k));
    }
    float64x2_t t = vaddq_f64(vaddq_f64(vaddq_f64(s[0], s[1]), vaddq_f64(s[2], s[3])),
                              vaddq_f64(vaddq_f64(s[4], s[5]), vaddq_f64(s[6], s[7])));
    double total = vaddvq_f64(t);
    for (; i < n; i++)
        total += a[i];
    return total;
}

static void copy(double *restrict a, const double *restrict b, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k += 2)
            vst1q_f64(a + i + k, vld1q_f64(b + i + k));
    for (; i < n; i++)
        a[i] = b[i];
}

static void triad(double *restrict a, const double *restrict b, const double *restrict c, double s,
                  int64_t n) {
    float64x2_t vs = vdupq_n_f64(s);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k += 2)
            vst1q_f64(a + i + k, vfmaq_f64(vld1q_f64(b + i + k), vs, vld1q_f64(c + i + k)));
    for (; i < n; i++)
        a[i] = b[i] + s * c[i];
}

const kb_bw_kernels kb_bw_kernels_neon = {load, copy, triad};
