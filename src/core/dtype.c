/* The dtypes: names, sizes and kinds. */
#include <string.h>

#include "core/fail.h"
#include "kbench/dtype.h"

static const struct {
    const char *name;
    size_t size;
} dtype_table[KB_DTYPE_COUNT] = {
    [KB_BOOL] = {"bool", 1},     [KB_INT8] = {"int8", 1},     [KB_INT16] = {"int16", 2},
    [KB_INT32] = {"int32", 4},   [KB_INT64] = {"int64", 8},   [KB_UINT8] = {"uint8", 1},
    [KB_UINT16] = {"uint16", 2}, [KB_UINT32] = {"uint32", 4}, [KB_UINT64] = {"uint64", 8},
    [KB_F16] = {"float16", 2},   [KB_BF16] = {"bfloat16", 2}, [KB_F32] = {"float32", 4},
    [KB_F64] = {"float64", 8},
};

static const struct {
    const char *alias;
    kb_dtype dtype;
} aliases[] = {
    {"b1", KB_BOOL},  {"?", KB_BOOL},     {"i1", KB_INT8},   {"i2", KB_INT16},  {"i4", KB_INT32},
    {"i8", KB_INT64}, {"u1", KB_UINT8},   {"u2", KB_UINT16}, {"u4", KB_UINT32}, {"u8", KB_UINT64},
    {"f2", KB_F16},   {"f16", KB_F16},    {"half", KB_F16},  {"bf16", KB_BF16}, {"f4", KB_F32},
    {"f32", KB_F32},  {"single", KB_F32}, {"f8", KB_F64},    {"f64", KB_F64},   {"double", KB_F64},
};

static bool valid(kb_dtype dtype) {
    return (unsigned)dtype < KB_DTYPE_COUNT;
}

size_t kb_dtype_size(kb_dtype dtype) {
    return valid(dtype) ? dtype_table[dtype].size : 0;
}

const char *kb_dtype_name(kb_dtype dtype) {
    return valid(dtype) ? dtype_table[dtype].name : "?";
}

kb_status kb_dtype_from_name(const char *name, kb_dtype *out) {
    for (int d = 0; d < KB_DTYPE_COUNT; d++) {
        if (strcmp(name, dtype_table[d].name) == 0) {
            *out = (kb_dtype)d;
            return KB_OK;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].dtype;
            return KB_OK;
        }
    }
    return kb_fail(KB_EINVAL, "unknown dtype '%s'", name);
}

bool kb_dtype_is_float(kb_dtype dtype) {
    return dtype == KB_F16 || dtype == KB_BF16 || dtype == KB_F32 || dtype == KB_F64;
}

bool kb_dtype_is_integer(kb_dtype dtype) {
    return dtype >= KB_INT8 && dtype <= KB_UINT64;
}

bool kb_dtype_is_signed(kb_dtype dtype) {
    return (dtype >= KB_INT8 && dtype <= KB_INT64) || kb_dtype_is_float(dtype);
}
