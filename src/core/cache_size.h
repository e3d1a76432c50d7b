#ifndef KB_CORE_CACHE_SIZE_H
#define KB_CORE_CACHE_SIZE_H

#include <stdbool.h>
#include <stdint.h>

/* Cache sizes in bytes as sysfs describes cpu0's caches, else as the C library reports them,
 * else a default. Kernels size their blocks by them rather than by constants tuned to one CPU.
 *
 * The L2 cache of one core, else 1 MiB. */
int64_t kb_cache_l2_bytes(void);

/* The last-level cache as cpu0 sees it (L3, shared by the cores of its complex), else its L2. */
int64_t kb_cache_llc_bytes(void);

/* Sets the L2 and last-level sizes that the functions above return, in place of the machine's
 * (a size of 0 or less leaves that one as it is). For tests: under emulation and in the sanitizer
 * build, which run kernels tens of times slower, the kernels for inputs from memory are tested
 * on inputs of a few MiB (tests/test_cache_sizes.h). */
void kb_cache_sizes_set(int64_t l2, int64_t llc);

/* Whether data of this many bytes comes from memory rather than the caches: at least half the
 * last-level cache. Half: the last level is shared with the other cores (and, in a VM, other
 * guests) and holds the kernel's other data too. Kernels that stream such data prefetch
 * ahead of their loads, and so does the load kernel of kbench peaks, so that the bound holds
 * them to what a prefetching loop gets (docs/performance.md). */
static inline bool kb_cache_far(int64_t bytes) {
    return bytes >= kb_cache_llc_bytes() / 2;
}

/* How far ahead such a streaming loop prefetches: 1 KiB, sixteen 64-byte lines, about the
 * latency of memory at the rate a core streams. */
#define KB_FAR_AHEAD_BYTES 1024

/* Where the operands and output of a streaming loop are, by the bytes they span, and so how
 * the loop treats memory: in the caches (plain loads and stores), far (kb_cache_far: it
 * prefetches ahead), or streamed: at least the whole last-level cache, so that the output would
 * not stay there anyway, and the loop writes it with non-temporal stores. A plain store first reads
 * the line it writes (for ownership), a third stream besides the one read and the one written back;
 * a non-temporal store writes the line without reading it. Below the last level's size the output
 * could stay in it, and non-temporal stores send it to memory: a 4 MiB unary op ran at 50 GB/s with
 * them against 59 without (Zen 4, one thread), while at 64 MiB it ran at 49 against 32
 * (docs/performance.md). */
typedef enum kb_reach { KB_REACH_CACHE, KB_REACH_FAR, KB_REACH_BEYOND } kb_reach;

static inline kb_reach kb_cache_reach(int64_t bytes) {
    return bytes >= kb_cache_llc_bytes() ? KB_REACH_BEYOND
           : kb_cache_far(bytes)         ? KB_REACH_FAR
                                         : KB_REACH_CACHE;
}

/* How far ahead a loop that writes with non-temporal stores prefetches what it reads: with the
 * writes no longer reading lines, the reads take more of the memory's time and want more lines
 * in flight (2 KiB: 49 GB/s against 46 with 1 KiB for a unary op, Zen 4, one thread). */
#define KB_NT_AHEAD_BYTES 2048

/* The alignment non-temporal vector stores need (a cache line; 64 bytes covers AVX-512). */
#define KB_NT_ALIGN 64

/* Orders the non-temporal stores the calling thread made before the stores and loads after
 * it, so that other threads see them once they synchronize with this one: each thread that
 * wrote with them calls it before its work is handed over. */
static inline void kb_nt_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* The L1 data cache of one core, else 32 KiB. */
int64_t kb_cache_l1d_bytes(void);

/* A size as sysfs writes it: "32K", "1024K", "32M" or plain bytes; 0 when malformed. */
int64_t kb_parse_cache_size(const char *text);

#endif
