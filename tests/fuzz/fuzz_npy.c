/* libFuzzer target for the .npy reader: any bytes must give either a valid header and array
 * or a status with a one-line message; never a crash, a leak or undefined behaviour (the
 * whole library is built with ASan and UBSan for fuzzing). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kbench/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(void) {
    const char *m = kb_last_error();
    if (m[0] == '\0' || strchr(m, '\n'))
        __builtin_trap();
}

/* Reads every element through the view, so that a view reaching past its memory shows up as
 * an ASan report rather than passing unnoticed. */
static uint64_t touch(const kb_array *a) {
    uint64_t sum = 0;
    size_t itemsize = kb_array_itemsize(a);
    kb_walk walk;
    kb_walk_init(&walk, a);
    char *row;
    while (kb_walk_next(&walk, &row))
        for (int64_t i = 0; i < walk.row_length; i++)
            for (size_t b = 0; b < itemsize; b++)
                sum += (unsigned char)row[i * walk.row_stride + (int64_t)b];
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kb_npy_header h;
    if (kb_npy_parse_header(data, size, &h) == KB_OK) {
        if (h.data_offset > size || h.ndim < 0 || h.ndim > KB_MAX_DIMS ||
            h.data_size % kb_dtype_size(h.dtype) != 0)
            __builtin_trap();
    } else {
        check_message();
    }

    kb_array a;
    kb_npy_header h2;
    if (kb_npy_read_buffer(data, size, &a, &h2) == KB_OK) {
        if (h2.data_offset + h2.data_size != size ||
            (uint64_t)kb_array_size(&a) * kb_array_itemsize(&a) != h2.data_size)
            __builtin_trap();
        volatile uint64_t sink = touch(&a);
        (void)sink;
        kb_array_free(&a);
    } else {
        check_message();
    }
    return 0;
}
