#ifndef KB_MACHINE_PROBE_CPULIST_H
#define KB_MACHINE_PROBE_CPULIST_H

#include <stdbool.h>

/* The kernel's CPU list format, as in /sys/devices/system/cpu/online: "0-3,8,10-11". */

/* Reads the next range from *cursor and advances it. False at the end of the list or at
 * malformed text. A single CPU is the range [n, n]. */
bool kb_cpulist_next(const char **cursor, int *first, int *last);

/* The number of CPUs in the list and the lowest of them. False for an empty or malformed
 * list. Either output may be NULL. */
bool kb_cpulist_summary(const char *list, int *count, int *lowest);

#endif
