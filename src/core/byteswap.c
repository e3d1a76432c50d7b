/* Byte order conversion of array elements, for big-endian .npy files. */
#include <stdint.h>
#include <string.h>

#include "core/byteswap.h"

/* memcpy in and out, since the data need not be aligned (a .npy buffer can start anywhere);
 * compilers turn each pair into one load and one bswap. */
void kb_byteswap(void *data, size_t count, size_t itemsize) {
    unsigned char *p = data;
    switch (itemsize) {
        case 0:
        case 1:
            return;
        case 2:
            for (size_t i = 0; i < count; i++, p += 2) {
                uint16_t v;
                memcpy(&v, p, 2);
                v = __builtin_bswap16(v);
                memcpy(p, &v, 2);
            }
            return;
        case 4:
            for (size_t i = 0; i < count; i++, p += 4) {
                uint32_t v;
                memcpy(&v, p, 4);
                v = __builtin_bswap32(v);
                memcpy(p, &v, 4);
            }
            return;
        case 8:
            for (size_t i = 0; i < count; i++, p += 8) {
                uint64_t v;
                memcpy(&v, p, 8);
                v = __builtin_bswap64(v);
                memcpy(p, &v, 8);
            }
            return;
        default:
            for (size_t i = 0; i < count; i++, p += itemsize)
                for (size_t a = 0, b = itemsize - 1; a < b; a++, b--) {
                    unsigned char t = p[a];
                    p[a] = p[b];
                    p[b] = t;
                }
            return;
    }
}
