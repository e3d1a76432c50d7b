#ifndef KB_CORE_OWNER_H
#define KB_CORE_OWNER_H

/* What an array's `owned` pointer is, so kb_array_free knows how to release it. */
enum kb_owned_kind {
    KB_OWNED_NONE = 0,
    KB_OWNED_ALIGNED, /* kb_aligned_alloc */
    KB_OWNED_MMAP,    /* mmap of owned_size bytes */
};

#endif
