/* The float elementwise loops of the level in force: the dispatch registry's "elementwise"
 * family. */
#include "core/dispatch.h"
#include "kernels/ew.h"
#include "kernels/ew_float_table.h"

#define TABLE(ID, name) KB_SIMD_TABLE_ENTRY(ID, kb_ew_float_table_##name)
static const kb_ew_float_table *(*const tables[KB_SIMD_LEVEL_COUNT])(void) = {
    KB_SIMD_ELEMENTWISE_TABLES(TABLE)};
#undef TABLE

kb_ew_loop kb_ew_float_loop(kb_ew_op op, kb_dtype dtype, kb_simd_level level, bool far) {
    if ((unsigned)level >= KB_SIMD_LEVEL_COUNT)
        level = KB_SIMD_SCALAR;
    if ((unsigned)op >= KB_EW_OP_COUNT)
        return NULL;
    const kb_ew_float_table *t = tables[kb_simd_table_level(KB_SIMD_FAMILY_ELEMENTWISE, level)]();
    if (dtype == KB_F32)
        return far && t->f32_far[op] ? t->f32_far[op] : t->f32[op];
    if (dtype == KB_F64)
        return far && t->f64_far[op] ? t->f64_far[op] : t->f64[op];
    return NULL;
}
