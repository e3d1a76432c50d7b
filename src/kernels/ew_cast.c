/* Casts between dtypes for the elementwise driver: a strided source into a contiguous block. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/element.h"
#include "core/internal.h"
#include "kbench/half.h"
#include "kernels/ew.h"

/* One C conversion per pair of the C-typed dtypes: integers wrap (GCC defines narrowing as
 * modulo 2^bits), integers to floats round once, anything to bool is "not zero" (NaN is true,
 * as in NumPy). Floats to integers are not here: C leaves out-of-range ones undefined, so
 * they take the checked path. */
#define CONVERT(D, DT, S, ST)                                                                      \
    static void convert_##S##_##D(void *dst, const char *src, int64_t stride, int64_t n) {         \
        DT *o = dst;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            ST v;                                                                                  \
            memcpy(&v, src + i * stride, sizeof v);                                                \
            o[i] = (DT)v;                                                                          \
        }                                                                                          \
    }
#define FROM(S, ST)                                                                                \
    CONVERT(b, bool, S, ST)                                                                        \
    CONVERT(i8, int8_t, S, ST)                                                                     \
    CONVERT(i16, int16_t, S, ST)                                                                   \
    CONVERT(i32, int32_t, S, ST)                                                                   \
    CONVERT(i64, int64_t, S, ST)                                                                   \
    CONVERT(u8, uint8_t, S, ST)                                                                    \
    CONVERT(u16, uint16_t, S, ST)                                                                  \
    CONVERT(u32, uint32_t, S, ST)                                                                  \
    CONVERT(u64, uint64_t, S, ST)                                                                  \
    CONVERT(f32, float, S, ST)                                                                     \
    CONVERT(f64, double, S, ST)
FROM(b, bool)
FROM(i8, int8_t)
FROM(i16, int16_t)
FROM(i32, int32_t)
FROM(i64, int64_t)
FROM(u8, uint8_t)
FROM(u16, uint16_t)
FROM(u32, uint32_t)
FROM(u64, uint64_t)
CONVERT(b, bool, f32, float)
CONVERT(f32, float, f32, float)
CONVERT(f64, double, f32, float)
CONVERT(b, bool, f64, double)
CONVERT(f32, float, f64, double)
CONVERT(f64, double, f64, double)

typedef void (*converter)(void *dst, const char *src, int64_t stride, int64_t n);

#define ROW(S)                                                                                     \
    [KB_BOOL] = convert_##S##_b, [KB_INT8] = convert_##S##_i8, [KB_INT16] = convert_##S##_i16,     \
    [KB_INT32] = convert_##S##_i32, [KB_INT64] = convert_##S##_i64, [KB_UINT8] = convert_##S##_u8, \
    [KB_UINT16] = convert_##S##_u16, [KB_UINT32] = convert_##S##_u32,                              \
    [KB_UINT64] = convert_##S##_u64, [KB_F32] = convert_##S##_f32, [KB_F64] = convert_##S##_f64
#define FLOAT_ROW(S)                                                                               \
    [KB_BOOL] = convert_##S##_b, [KB_F32] = convert_##S##_f32, [KB_F64] = convert_##S##_f64

/* converters[src][dst] */
static const converter converters[KB_DTYPE_COUNT][KB_DTYPE_COUNT] = {
    [KB_BOOL] = {ROW(b)},        [KB_INT8] = {ROW(i8)},       [KB_INT16] = {ROW(i16)},
    [KB_INT32] = {ROW(i32)},     [KB_INT64] = {ROW(i64)},     [KB_UINT8] = {ROW(u8)},
    [KB_UINT16] = {ROW(u16)},    [KB_UINT32] = {ROW(u32)},    [KB_UINT64] = {ROW(u64)},
    [KB_F32] = {FLOAT_ROW(f32)}, [KB_F64] = {FLOAT_ROW(f64)},
};

/* A strided copy of one type: typed loops for the sizes there are (a broadcast scalar is
 * stride 0, repeated a block at a time: a memcpy per element would cost more than the op). */
#define COPY(T)                                                                                    \
    static void copy_##T(void *dst, const char *src, int64_t stride, int64_t n) {                  \
        T *o = dst;                                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            memcpy(&o[i], src + i * stride, sizeof(T));                                            \
    }
COPY(uint8_t)
COPY(uint16_t)
COPY(uint32_t)
COPY(uint64_t)

static void copy_strided(void *dst, const char *src, int64_t stride, int64_t n, size_t size) {
    if (stride == (int64_t)size) {
        memcpy(dst, src, (size_t)n * size);
        return;
    }
    switch (size) {
        case 1:
            copy_uint8_t(dst, src, stride, n);
            return;
        case 2:
            copy_uint16_t(dst, src, stride, n);
            return;
        case 4:
            copy_uint32_t(dst, src, stride, n);
            return;
        default:
            copy_uint64_t(dst, src, stride, n);
            return;
    }
}

kb_status kb_ew_cast(kb_dtype dst_dtype, void *dst, kb_dtype src_dtype, const char *src,
                     int64_t src_stride, int64_t n) {
    if (dst_dtype == src_dtype) {
        copy_strided(dst, src, src_stride, n, kb_dtype_size(dst_dtype));
        return KB_OK;
    }
    converter c = converters[src_dtype][dst_dtype];
    if (c) {
        c(dst, src, src_stride, n);
        return KB_OK;
    }
    if (src_dtype == KB_F16 && dst_dtype == KB_F32) {
        float *o = dst;
        for (int64_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, src + i * src_stride, sizeof h);
            o[i] = kb_f16_to_f32(h);
        }
        return KB_OK;
    }
    if (src_dtype == KB_F32 && dst_dtype == KB_F16) {
        uint16_t *o = dst;
        for (int64_t i = 0; i < n; i++) {
            float v;
            memcpy(&v, src + i * src_stride, sizeof v);
            o[i] = kb_f32_to_f16(v);
        }
        return KB_OK;
    }
    /* Everything else (float16 and bfloat16 beside other types, floats to integers) one
     * checked element at a time, each rounded once. */
    size_t size = kb_dtype_size(dst_dtype);
    for (int64_t i = 0; i < n; i++) {
        kb_element e = kb_element_load(src_dtype, src + i * src_stride);
        kb_status st = kb_element_store(dst_dtype, (char *)dst + (size_t)i * size, e);
        if (st != KB_OK)
            return st;
    }
    return KB_OK;
}
