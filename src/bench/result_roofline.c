/* A result's roofline: its achieved rates held against the machine's peaks. */
#include <string.h>

#include "kbench/bench.h"

kb_status kb_bench_result_roofline(kb_bench_result *r, const kb_peaks *peaks) {
    return kb_bench_result_roofline_probed(r, peaks, NULL, 0);
}

kb_status kb_bench_result_roofline_probed(kb_bench_result *r, const kb_peaks *peaks,
                                          const kb_bench_probe *probes, int nprobes) {
    r->has_roofline = false;
    memset(&r->roofline, 0, sizeof r->roofline);
    if (!peaks || r->failed || !(r->stats.median > 0) ||
        (r->bytes_per_call <= 0 && r->flops_per_call <= 0))
        return KB_OK;
    int threads = r->threads > 0 ? r->threads : 1;
    kb_roofline_peaks bound;
    kb_status st =
        kb_roofline_peaks_from(peaks, threads, r->traffic, r->flop_type, r->simd, &bound);
    if (st != KB_OK)
        return st;
    for (int i = 0; i < nprobes; i++)
        if (probes[i].threads == threads && probes[i].kernel == r->traffic)
            bound.probe_bytes_per_second[probes[i].level] = probes[i].before;
    kb_roofline_input in = {
        .seconds = r->stats.median * 1e-9,
        .bytes = r->bytes_per_call > 0 ? r->bytes_per_call : 0,
        .flops = r->flops_per_call > 0 ? r->flops_per_call : 0,
        .working_set_bytes =
            (int64_t)(r->working_set_bytes > 0 ? r->working_set_bytes : r->bytes_per_call),
    };
    if ((st = kb_roofline_compute(&in, &bound, &r->roofline)) != KB_OK)
        return st;
    r->has_roofline = true;
    return KB_OK;
}
