#ifndef KB_CORE_SCRATCH_H
#define KB_CORE_SCRATCH_H

#include <stddef.h>

/* Scratch memory that a thread keeps from one call to the next. A reduction's partial results
 * and per-thread sums were malloc'ed and freed on every call; glibc hands blocks that large
 * back to the kernel on free (mmap's threshold, or trimming the heap's top), so every call
 * faulted its pages in again: 85% of the time of a float64 std of 64 x 4096 along axis 0
 * went to page faults and zeroing (perf, Zen 4). A kept buffer is faulted in once per thread.
 *
 * Each thread has one buffer per slot, so that a call can hold buffers of different lives at
 * once: KB_SCRATCH_CALL for what the calling thread allocates for a whole call (partial
 * results the threads fill), KB_SCRATCH_WORK for what each thread uses inside a parallel
 * region. A buffer is valid until the same thread asks for the same slot again. Buffers up
 * to KB_SCRATCH_KEEP_MAX bytes are kept until the thread ends; a larger request gets memory
 * that kb_scratch_release frees, since its page faults cost little beside the work of a
 * reduction that needs that much. */
typedef enum kb_scratch_slot { KB_SCRATCH_CALL, KB_SCRATCH_WORK, KB_SCRATCH_SLOTS } kb_scratch_slot;

#define KB_SCRATCH_KEEP_MAX ((size_t)16 << 20)

/* At least bytes bytes, 64-byte aligned, contents undefined; NULL when out of memory. */
void *kb_scratch_get(kb_scratch_slot slot, size_t bytes);

/* Done with what kb_scratch_get gave (NULL allowed): frees it unless the thread keeps it. */
void kb_scratch_release(kb_scratch_slot slot, void *p);

#endif
