/* What a run's probe pairs say: the bandwidth_changed warning, from the figures alone. */
#include <math.h>
#include <stdio.h>

#include "bench/probe.h"
#include "machine/internal.h"
#include "util/strings.h"

void kb_probes_check(kb_bench_context *c) {
    int changed = 0, worst = -1;
    double worst_ratio = 0;
    for (int i = 0; i < c->nprobes; i++) {
        const kb_bench_probe *probe = &c->probes[i];
        if (!kb_bw_probes_disagree(probe->before, probe->after))
            continue;
        changed++;
        double ratio = fmax(probe->before, probe->after) / fmin(probe->before, probe->after);
        if (ratio > worst_ratio) {
            worst_ratio = ratio;
            worst = i;
        }
    }
    if (worst < 0)
        return;
    const kb_bench_probe *w = &c->probes[worst];
    char more[64] = "";
    if (changed > 1)
        snprintf(more, sizeof more, "; %d of %d probed figures changed", changed, c->nprobes);
    kb_env_add(&c->env, KB_ENV_BANDWIDTH_CHANGED,
               "%s %s bandwidth at %d thread%s went from %.1f to %.1f GB/s during the run "
               "(%+.0f%%)%s",
               kb_bw_kernel_name(w->kernel), kb_mem_level_name(w->level), w->threads,
               kb_plural(w->threads), w->before * 1e-9, w->after * 1e-9,
               100 * (w->after / w->before - 1), more);
}
