/* How many threads the peaks' all-cores set runs, checked once for measuring and caching. */
#include "core/internal.h"
#include "kbench/threads.h"
#include "machine/peaks/peaks_threads.h"

kb_status kb_peaks_threads(int requested, int *threads) {
    if (requested < 0 || requested > 4096)
        return kb_fail(KB_EINVAL,
                       "thread count must be from 1 to 4096 (or 0 for all cores), not %d",
                       requested);
    *threads = requested ? requested : kb_usable_cores();
    return KB_OK;
}
