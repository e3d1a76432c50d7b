/* CPUID on x86, and nothing elsewhere. */
#include "machine/probe/x86_cpuid.h"

#if defined(__x86_64__)
#include <cpuid.h>

bool kb_x86_cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4]) {
    unsigned base = leaf & 0xf0000000u;
    unsigned a, b, c, d;
    if (base == 0x40000000u) {
        /* The hypervisor range is defined only when leaf 1 says a hypervisor is present;
         * on bare metal these leaves return garbage from the basic range. */
        __cpuid(1, a, b, c, d);
        if (!(c & (1u << 31)))
            return false;
        __cpuid(0x40000000u, a, b, c, d);
        /* Some hypervisors report 0 as the maximum; leaf 0x40000000 itself still works. */
        unsigned max = a >= 0x40000000u ? a : 0x40000000u;
        if (leaf > max)
            return false;
    } else {
        __cpuid(base, a, b, c, d);
        if (leaf > a)
            return false;
    }
    __cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
    return true;
}

#else

bool kb_x86_cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4]) {
    (void)leaf;
    (void)subleaf;
    regs[0] = regs[1] = regs[2] = regs[3] = 0;
    return false;
}

#endif
