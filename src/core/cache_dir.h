#ifndef KB_CORE_CACHE_DIR_H
#define KB_CORE_CACHE_DIR_H

#include <stddef.h>

#include "kbench/error.h"

/* The directory of kbench's per-machine caches (measured peaks, compiled kernels):
 * KB_CACHE_DIR, else $XDG_CACHE_HOME/kbench, else ~/.cache/kbench. Not created here.
 * KB_EUNSUPPORTED when none is set, KB_EINVAL when the path does not fit in size. */
kb_status kb_cache_dir(char *dir, size_t size);

#endif
