#ifndef KB_MACHINE_PEAKS_PEAKS_THREADS_H
#define KB_MACHINE_PEAKS_PEAKS_THREADS_H

#include "kbench/error.h"

/* The thread count of the all-cores set: requested, or every usable core for 0. KB_EINVAL
 * outside 0 to 4096. */
kb_status kb_peaks_threads(int requested, int *threads);

#endif
