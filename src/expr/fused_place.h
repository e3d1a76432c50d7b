#ifndef KB_EXPR_FUSED_PLACE_H
#define KB_EXPR_FUSED_PLACE_H

#include <stdint.h>

#include "expr/plan.h"
#include "kbench/array.h"

/* Where a fused kernel's buffers are, over its iteration: the rows' dimensions (kept by its
 * reductions; none for an elementwise kernel) and the row's (the reduced ones; all of them for
 * an elementwise kernel), each row walked in chunks of its flat index. */
typedef struct kb_fused_iter {
    int nk, nr;
    int64_t kshape[KB_MAX_DIMS], rshape[KB_MAX_DIMS];
    int64_t rows, m; /* rows, and elements per row */
} kb_fused_iter;

/* A buffer a kernel reads or writes: byte strides along the rows' dimensions and along the
 * row's, 0 where it is broadcast. */
typedef struct kb_fused_place {
    char *data;
    kb_dtype dtype;
    int64_t kstride[KB_MAX_DIMS];
    int64_t rstride[KB_MAX_DIMS];
} kb_fused_place;

void kb_fused_iter_init(kb_fused_iter *it, const kb_pkernel *k);

/* The place of array a broadcast to kernel k's shape (aligned from the right, as NumPy). */
void kb_fused_place_of(const kb_pkernel *k, const kb_array *a, kb_fused_place *p);

/* The place of a flat row value: its dimensions are the rows' (aligned from the right, as a
 * reduction without keepdims leaves them), one value per row. */
void kb_fused_place_flat(const kb_fused_iter *it, const kb_array *a, kb_fused_place *p);

/* The index of row r over the rows' dimensions, and p's byte offset there. */
void kb_fused_row_index(const kb_fused_iter *it, int64_t r, int64_t *idx);
int64_t kb_fused_row_offset(const kb_fused_iter *it, const kb_fused_place *p, const int64_t *idx);

/* Where elements [j0, j0 + n) of the row of p at byte offset base are, when they are one
 * contiguous run of p's type; NULL otherwise. */
char *kb_fused_contiguous(const kb_fused_iter *it, const kb_fused_place *p, int64_t base,
                          int64_t j0, int64_t n);

/* Those elements as a contiguous run of want: p's own memory when it is one already, else
 * cast into buf. NULL when a cast fails. */
const void *kb_fused_gather(const kb_fused_iter *it, const kb_fused_place *p, int64_t base,
                            int64_t j0, int64_t n, kb_dtype want, void *buf);

/* Writes n contiguous elements of p's type from `from` to those elements of p. */
void kb_fused_scatter(const kb_fused_iter *it, const kb_fused_place *p, int64_t base, int64_t j0,
                      int64_t n, const char *from);

#endif
