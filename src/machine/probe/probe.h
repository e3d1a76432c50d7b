#ifndef KB_MACHINE_PROBE_PROBE_H
#define KB_MACHINE_PROBE_PROBE_H

#include <stdbool.h>

#include "kbench/machine.h"

/* The parts of kb_machine_probe_at, one per file. root is the tree to read ("" for the live
 * system); live says whether instructions (CPUID, MIDR_EL1) and system calls (uname) may
 * describe this machine too. cpuinfo is the start of root/proc/cpuinfo, "" when missing. Each
 * fills only its own fields and leaves them "unknown" or 0 when nothing says. */
void kb_probe_os(kb_machine *m, const char *root, bool live);
void kb_probe_cpu_name(kb_machine *m, const char *root, bool live, const char *cpuinfo);
void kb_probe_topology(kb_machine *m, const char *root, bool live);
void kb_probe_caches(kb_machine *m, const char *root);
void kb_probe_cpu_signature(kb_machine *m, const char *root, bool live, const char *cpuinfo);
void kb_probe_nominal_clock(kb_machine *m, const char *root, bool live, const char *cpuinfo);

/* Whether x86-style /proc/cpuinfo fields ("vendor_id", "model name", "cpu MHz") describe the
 * CPU kbench runs on. Not for a live aarch64 build: under qemu-user the file is the x86
 * host's. */
bool kb_cpuinfo_x86_fields_apply(bool live);

/* MIDR_EL1, rebuilt from the "CPU implementer/part/variant/revision" lines of cpuinfo or, on
 * a live aarch64 system, read from the register. False when neither says. */
bool kb_arm_midr_from_cpuinfo(const char *cpuinfo, unsigned *midr);
bool kb_arm_midr_from_register(bool live, unsigned *midr);

#endif
