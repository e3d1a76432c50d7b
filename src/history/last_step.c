/* The last step of a series: the simple rule `history list` reports until a change-point
 * detector gives a better one. */
#include "kbench/history.h"

ptrdiff_t kb_history_last_step(const kb_history_point *points, size_t count, double *change) {
    for (size_t i = count; i-- > 1;) {
        const kb_history_point *a = &points[i - 1], *b = &points[i];
        /* Consecutive medians whose confidence intervals do not overlap. */
        if (b->ci_low_ns > a->ci_high_ns || b->ci_high_ns < a->ci_low_ns) {
            *change = b->median_ns / a->median_ns - 1;
            return (ptrdiff_t)i;
        }
    }
    return -1;
}
