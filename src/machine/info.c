/* kb_info: what `kbench info` and kbench.info() report, gathered once and written as JSON. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "kbench/cpu.h"
#include "kbench/info.h"
#include "machine/internal.h"
#include "util/internal.h"

kb_status kb_info_gather(kb_info *in) {
    memset(in, 0, sizeof *in);
    kb_status st;
    if ((st = kb_simd_current(&in->selected)) != KB_OK ||
        (st = kb_threads_current(&in->threads)) != KB_OK)
        return st;
    in->usable_cores = kb_usable_cores();
    kb_cores_describe(&in->cores);
    in->build = kb_build_info_get();
    kb_machine_probe(&in->machine);
    if (kb_clock_measure(0, 0, &in->clock) != KB_OK)
        memset(&in->clock, 0, sizeof in->clock);
    kb_cpu_features_describe(kb_cpu_features_get(), in->instruction_sets,
                             (int)sizeof in->instruction_sets);
    kb_env_inputs inputs;
    kb_env_inputs_live(&inputs);
    inputs.usable_cores = in->usable_cores;
    kb_env_check(&inputs, &in->env);
    return KB_OK;
}

static json_t *info_object(const kb_info *in) {
    const kb_machine *m = &in->machine;
    json_t *clock = json_pack(
        "{s:o, s:s, s:o, s:o, s:o, s:i}", "nominal_mhz", kb_json_positive(m->nominal_mhz),
        "nominal_source", kb_clock_source_name(m->nominal_source), "measured_mhz",
        kb_json_positive(in->clock.mhz), "measured_min_mhz", kb_json_positive(in->clock.min_mhz),
        "measured_max_mhz", kb_json_positive(in->clock.max_mhz), "measured_repetitions",
        in->clock.repetitions);
    json_t *threads = kb_threads_json(in->threads, in->usable_cores);
    json_object_set_new(threads, "bound_by", json_string(in->cores.bound_by));
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "version", in->build->version,
                     "git_commit", in->build->git_commit, "build", kb_build_json(in->build),
                     "system", kb_system_json(m), "cpu", kb_cpu_json(m, in->instruction_sets),
                     "clock", clock, "simd",
                     kb_simd_json(kb_simd_levels(kb_simd_compiled),
                                  kb_simd_levels(kb_simd_available), in->selected),
                     "threads", threads, "warnings", kb_env_warnings_json(&in->env));
}

kb_status kb_info_json(const kb_info *info, char **text) {
    json_t *root = info_object(info);
    *text = root ? kb_json_dumps(root, KB_JSON_DISPLAY | JSON_INDENT(2)) : NULL;
    json_decref(root);
    return *text ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
}
