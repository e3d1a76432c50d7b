/* kb_array_copy: copies any view into another of the same shape, converting dtypes. */
#include <string.h>

#include "core/element.h"
#include "core/fail.h"
#include "kbench/array.h"

kb_status kb_array_copy(kb_array *dst, const kb_array *src) {
    if (dst->flags & KB_ARRAY_READONLY)
        return kb_fail(KB_EINVAL, "cannot copy into a read-only array");
    if (dst->ndim != src->ndim)
        return kb_fail(KB_EINVAL, "cannot copy a %d-d array into a %d-d array", src->ndim,
                       dst->ndim);
    for (int i = 0; i < src->ndim; i++)
        if (dst->shape[i] != src->shape[i])
            return kb_fail(KB_EINVAL, "shapes differ in dimension %d: %lld and %lld", i,
                           (long long)src->shape[i], (long long)dst->shape[i]);
    if (kb_array_size(src) == 0)
        return KB_OK;

    size_t in_size = kb_array_itemsize(src);
    int64_t index[KB_MAX_DIMS] = {0};
    int64_t count = kb_array_size(src);
    for (int64_t n = 0; n < count; n++) {
        const char *from = kb_array_at(src, index);
        char *to = kb_array_at(dst, index);
        if (src->dtype == dst->dtype) {
            memmove(to, from, in_size);
        } else {
            kb_status st = kb_element_store(dst->dtype, to, kb_element_load(src->dtype, from));
            if (st != KB_OK)
                return st;
        }
        for (int i = src->ndim - 1; i >= 0; i--) {
            if (++index[i] < src->shape[i])
                break;
            index[i] = 0;
        }
    }
    return KB_OK;
}
