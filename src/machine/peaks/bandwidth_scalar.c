/* The bandwidth kernels in portable C. */
#include "machine/peaks/bandwidth_kernels.h"

/* Portable C. Eight partial sums so that the adds do not serialize on their latency; the
 * compiler may pack them into the baseline vector unit, which only brings the loop closer to
 * what the memory system allows. */
static double load(const double *a, int64_t n, kb_reach reach, int streams) {
    (void)reach; /* the plain loop, as the scalar reductions are, one stream */
    (void)streams;
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            s[k] += a[i + k];
    for (; i < n; i++)
        s[0] += a[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static void copy(double *restrict a, const double *restrict b, int64_t n, kb_reach reach) {
    (void)reach;
    for (int64_t i = 0; i < n; i++)
        a[i] = b[i];
}

static void triad(double *restrict a, const double *restrict b, const double *restrict c, double s,
                  int64_t n, kb_reach reach) {
    (void)reach;
    for (int64_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

const kb_bw_kernels kb_bw_kernels_scalar = {load, copy, triad, false, 1};
