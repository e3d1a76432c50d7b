#ifndef KBENCH_VERSION_H
#define KBENCH_VERSION_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KB_VERSION_STRING "0.1.0"

/* How this copy of libkbench was built. */
typedef struct kb_build_info {
    const char *version;    /* KB_VERSION_STRING */
    const char *git_commit; /* "unknown" outside a git checkout; "-dirty" when modified */
    const char *compiler;   /* "GCC 12.2.0" */
    const char *c_flags;
    const char *build_type; /* "Release", "Debug", ... */
    const char *arch;       /* "x86_64", "aarch64" */
    bool sanitizers;        /* built with AddressSanitizer or UBSan */
    bool optimized;         /* built with optimization (NDEBUG, -O2 or more) */
} kb_build_info;

const kb_build_info *kb_build_info_get(void);

#ifdef __cplusplus
}
#endif

#endif
