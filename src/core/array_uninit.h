#ifndef KB_CORE_ARRAY_UNINIT_H
#define KB_CORE_ARRAY_UNINIT_H

#include "kbench/array.h"

/* kb_array_new without the zero fill, for a result every element of which is written next
 * (the elementwise kernels' temporaries): the fill would be one more pass over memory, as
 * large as the computation's own writes. */
kb_status kb_array_new_uninit(kb_array *out, kb_dtype dtype, int ndim, const int64_t *shape,
                              kb_order order);

#endif
