#ifndef KB_BENCH_INTERNAL_H
#define KB_BENCH_INTERNAL_H

/* What the bench layer offers the layers below it beyond the public headers: the --filter
 * rule, which `kbench compare` applies too. Other folders include this header, never bench's
 * other private headers. */

#include "bench/name_filter.h"

#endif
