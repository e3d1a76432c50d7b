/* Aligned allocation for arrays and scratch buffers, and the cache of freed large blocks. */
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/fail.h"
#include "kbench/memory.h"

/* Freed blocks of at least KB_HUGE_PAGE_FROM bytes are kept for the next allocation of about
 * their size (at most a quarter smaller), up to KB_BLOCK_CACHE_SLOTS blocks and a total of the
 * smaller of KB_BLOCK_CACHE_BYTES and an eighth of physical memory; beyond that the oldest goes
 * back to the system. A new 64 MiB array otherwise costs its page faults, and the kernel's
 * zeroing of its pages, on every call: 3.5 ms of an 11.5 ms float32 a*b + c over 16M elements
 * that allocates its result (one thread, Zen 4), where the same expression into a given output
 * took 8 ms. Allocators that own their memory keep it the same way (glibc's own threshold for
 * returning blocks to the system stops at 32 MiB). Under AddressSanitizer every block goes back
 * at once, so that a use after free stays visible. */
#define KB_BLOCK_CACHE_SLOTS 8
#define KB_BLOCK_CACHE_BYTES ((size_t)1 << 30)

#if defined(__SANITIZE_ADDRESS__)
#define KB_BLOCK_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KB_BLOCK_CACHE 0
#endif
#endif
#ifndef KB_BLOCK_CACHE
#define KB_BLOCK_CACHE 1
#endif

typedef struct cached_block {
    void *ptr;
    size_t size; /* malloc_usable_size's */
} cached_block;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cached_block cache[KB_BLOCK_CACHE_SLOTS]; /* oldest first */
static int cache_count;
static size_t cache_bytes;

static size_t cache_limit(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t eighth = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 8 : 0;
    return eighth && eighth < KB_BLOCK_CACHE_BYTES ? eighth : KB_BLOCK_CACHE_BYTES;
}

/* Slot i out of the cache, its bytes no longer counted. */
static cached_block take(int i) {
    cached_block b = cache[i];
    for (int k = i; k + 1 < cache_count; k++)
        cache[k] = cache[k + 1];
    cache_count--;
    cache_bytes -= b.size;
    return b;
}

/* The smallest cached block of at least size bytes and at most a third more, or NULL. */
static void *cached(size_t size) {
    if (!KB_BLOCK_CACHE)
        return NULL;
    pthread_mutex_lock(&cache_lock);
    int best = -1;
    for (int i = 0; i < cache_count; i++)
        if (cache[i].size >= size && cache[i].size - size <= size / 3 &&
            (best < 0 || cache[i].size < cache[best].size))
            best = i;
    void *ptr = best >= 0 ? take(best).ptr : NULL;
    pthread_mutex_unlock(&cache_lock);
    return ptr;
}

/* Keeps ptr for reuse when it is large and fits; true when kept. */
static bool keep(void *ptr) {
    if (!KB_BLOCK_CACHE)
        return false;
    size_t size = malloc_usable_size(ptr), limit = cache_limit();
    if (size < KB_HUGE_PAGE_FROM || size > limit || (uintptr_t)ptr % KB_HUGE_PAGE_BYTES != 0)
        return false;
    void *evicted[KB_BLOCK_CACHE_SLOTS];
    int nevicted = 0;
    pthread_mutex_lock(&cache_lock);
    while (cache_count == KB_BLOCK_CACHE_SLOTS || cache_bytes + size > limit)
        evicted[nevicted++] = take(0).ptr;
    cache[cache_count++] = (cached_block){ptr, size};
    cache_bytes += size;
    pthread_mutex_unlock(&cache_lock);
    for (int i = 0; i < nevicted; i++)
        free(evicted[i]);
    return true;
}

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
    if (alignment == KB_HUGE_PAGE_BYTES) {
        void *reused = cached(rounded);
        if (reused)
            return reused;
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
    if (ptr && !keep(ptr))
        free(ptr);
}

void kb_aligned_release_cached(void) {
    pthread_mutex_lock(&cache_lock);
    while (cache_count > 0)
        free(take(0).ptr);
    pthread_mutex_unlock(&cache_lock);
}
