#ifndef KB_CORE_ALIAS_H
#define KB_CORE_ALIAS_H

/* Where a kernel puts the small buffer it loads and stores while it streams a large array (a
 * column reduction's row of partial sums or running extremes): at a fixed place relative to
 * the array's addresses modulo 4 KiB, so that its speed does not depend on where the stack
 * or the heap happened to put the buffer.
 *
 * Why: cores decide whether a load depends on an earlier store by the low 12 address bits
 * before the whole address is known (4K aliasing), and a load that matches a store still in
 * flight waits for it. A buffer whose stores land at the addresses, modulo 4 KiB, of the
 * loads the next iterations make puts such a wait in every iteration. Measured on Zen 4
 * (float64 1024 x 1024 summed along axis 0 from L3, one thread, the stack shifted in steps of
 * 64 bytes below the kernel): 112 to 173 us by the stack's offset alone, a plateau of 137-140
 * over 640 bytes of it; and from one process to the next, which address space layout
 * randomisation starts at another offset, medians of 116 to 135 us with intervals under 1%,
 * which is what made a build compared against itself look 10% slower or faster. With the
 * buffer KB_ALIAS_BEHIND bytes below the array modulo 4 KiB, its stores match only loads
 * already made, and the time is 112.5-113.8 us at every stack offset. Every core with a
 * 4 KiB page and partial address compares (x86-64's and Arm's) has the same hazard; the
 * distance is a few cache lines, short of any row or chunk. */

#include <stdint.h>

#define KB_ALIAS_PAGE 4096
#define KB_ALIAS_BEHIND 256

/* Cache-line alignment of the place, which any element type's alignment divides. */
#define KB_ALIAS_ALIGN 64

/* The place in buf (which has KB_ALIAS_PAGE bytes to spare) whose address is KB_ALIAS_BEHIND
 * bytes below x's modulo KB_ALIAS_PAGE, rounded down to KB_ALIAS_ALIGN (the input of an array
 * view may start anywhere): element j of the buffer there goes with element j of a run of the
 * same element size from x. */
static inline void *kb_alias_place(void *buf, const void *x) {
    uintptr_t b = (uintptr_t)buf % KB_ALIAS_PAGE;
    uintptr_t want = ((uintptr_t)x + KB_ALIAS_PAGE - KB_ALIAS_BEHIND) % KB_ALIAS_PAGE;
    want -= want % KB_ALIAS_ALIGN;
    return (char *)buf + (want + KB_ALIAS_PAGE - b) % KB_ALIAS_PAGE;
}

#endif
