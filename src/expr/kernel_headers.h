#ifndef KB_EXPR_KERNEL_HEADERS_H
#define KB_EXPR_KERNEL_HEADERS_H

#include <stddef.h>

/* The headers a compiled kernel's source includes (expr/kernel_compile.c), byte for byte as this
 * build compiled its own loops with them, generated at build time by cmake/embed_file.cmake. */
extern const char kb_ck_internal_h[], kb_ck_vec_avx2_h[], kb_ck_vec_avx512_h[], kb_ck_vec_neon_h[],
    kb_ck_vmath_h[], kb_ck_ew_float_bodies_h[];
extern const size_t kb_ck_internal_h_size, kb_ck_vec_avx2_h_size, kb_ck_vec_avx512_h_size,
    kb_ck_vec_neon_h_size, kb_ck_vmath_h_size, kb_ck_ew_float_bodies_h_size;

#endif
