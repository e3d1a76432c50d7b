/* The bandwidth kernels with AVX-512. */
#include <immintrin.h>

#include "machine/peaks/bandwidth_kernels.h"

/* Four vectors (four cache lines) per iteration, as likwid-bench's load_avx512 does; load keeps
 * four independent sums so that one add per load never waits on the previous one. */
static double load(const double *a, int64_t n, bool far) {
    __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        if (far)
            for (int k = 0; k < 32; k += 8)
                __builtin_prefetch((const char *)(a + i + k) + KB_FAR_AHEAD_BYTES, 0, 2);
        s0 = _mm512_add_pd(s0, _mm512_loadu_pd(a + i));
        s1 = _mm512_add_pd(s1, _mm512_loadu_pd(a + i + 8));
        s2 = _mm512_add_pd(s2, _mm512_loadu_pd(a + i + 16));
        s3 = _mm512_add_pd(s3, _mm512_loadu_pd(a + i + 24));
    }
    double total =
        _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)));
    for (; i < n; i++)
        total += a[i];
    return total;
}

static void copy(double *restrict a, const double *restrict b, int64_t n) {
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512d v0 = _mm512_loadu_pd(b + i), v1 = _mm512_loadu_pd(b + i + 8);
        __m512d v2 = _mm512_loadu_pd(b + i + 16), v3 = _mm512_loadu_pd(b + i + 24);
        _mm512_storeu_pd(a + i, v0);
        _mm512_storeu_pd(a + i + 8, v1);
        _mm512_storeu_pd(a + i + 16, v2);
        _mm512_storeu_pd(a + i + 24, v3);
    }
    for (; i < n; i++)
        a[i] = b[i];
}

static void triad(double *restrict a, const double *restrict b, const double *restrict c, double s,
                  int64_t n) {
    __m512d vs = _mm512_set1_pd(s);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 32; k += 8)
            _mm512_storeu_pd(a + i + k, _mm512_fmadd_pd(vs, _mm512_loadu_pd(c + i + k),
                                                        _mm512_loadu_pd(b + i + k)));
    for (; i < n; i++)
        a[i] = b[i] + s * c[i];
}

const kb_bw_kernels kb_bw_kernels_avx512 = {load, copy, triad};
