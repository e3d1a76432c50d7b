#ifndef KBENCH_CPU_H
#define KBENCH_CPU_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Instruction sets this CPU and operating system can execute, detected at run time. On
 * x86-64 a vector extension counts only when XGETBV shows the OS saves its registers. */
typedef struct kb_cpu_features {
    bool sse42, avx, f16c, fma, avx2;
    bool avx512f, avx512bw, avx512dq, avx512vl;
    bool neon, sve;
    int sve_vector_bits; /* 0 without SVE */
} kb_cpu_features;

/* Detects once, then returns the cached result. */
const kb_cpu_features *kb_cpu_features_get(void);

/* Comma-separated list of the detected instruction sets, such as "sse4.2,avx,avx2,fma". */
void kb_cpu_features_describe(const kb_cpu_features *features, char *buf, int size);

#ifdef __cplusplus
}
#endif

#endif
