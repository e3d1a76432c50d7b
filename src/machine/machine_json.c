/* This build and machine as JSON, written once for `kbench info --json` and results files. */
#include <string.h>

#include "machine/machine_json.h"
#include "util/internal.h"

json_t *kb_build_json(const kb_build_info *b) {
    return json_pack("{s:o, s:o, s:o, s:o, s:b, s:b}", "compiler", kb_json_text(b->compiler),
                     "c_flags", kb_json_text(b->c_flags), "build_type", kb_json_text(b->build_type),
                     "arch", kb_json_text(b->arch), "optimized", b->optimized, "sanitizers",
                     b->sanitizers);
}

json_t *kb_system_json(const kb_machine *m) {
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "os", kb_json_text(m->os),
                     "kernel_name", kb_json_text(m->kernel_name), "kernel_release",
                     kb_json_text(m->kernel_release), "kernel_version",
                     kb_json_text(m->kernel_version), "hostname", kb_json_text(m->hostname), "arch",
                     kb_json_text(m->arch), "hypervisor",
                     m->hypervisor[0] ? kb_json_text(m->hypervisor) : json_null());
}

static json_t *split_commas(const char *list) {
    json_t *a = json_array();
    while (*list) {
        size_t n = strcspn(list, ",");
        if (n > 0)
            json_array_append_new(a, json_stringn(list, n));
        list += n;
        if (*list == ',')
            list++;
    }
    return a;
}

json_t *kb_cpu_json(const kb_machine *m, const char *instruction_sets) {
    json_t *caches = json_object();
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++) {
        const kb_cache *k = &m->caches[l];
        json_object_set_new(caches, kb_cache_name((kb_cache_level)l),
                            json_pack("{s:o, s:o, s:o}", "size_bytes", kb_json_count(k->size),
                                      "line_size", kb_json_count(k->line_size), "shared_by",
                                      kb_json_count(k->shared_by)));
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "vendor", kb_json_text(m->cpu_vendor),
                     "model", kb_json_text(m->cpu_model), "logical_cpus",
                     kb_json_count(m->logical_cpus), "physical_cores",
                     kb_json_count(m->physical_cores), "sockets", kb_json_count(m->sockets),
                     "caches", caches, "instruction_sets", split_commas(instruction_sets));
}

unsigned kb_simd_levels(bool (*has)(kb_simd_level)) {
    unsigned levels = 0;
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
        if (has((kb_simd_level)l))
            levels |= 1u << l;
    return levels;
}

static json_t *simd_list(unsigned levels) {
    json_t *a = json_array();
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
        if (levels & (1u << l))
            json_array_append_new(a, json_string(kb_simd_name((kb_simd_level)l)));
    return a;
}

json_t *kb_simd_json(unsigned compiled, unsigned available, kb_simd_level selected) {
    return json_pack("{s:o, s:o, s:s}", "compiled", simd_list(compiled), "available",
                     simd_list(available), "selected", kb_simd_name(selected));
}

json_t *kb_threads_json(int count, int usable_cores) {
    return json_pack("{s:i, s:i}", "count", count, "usable_cores", usable_cores);
}

json_t *kb_env_warnings_json(const kb_env_report *env) {
    json_t *warnings = json_array();
    for (int i = 0; i < env->count; i++)
        json_array_append_new(
            warnings, json_pack("{s:s, s:o}", "code", kb_env_code_name(env->warnings[i].code),
                                "message", kb_json_text(env->warnings[i].message)));
    return warnings;
}
