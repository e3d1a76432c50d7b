/* Whether this is a virtual machine, and which hypervisor. */
#include <string.h>

#include "kbench/machine.h"
#include "machine/probe/proc_cpuinfo.h"
#include "machine/probe/sysfile.h"
#include "util/internal.h"
#include "machine/probe/x86_cpuid.h"

/* CPUID leaf 0x40000000 signatures (ebx, ecx, edx) of the common hypervisors. */
static const struct {
    const char *signature;
    const char *name;
} signatures[] = {
    {"KVMKVMKVM", "KVM"},
    {"Linux KVM Hv", "KVM"}, /* KVM presenting Hyper-V enlightenments */
    {"Microsoft Hv", "Microsoft Hyper-V"},
    {"VMwareVMware", "VMware"},
    {"XenVMMXenVMM", "Xen"},
    {"TCGTCGTCGTCG", "QEMU TCG"},
    {"VBoxVBoxVBox", "VirtualBox"},
    {" lrpepyh  vr", "Parallels"},
    {"bhyve bhyve ", "bhyve"},
    {"ACRNACRNACRN", "ACRN"},
    {"QNXQVMBSQG", "QNX"},
    {"EVMMEVMMEVMM", "Intel EVMM"},
    {"SRESRESRESR", "Lockheed Martin LMHS"},
};

static bool cpuid_vendor(char *name, int size) {
    unsigned r[4];
    if (!kb_x86_cpuid(0x40000000u, 0, r))
        return false;
    char sig[13];
    memcpy(sig, &r[1], 4);
    memcpy(sig + 4, &r[2], 4);
    memcpy(sig + 8, &r[3], 4);
    sig[12] = '\0';
    for (size_t i = 0; i < sizeof signatures / sizeof signatures[0]; i++) {
        if (strcmp(sig, signatures[i].signature) == 0) {
            kb_copy_string(name, (size_t)size, signatures[i].name);
            return true;
        }
    }
    /* An unlisted signature is still a name worth showing, once made printable. */
    for (int i = 0; i < 12 && sig[i]; i++)
        if (sig[i] < 0x20 || sig[i] > 0x7e)
            sig[i] = '?';
    kb_copy_string(name, (size_t)size, sig[0] ? sig : "unknown");
    return true;
}

bool kb_hypervisor_detect(const char *root, bool use_cpuid, char *name, int size) {
    if (size <= 0)
        return false;
    name[0] = '\0';
    if (use_cpuid && cpuid_vendor(name, size))
        return true;
    char text[64];
    if (kb_sysfile_read(root, "/sys/hypervisor/type", text, sizeof text) && text[0]) {
        kb_copy_string(name, (size_t)size, text);
        return true;
    }
    char cpuinfo[KB_CPUINFO_SIZE];
    kb_cpuinfo_read(root, cpuinfo);
    if (kb_cpuinfo_has_flag(cpuinfo, "hypervisor")) {
        kb_copy_string(name, (size_t)size, "unknown");
        return true;
    }
    return false;
}
