/* The CPU's family, model and stepping (x86) or implementer and part (Arm). */
#include <stdlib.h>
#include <string.h>

#include "machine/probe/proc_cpuinfo.h"
#include "machine/probe/probe.h"
#include "machine/probe/x86_cpuid.h"

/* CPUID leaf 1, decoded as the vendors' manuals say: the extended family is added only when
 * the base family is 0xf, and the extended model is prepended for families 6 and 0xf. */
static bool x86_from_cpuid(kb_cpu_signature *s) {
    unsigned r[4];
    if (!kb_x86_cpuid(1, 0, r))
        return false;
    unsigned eax = r[0];
    unsigned family = (eax >> 8) & 0xf, model = (eax >> 4) & 0xf;
    if (family == 0xf)
        family += (eax >> 20) & 0xff;
    if (family == 6 || family >= 0xf)
        model |= ((eax >> 16) & 0xf) << 4;
    s->x86_family = (int)family;
    s->x86_model = (int)model;
    return true;
}

static int decimal_field(const char *cpuinfo, const char *key) {
    char text[32];
    if (!kb_cpuinfo_field(cpuinfo, key, text, sizeof text) || text[0] == '\0')
        return -1;
    char *end;
    long v = strtol(text, &end, 10);
    return *end == '\0' && v >= 0 && v < 4096 ? (int)v : -1;
}

void kb_probe_cpu_signature(kb_machine *m, const char *root, bool live, const char *cpuinfo) {
    (void)root;
    kb_cpu_signature *s = &m->signature;
    s->x86_family = s->x86_model = s->arm_implementer = s->arm_part = -1;
    if (live && x86_from_cpuid(s))
        return;
    unsigned midr;
    if (kb_arm_midr_from_cpuinfo(cpuinfo, &midr) || kb_arm_midr_from_register(live, &midr)) {
        s->arm_implementer = (int)(midr >> 24);
        s->arm_part = (int)((midr >> 4) & 0xfff);
        return;
    }
    /* Linux prints the decoded CPUID values as "cpu family" and "model" on x86. */
    if (kb_cpuinfo_x86_fields_apply(live) && decimal_field(cpuinfo, "cpu family") >= 0) {
        s->x86_family = decimal_field(cpuinfo, "cpu family");
        s->x86_model = decimal_field(cpuinfo, "model");
    }
}
