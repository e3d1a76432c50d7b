/* The float elementwise loops of the scalar level: C and libm, one element at a time. */
#include "kernels/ew_float_loops.h"

#define C_ENTRY(ENUM, name) [KB_EW_##ENUM] = c_##name##_f32,
#define C_ENTRY64(ENUM, name) [KB_EW_##ENUM] = c_##name##_f64,

const kb_ew_float_table *kb_ew_float_table_scalar(void) {
    static const kb_ew_float_table table = {
        .f32 = {KB_EW_VECTOR_OPS(C_ENTRY) KB_EW_C_OPS(C_ENTRY)},
        .f64 = {KB_EW_VECTOR_OPS(C_ENTRY64) KB_EW_C_OPS(C_ENTRY64)},
        .exp_sum_f32 = c_exp_sum_f32,
        .exp_sum_f64 = c_exp_sum_f64,
    };
    return &table;
}
