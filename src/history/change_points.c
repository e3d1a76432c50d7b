/* A series' change points: kbench detect's detector (kb_change_points_detect) with its
 * defaults over the medians of the points, for `history list` and the report's history view. */
#include <stdlib.h>

#include "core/internal.h"
#include "kbench/history.h"

kb_status kb_history_change_points(const kb_history_point *points, size_t count,
                                   kb_change_points *out) {
    out->points = NULL;
    out->count = 0;
    double *values = malloc((count + 1) * sizeof *values);
    if (!values)
        return kb_fail(KB_ENOMEM, "out of memory for %zu points", count);
    for (size_t i = 0; i < count; i++)
        values[i] = points[i].median_ns;
    kb_change_options options;
    kb_change_options_default(&options);
    kb_status st = kb_change_points_detect(values, (int64_t)count, &options, out);
    free(values);
    return st;
}
