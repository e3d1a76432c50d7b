/* Aligned allocation for arrays and scratch buffers. */
#include <stdlib.h>
#include <sys/mman.h>

#include "core/fail.h"
#include "kbench/memory.h"

void *kb_aligned_alloc(size_t size) {
    /* Large blocks start on a huge page and ask for transparent huge pages, as NumPy's arrays
     * do (from 4 MiB): streamed from memory with 4 KiB pages, a 64 MiB array read at 20-25
     * GB/s where 2 MiB pages gave 25-35 (one thread, a Zen 4 VM, whose nested page tables
     * make TLB misses dear). Where THP is off, or not Linux, the advice is ignored. */
    size_t alignment = size >= KB_HUGE_PAGE_FROM ? KB_HUGE_PAGE_BYTES : KB_ALIGNMENT;
    /* aligned_alloc wants a multiple of the alignment; round up, and never ask for 0. */
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    if (rounded < size) {
        kb_fail(KB_ENOMEM, "cannot allocate %zu bytes", size);
        return NULL;
    }
    void *ptr = aligned_alloc(alignment, rounded ? rounded : alignment);
    if (!ptr) {
        kb_fail(KB_ENOMEM, "cannot allocate %zu bytes", size);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (alignment == KB_HUGE_PAGE_BYTES)
        (void)madvise(ptr, rounded, MADV_HUGEPAGE);
#endif
    return ptr;
}

void kb_aligned_free(void *ptr) {
    free(ptr);
}
