#ifndef KBENCH_MEMORY_H
#define KBENCH_MEMORY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Alignment of every buffer kbench allocates: one cache line, and one AVX-512 register. */
#define KB_ALIGNMENT 64

/* Blocks of at least KB_HUGE_PAGE_FROM bytes are aligned to KB_HUGE_PAGE_BYTES and advised to
 * use transparent huge pages (Linux's MADV_HUGEPAGE), as NumPy's arrays are. */
#define KB_HUGE_PAGE_FROM ((size_t)4 << 20)
#define KB_HUGE_PAGE_BYTES ((size_t)2 << 20)

/* Allocates size bytes aligned to KB_ALIGNMENT (size 0 gives a valid, freeable pointer), not
 * zeroed. Returns NULL and sets kb_last_error() when out of memory. Free with kb_aligned_free.
 * Freed blocks of at least KB_HUGE_PAGE_FROM bytes are kept for reuse by a later allocation of
 * about their size (at most 8 blocks and the smaller of 1 GiB and an eighth of physical memory),
 * so that an array allocated per call does not pay its page faults each time. */
void *kb_aligned_alloc(size_t size);
void kb_aligned_free(void *ptr);

/* Returns the freed blocks kept for reuse to the system. */
void kb_aligned_release_cached(void);

#ifdef __cplusplus
}
#endif

#endif
