#ifndef KB_UTIL_INTERNAL_H
#define KB_UTIL_INTERNAL_H

/* The util layer: infrastructure written once for every layer below it (typed JSON reads, the
 * random number generator, ...). Other folders include this header, never util's others. */

#include "util/jfield.h"
#include "util/rng.h"

#endif
