#ifndef KB_MACHINE_PROBE_X86_CPUID_H
#define KB_MACHINE_PROBE_X86_CPUID_H

#include <stdbool.h>

/* Runs CPUID leaf/subleaf into regs (eax, ebx, ecx, edx). False on other architectures and
 * for a leaf above the maximum of its range: the basic range (0), the hypervisor range
 * (0x40000000, only when the hypervisor bit is set) and the extended range (0x80000000). */
bool kb_x86_cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4]);

#endif
