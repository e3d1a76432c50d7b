#ifndef KB_UTIL_RNG_H
#define KB_UTIL_RNG_H

#include <stdint.h>

/* A small, fast, seedable generator for resampling: xoshiro256** (Blackman and Vigna), its
 * state filled from the seed by splitmix64 as its authors recommend. Not cryptographic; the
 * point is that a seed gives the same stream on every platform and libc, which rand() and
 * random() do not promise. */
typedef struct kb_rng {
    uint64_t s[4];
} kb_rng;

/* Steele, Lea and Flood's splitmix64 at counter x: consecutive inputs give independent-looking
 * outputs, so splitmix64(seed + i) fills element i of an input without a stream to advance. */
uint64_t kb_splitmix64(uint64_t x);

void kb_rng_seed(kb_rng *rng, uint64_t seed);
uint64_t kb_rng_next(kb_rng *rng);

/* Uniform in [0, 1), 53 random bits. */
double kb_rng_uniform(kb_rng *rng);

/* Standard normal (Marsaglia's polar method). */
double kb_rng_normal(kb_rng *rng);

/* Gamma(shape, 1) for shape >= 1 (Marsaglia and Tsang, 2000). */
double kb_rng_gamma(kb_rng *rng, double shape);

/* Beta(a, b) for a, b >= 1, as X / (X + Y) of two gammas. */
double kb_rng_beta(kb_rng *rng, double a, double b);

#endif
