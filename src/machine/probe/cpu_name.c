/* The CPU's vendor and model name, from CPUID, MIDR_EL1 or /proc/cpuinfo. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/probe/arm_cpu_names.h"
#include "machine/probe/proc_cpuinfo.h"
#include "machine/probe/probe.h"
#include "machine/probe/sysfile.h"
#include "util/internal.h"
#include "machine/probe/x86_cpuid.h"

#if defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1 << 11)
#endif
#endif

bool kb_cpuinfo_x86_fields_apply(bool live) {
#if defined(__aarch64__)
    return !live;
#else
    (void)live;
    return true;
#endif
}

/* Copies src without leading and trailing spaces (Intel pads its brand string). */
static void copy_trimmed(char *dst, size_t size, const char *src) {
    while (*src == ' ')
        src++;
    kb_copy_string(dst, size, src);
    size_t n = strlen(dst);
    while (n > 0 && dst[n - 1] == ' ')
        dst[--n] = '\0';
}

static bool x86_names(kb_machine *m) {
    unsigned r[4];
    if (!kb_x86_cpuid(0, 0, r))
        return false;
    char vendor[13];
    memcpy(vendor, &r[1], 4);
    memcpy(vendor + 4, &r[3], 4);
    memcpy(vendor + 8, &r[2], 4);
    vendor[12] = '\0';
    copy_trimmed(m->cpu_vendor, sizeof m->cpu_vendor, vendor);

    char brand[49];
    for (unsigned i = 0; i < 3; i++) {
        if (!kb_x86_cpuid(0x80000002u + i, 0, r))
            return true; /* no brand string: the model stays for /proc/cpuinfo to fill */
        memcpy(brand + 16 * i, r, 16);
    }
    brand[48] = '\0';
    copy_trimmed(m->cpu_model, sizeof m->cpu_model, brand);
    return true;
}

static void arm_names(kb_machine *m, unsigned midr) {
    unsigned implementer = midr >> 24, part = (midr >> 4) & 0xfff;
    const char *vendor = kb_arm_implementer_name(implementer);
    const char *model = kb_arm_part_name(implementer, part);
    if (vendor)
        kb_copy_string(m->cpu_vendor, sizeof m->cpu_vendor, vendor);
    else
        snprintf(m->cpu_vendor, sizeof m->cpu_vendor, "0x%02x", implementer);
    if (model)
        kb_copy_string(m->cpu_model, sizeof m->cpu_model, model);
    else
        snprintf(m->cpu_model, sizeof m->cpu_model, "MIDR 0x%08x", midr);
}

static bool hex_field(const char *cpuinfo, const char *key, unsigned *out) {
    char text[32];
    if (!kb_cpuinfo_field(cpuinfo, key, text, sizeof text) || text[0] == '\0')
        return false;
    char *end;
    unsigned long v = strtoul(text, &end, 0);
    if (*end != '\0' || v > 0xfff)
        return false;
    *out = (unsigned)v;
    return true;
}

/* MIDR_EL1 rebuilt from the fields Linux prints; the architecture field is 0xf for every
 * Armv8 and later core. */
bool kb_arm_midr_from_cpuinfo(const char *cpuinfo, unsigned *midr) {
    unsigned implementer, part, variant = 0, revision = 0;
    if (!hex_field(cpuinfo, "CPU implementer", &implementer) ||
        !hex_field(cpuinfo, "CPU part", &part))
        return false;
    hex_field(cpuinfo, "CPU variant", &variant);
    hex_field(cpuinfo, "CPU revision", &revision);
    *midr = (implementer & 0xff) << 24 | (variant & 0xf) << 20 | 0xfu << 16 | (part & 0xfff) << 4 |
            (revision & 0xf);
    return true;
}

bool kb_arm_midr_from_register(bool live, unsigned *midr) {
#if defined(__aarch64__)
    /* Linux emulates the read for user space when it advertises HWCAP_CPUID. */
    if (live && (getauxval(AT_HWCAP) & HWCAP_CPUID)) {
        uint64_t v;
        __asm__ volatile("mrs %0, midr_el1" : "=r"(v));
        *midr = (unsigned)v;
        return true;
    }
#endif
    (void)live;
    (void)midr;
    return false;
}

void kb_probe_cpu_name(kb_machine *m, const char *root, bool live, const char *cpuinfo) {
    (void)root;
    kb_copy_string(m->cpu_vendor, sizeof m->cpu_vendor, "unknown");
    kb_copy_string(m->cpu_model, sizeof m->cpu_model, "unknown");
    if (live && x86_names(m) && strcmp(m->cpu_model, "unknown") != 0 && m->cpu_model[0])
        return;

    unsigned midr;
    if (kb_arm_midr_from_cpuinfo(cpuinfo, &midr) || kb_arm_midr_from_register(live, &midr)) {
        arm_names(m, midr);
        return;
    }
    if (!kb_cpuinfo_x86_fields_apply(live))
        return;
    char text[KB_MACHINE_NAME_SIZE];
    if (strcmp(m->cpu_vendor, "unknown") == 0 &&
        kb_cpuinfo_field(cpuinfo, "vendor_id", text, sizeof text) && text[0])
        kb_copy_string(m->cpu_vendor, sizeof m->cpu_vendor, text);
    if ((kb_cpuinfo_field(cpuinfo, "model name", text, sizeof text) ||
         kb_cpuinfo_field(cpuinfo, "cpu model", text, sizeof text)) &&
        text[0])
        copy_trimmed(m->cpu_model, sizeof m->cpu_model, text);
    else if (m->cpu_model[0] == '\0')
        kb_copy_string(m->cpu_model, sizeof m->cpu_model, "unknown");
}
