#ifndef KB_MACHINE_PROBE_SYSFILE_H
#define KB_MACHINE_PROBE_SYSFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Small text files of /proc, /sys and /etc, read under a root directory so that tests can
 * substitute a fake tree: root "" reads the live system, root "/tmp/x" reads
 * /tmp/x/proc/cpuinfo for the path "/proc/cpuinfo". */

/* Reads up to size - 1 bytes of root+path into buf, NUL-terminated, with trailing whitespace
 * removed. False (and buf "") when the file cannot be opened or read. */
bool kb_sysfile_read(const char *root, const char *path, char *buf, size_t size);

/* Reads a file holding one decimal integer. False when unreadable or not an integer. */
bool kb_sysfile_int64(const char *root, const char *path, int64_t *out);

/* Joins root and path into buf; false when it does not fit. */
bool kb_sysfile_path(const char *root, const char *path, char *buf, size_t size);

#endif
