/* The bandwidth kernels with AVX2. */
#include <immintrin.h>

#include "machine/peaks/bandwidth_kernels.h"

/* Four vectors (one 128-byte block, two cache lines) per iteration; load keeps four
 * independent sums, enough to hide the add latency at two loads per cycle. */
static double load(const double *a, int64_t n, bool far) {
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if (far)
            for (int k = 0; k < 16; k += 8)
                __builtin_prefetch((const char *)(a + i + k) + KB_FAR_AHEAD_BYTES, 0, 2);
        s0 = _mm256_add_pd(s0, _mm256_loadu_pd(a + i));
        s1 = _mm256_add_pd(s1, _mm256_loadu_pd(a + i + 4));
        s2 = _mm256_add_pd(s2, _mm256_loadu_pd(a + i + 8));
        s3 = _mm256_add_pd(s3, _mm256_loadu_pd(a + i + 12));
    }
    __m256d s = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
    double lanes[4];
    _mm256_storeu_pd(lanes, s);
    double total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; i < n; i++)
        total += a[i];
    return total;
}

static void copy(double *restrict a, const double *restrict b, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256d v0 = _mm256_loadu_pd(b + i), v1 = _mm256_loadu_pd(b + i + 4);
        __m256d v2 = _mm256_loadu_pd(b + i + 8), v3 = _mm256_loadu_pd(b + i + 12);
        _mm256_storeu_pd(a + i, v0);
        _mm256_storeu_pd(a + i + 4, v1);
        _mm256_storeu_pd(a + i + 8, v2);
        _mm256_storeu_pd(a + i + 12, v3);
    }
    for (; i < n; i++)
        a[i] = b[i];
}

static void triad(double *restrict a, const double *restrict b, const double *restrict c, double s,
                  int64_t n) {
    __m256d vs = _mm256_set1_pd(s);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k += 4)
            _mm256_storeu_pd(a + i + k, _mm256_fmadd_pd(vs, _mm256_loadu_pd(c + i + k),
                                                        _mm256_loadu_pd(b + i + k)));
    for (; i < n; i++)
        a[i] = b[i] + s * c[i];
}

const kb_bw_kernels kb_bw_kernels_avx2 = {load, copy, triad};
