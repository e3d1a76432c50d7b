#ifndef KB_MACHINE_PEAKS_BANDWIDTH_ARENA_H
#define KB_MACHINE_PEAKS_BANDWIDTH_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "kbench/peaks.h"

/* The arrays that the bandwidth measurements of one kernel at one thread count share, kept
 * from one measurement to the next (bandwidth_arena.c). */
typedef struct kb_bw_arena kb_bw_arena;

/* An arena for teams of up to threads threads; NULL when out of memory. */
kb_bw_arena *kb_bw_arena_new(int threads);
void kb_bw_arena_free(kb_bw_arena *arena);
/* The team size an arena serves; 0 for NULL. */
int kb_bw_arena_threads(const kb_bw_arena *arena);

/* Thread thread's array index (0 to 2) of at least bytes, KB_ALIGNMENT-aligned: kept from an
 * earlier call when large enough, else allocated again and filled with fill by the calling
 * thread, which first touches its pages. NULL when out of memory. */
void *kb_bw_arena_array(kb_bw_arena *arena, int thread, int index, size_t bytes, double fill);

/* kb_bw_measure with each thread's arrays from arena (NULL: allocated for this measurement);
 * KB_EINVAL when arena serves fewer threads. */
kb_status kb_bw_measure_in(kb_bw_arena *arena, kb_bw_kernel kernel, kb_simd_level level,
                           int threads, int64_t working_set_bytes,
                           const kb_measure_settings *settings, kb_bw_peak *out);

#endif
