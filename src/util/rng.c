/* A small seedable random number generator (xoshiro256**) and its distributions. */
#include <math.h>

#include "util/rng.h"

/* Weyl sequence increment of splitmix64: the golden ratio in 64 bits. */
#define KB_SPLITMIX64_GAMMA UINT64_C(0x9e3779b97f4a7c15)

uint64_t kb_splitmix64(uint64_t x) {
    x += KB_SPLITMIX64_GAMMA;
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

void kb_rng_seed(kb_rng *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++, seed += KB_SPLITMIX64_GAMMA)
        rng->s[i] = kb_splitmix64(seed);
}

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

uint64_t kb_rng_next(kb_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double kb_rng_uniform(kb_rng *rng) {
    return (double)(kb_rng_next(rng) >> 11) * 0x1.0p-53;
}

double kb_rng_normal(kb_rng *rng) {
    /* The second value of each pair is dropped: keeping it would need state beyond s[], and
     * the cost is not where the time goes. */
    for (;;) {
        double u = 2 * kb_rng_uniform(rng) - 1, v = 2 * kb_rng_uniform(rng) - 1;
        double s = u * u + v * v;
        if (s > 0 && s < 1)
            return u * sqrt(-2 * log(s) / s);
    }
}

double kb_rng_gamma(kb_rng *rng, double shape) {
    double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double x, v;
        do {
            x = kb_rng_normal(rng);
            v = 1 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = kb_rng_uniform(rng);
        if (u < 1 - 0.0331 * (x * x) * (x * x))
            return d * v;
        if (u > 0 && log(u) < 0.5 * x * x + d * (1 - v + log(v)))
            return d * v;
    }
}

double kb_rng_beta(kb_rng *rng, double a, double b) {
    double x = kb_rng_gamma(rng, a), y = kb_rng_gamma(rng, b);
    return x / (x + y);
}
