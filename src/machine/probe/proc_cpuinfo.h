#ifndef KB_MACHINE_PROBE_PROC_CPUINFO_H
#define KB_MACHINE_PROBE_PROC_CPUINFO_H

#include <stdbool.h>
#include <stddef.h>

/* /proc/cpuinfo: "key<tabs>: value" lines, one block per CPU. Only the first block is read,
 * which is all kbench needs and keeps the read small on machines with hundreds of CPUs. */

#define KB_CPUINFO_SIZE 32768

/* Reads the start of root/proc/cpuinfo into buf (KB_CPUINFO_SIZE bytes); "" when missing. */
void kb_cpuinfo_read(const char *root, char *buf);

/* Copies the value of the first line whose key is key (compared exactly, after trimming).
 * False and out "" when there is none. */
bool kb_cpuinfo_field(const char *text, const char *key, char *out, size_t size);

/* True when flag is one of the space-separated words of the "flags" (x86) or "Features"
 * (Arm) line. */
bool kb_cpuinfo_has_flag(const char *text, const char *flag);

#endif
