/* kb_machine_probe: the machine description, from its parts. */
#include <string.h>

#include "machine/probe/proc_cpuinfo.h"
#include "machine/probe/probe.h"

void kb_machine_probe(kb_machine *out) {
    kb_machine_probe_at(out, "");
}

void kb_machine_probe_at(kb_machine *out, const char *root) {
    if (!root)
        root = "";
    bool live = root[0] == '\0';
    memset(out, 0, sizeof *out);
    char cpuinfo[KB_CPUINFO_SIZE];
    kb_cpuinfo_read(root, cpuinfo);
    kb_probe_os(out, root, live);
    kb_probe_cpu_name(out, root, live, cpuinfo);
    kb_probe_cpu_signature(out, root, live, cpuinfo);
    kb_probe_topology(out, root, live);
    kb_probe_caches(out, root);
    /* After the CPU's name, which may carry the rated clock. */
    kb_probe_nominal_clock(out, root, live, cpuinfo);
    kb_hypervisor_detect(root, live, out->hypervisor, (int)sizeof out->hypervisor);
}
