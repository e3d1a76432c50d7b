#ifndef KB_CORE_BYTESWAP_H
#define KB_CORE_BYTESWAP_H

#include <stddef.h>

/* Reverses the bytes of each of count elements of itemsize bytes, in place. */
void kb_byteswap(void *data, size_t count, size_t itemsize);

#endif
