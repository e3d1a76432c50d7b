/* A peak's summary from its repetitions: the best rate and the spread around it. */
#include "machine/peaks/rate.h"
#include "util/internal.h"

void kb_rate_from_samples(double *rates, int count, kb_rate *out) {
    out->repetitions = count;
    if (count == 0) {
        out->best = out->median = out->min = out->max = 0;
        return;
    }
    kb_sort_doubles(rates, (size_t)count);
    out->min = rates[0];
    out->max = out->best = rates[count - 1];
    out->median = kb_median_sorted(rates, (size_t)count);
}
