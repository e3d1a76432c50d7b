/* The nominal clock, from cpufreq, the model name or CPUID. */
#include <stdlib.h>
#include <string.h>

#include "machine/probe/proc_cpuinfo.h"
#include "machine/probe/probe.h"
#include "machine/probe/sysfile.h"
#include "machine/probe/x86_cpuid.h"

static const char *const source_names[KB_CLOCK_SOURCE_COUNT] = {
    [KB_CLOCK_UNKNOWN] = "unknown",
    [KB_CLOCK_BASE_FREQUENCY] = "base_frequency",
    [KB_CLOCK_MAX_FREQ] = "cpuinfo_max_freq",
    [KB_CLOCK_MODEL_NAME] = "model_name",
    [KB_CLOCK_CPUID] = "cpuid",
    [KB_CLOCK_CPUINFO_MHZ] = "cpu_mhz",
};

const char *kb_clock_source_name(kb_clock_source source) {
    return (unsigned)source < KB_CLOCK_SOURCE_COUNT ? source_names[source] : "?";
}

static bool cpufreq_mhz(const char *root, const char *file, double *mhz) {
    char path[128] = "/sys/devices/system/cpu/cpu0/cpufreq/";
    strcat(path, file);
    int64_t khz;
    if (!kb_sysfile_int64(root, path, &khz) || khz <= 0)
        return false;
    *mhz = (double)khz / 1000.0;
    return true;
}

/* Intel's brand strings end in the rated clock, "... CPU @ 2.60GHz". */
static bool model_name_mhz(const char *model, double *mhz) {
    const char *at = strrchr(model, '@');
    if (!at)
        return false;
    char *end;
    double v = strtod(at + 1, &end);
    while (*end == ' ')
        end++;
    if (v <= 0)
        return false;
    if (strncmp(end, "GHz", 3) == 0)
        *mhz = v * 1000.0;
    else if (strncmp(end, "MHz", 3) == 0)
        *mhz = v;
    else
        return false;
    return true;
}

/* The processor base frequency (leaf 0x16), else the TSC frequency, which on current x86 cores
 * runs at the base clock: from the crystal ratio (leaf 0x15) or, in a VM, from the
 * hypervisor's timing leaf (0x40000010, defined by VMware and implemented by KVM). */
static bool cpuid_mhz(double *mhz) {
    unsigned r[4];
    if (kb_x86_cpuid(0x16, 0, r) && (r[0] & 0xffff) != 0) {
        *mhz = (double)(r[0] & 0xffff);
        return true;
    }
    if (kb_x86_cpuid(0x15, 0, r) && r[0] != 0 && r[1] != 0 && r[2] != 0) {
        *mhz = (double)r[2] * r[1] / r[0] / 1e6;
        return true;
    }
    if (kb_x86_cpuid(0x40000010u, 0, r) && r[0] != 0) {
        *mhz = (double)r[0] / 1000.0;
        return true;
    }
    return false;
}

void kb_probe_nominal_clock(kb_machine *m, const char *root, bool live, const char *cpuinfo) {
    double mhz = 0;
    kb_clock_source source = KB_CLOCK_UNKNOWN;
    char text[64];
    if (cpufreq_mhz(root, "base_frequency", &mhz))
        source = KB_CLOCK_BASE_FREQUENCY;
    else if (cpufreq_mhz(root, "cpuinfo_max_freq", &mhz))
        source = KB_CLOCK_MAX_FREQ;
    else if (model_name_mhz(m->cpu_model, &mhz))
        source = KB_CLOCK_MODEL_NAME;
    else if (live && cpuid_mhz(&mhz))
        source = KB_CLOCK_CPUID;
    else if (kb_cpuinfo_x86_fields_apply(live) &&
             kb_cpuinfo_field(cpuinfo, "cpu MHz", text, sizeof text) &&
             (mhz = strtod(text, NULL)) > 0)
        source = KB_CLOCK_CPUINFO_MHZ;
    if (source == KB_CLOCK_UNKNOWN)
        mhz = 0;
    m->nominal_mhz = mhz;
    m->nominal_source = source;
}
