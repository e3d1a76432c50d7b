/* kb_reserve: the doubling growth of the arrays that collect as a run goes. */
#include <stdlib.h>

#include "util/reserve.h"

void *kb_reserve(void *items, int64_t *capacity, int64_t need, size_t size) {
    if (need <= *capacity)
        return items;
    int64_t grown = *capacity ? *capacity : 64;
    while (grown < need)
        grown *= 2;
    void *bigger = realloc(items, (size_t)grown * size);
    if (bigger)
        *capacity = grown;
    return bigger;
}
