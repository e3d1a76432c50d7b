/* kb_array_copy: copies any view into another of the same shape, converting dtypes. */
#include <stdio.h>
#include <string.h>

#include "core/element.h"
#include "core/fail.h"
#include "kbench/array.h"

/* Puts "element INDEX: " before the conversion's message, the index in NumPy's spelling: (),
 * (4,), (0, 1). The caller names the array (a file's path, say) before that. */
static kb_status at_element(kb_status st, int ndim, const int64_t *index) {
    char text[16 + KB_MAX_DIMS * 22]; /* room for any index: 20 digits and ", " a dimension */
    int n = snprintf(text, sizeof text, "element (");
    for (int i = 0; i < ndim; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s%lld", i ? ", " : "",
                      (long long)index[i]);
    snprintf(text + n, sizeof text - (size_t)n, "%s)", ndim == 1 ? "," : "");
    return kb_fail_prefix(st, text);
}

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
    int64_t count = kb_array_size(src);
    /* Two C-contiguous arrays of one dtype: one block move. Element by element, an evaluated
     * expression's copy into its caller's 128 MiB output had cost more than the evaluation. */
    if (src->dtype == dst->dtype && kb_array_is_c_contiguous(src) &&
        kb_array_is_c_contiguous(dst)) {
        memmove(dst->data, src->data, (size_t)count * in_size);
        return KB_OK;
    }
    int64_t index[KB_MAX_DIMS] = {0};
    for (int64_t n = 0; n < count; n++) {
        const char *from = kb_array_at(src, index);
        char *to = kb_array_at(dst, index);
        if (src->dtype == dst->dtype) {
            memmove(to, from, in_size);
        } else {
            kb_status st = kb_element_store(dst->dtype, to, kb_element_load(src->dtype, from));
            if (st != KB_OK)
                return at_element(st, src->ndim, index);
        }
        for (int i = src->ndim - 1; i >= 0; i--) {
            if (++index[i] < src->shape[i])
                break;
            index[i] = 0;
        }
    }
    return KB_OK;
}
