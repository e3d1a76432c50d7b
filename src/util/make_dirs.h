#ifndef KB_UTIL_MAKE_DIRS_H
#define KB_UTIL_MAKE_DIRS_H

#include "kbench/error.h"

/* mkdir -p: creates the directory path and its missing parents (mode 0755 less umask).
 * KB_EIO "cannot create DIR: REASON". */
kb_status kb_make_dirs(const char *path);

#endif
