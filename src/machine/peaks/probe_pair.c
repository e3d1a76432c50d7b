/* Whether a run's two probes of a bandwidth figure say the machine changed under it. */
#include <math.h>

#include "kbench/peaks.h"

bool kb_bw_probes_disagree(double before, double after) {
    if (!(before > 0) || !(after > 0))
        return false;
    return fmax(before, after) > (1 + KB_PROBE_CHANGE) * fmin(before, after);
}
