#ifndef KB_UTIL_RESERVE_H
#define KB_UTIL_RESERVE_H

#include <stddef.h>
#include <stdint.h>

/* The array items (of *capacity items of size bytes) with room for need items: itself when it
 * has it, else reallocated, its capacity doubled from 64 until it does and *capacity updated.
 * NULL when out of memory, with items and *capacity left as they were. */
void *kb_reserve(void *items, int64_t *capacity, int64_t need, size_t size);

#endif
