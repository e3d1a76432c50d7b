/* The SVE level's table of float reduction kernels: the one compiled for the CPU's vector
 * length (reduce_sve128.c, reduce_sve256.c, reduce_sve512.c), or NEON's at a length none was
 * compiled for. SVE's sizeless types cannot be kept in the arrays the kernels unroll over, so
 * each length is its own build of the kernels (as Highway's SVE_256 and SVE2_128 targets are);
 * 128, 256 and 512 bits are the lengths of the SVE cores shipped so far (Neoverse N2 and V2,
 * V1, A64FX). */
#include "kbench/cpu.h"
#include "kernels/reduce_kernels.h"

const kb_reduce_kernels *kb_reduce_kernels_sve(void) {
    switch (kb_cpu_features_get()->sve_vector_bits) {
        case 128:
            return kb_reduce_kernels_sve128();
        case 256:
            return kb_reduce_kernels_sve256();
        case 512:
            return kb_reduce_kernels_sve512();
        default:
            return kb_reduce_kernels_neon();
    }
}
