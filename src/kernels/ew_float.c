/* The float elementwise loops of the level in force: the dispatch registry's "elementwise"
 * family. */
#include "core/dispatch.h"
#include "kernels/ew.h"
#include "kernels/ew_float_table.h"

#define TABLE(ID, name) KB_SIMD_TABLE_ENTRY(ID, kb_ew_float_table_##name)
static const kb_ew_float_table *(*const tables[KB_SIMD_LEVEL_COUNT])(void) = {
    KB_SIMD_ELEMENTWISE_TABLES(TABLE)};
#undef TABLE

kb_ew_loop kb_ew_float_loop(kb_ew_op op, kb_dtype dtype, kb_simd_level level, kb_reach reach) {
    if ((unsigned)level >= KB_SIMD_LEVEL_COUNT)
        level = KB_SIMD_SCALAR;
    if ((unsigned)op >= KB_EW_OP_COUNT || (dtype != KB_F32 && dtype != KB_F64))
        return NULL;
    const kb_ew_float_table *t = tables[kb_simd_table_level(KB_SIMD_FAMILY_ELEMENTWISE, level)]();
    bool f32 = dtype == KB_F32;
    kb_ew_loop nt = (f32 ? t->f32_nt : t->f64_nt)[op];
    kb_ew_loop far = (f32 ? t->f32_far : t->f64_far)[op];
    if (reach == KB_REACH_BEYOND && nt)
        return nt;
    if (reach >= KB_REACH_FAR && far)
        return far;
    return (f32 ? t->f32 : t->f64)[op];
}

kb_ew_exp_sum kb_ew_float_exp_sum(kb_dtype dtype, kb_simd_level level) {
    if ((unsigned)level >= KB_SIMD_LEVEL_COUNT)
        level = KB_SIMD_SCALAR;
    if (dtype != KB_F32 && dtype != KB_F64)
        return NULL;
    const kb_ew_float_table *t = tables[kb_simd_table_level(KB_SIMD_FAMILY_ELEMENTWISE, level)]();
    return dtype == KB_F32 ? t->exp_sum_f32 : t->exp_sum_f64;
}
