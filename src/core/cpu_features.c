/* The instruction sets this CPU offers and the OS enables (CPUID and XGETBV, or HWCAP). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kbench/cpu.h"

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t read_xcr0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void detect(kb_cpu_features *f) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return;
    f->sse42 = c & bit_SSE4_2;
    /* Vector registers are usable only if the OS saves them on context switch: OSXSAVE set
     * and the matching state bits enabled in XCR0. */
    bool osxsave = c & bit_OSXSAVE;
    uint64_t xcr0 = osxsave ? read_xcr0() : 0;
    bool ymm_ok = (xcr0 & 0x6) == 0x6;             /* SSE and AVX state */
    bool zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0; /* opmask, ZMM0-15 upper, ZMM16-31 */
    f->avx = ymm_ok && (c & bit_AVX);
    f->fma = f->avx && (c & bit_FMA);
    f->f16c = f->avx && (c & bit_F16C);
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return;
    f->avx2 = f->avx && (b & bit_AVX2);
    f->avx512f = zmm_ok && (b & bit_AVX512F);
    f->avx512bw = f->avx512f && (b & bit_AVX512BW);
    f->avx512dq = f->avx512f && (b & bit_AVX512DQ);
    f->avx512vl = f->avx512f && (b & bit_AVX512VL);
}

#elif defined(__aarch64__)
#include <sys/auxv.h>
#include <sys/prctl.h>

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1 << 22)
#endif
#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51
#endif

static void detect(kb_cpu_features *f) {
    unsigned long hwcap = getauxval(AT_HWCAP);
    f->neon = hwcap & HWCAP_ASIMD;
    f->sve = hwcap & HWCAP_SVE;
    if (f->sve) {
        int vl = prctl(PR_SVE_GET_VL);
        f->sve_vector_bits = vl > 0 ? (vl & 0xffff) * 8 : 0;
    }
}

#else
static void detect(kb_cpu_features *f) {
    (void)f;
}
#endif

const kb_cpu_features *kb_cpu_features_get(void) {
    /* Detection is idempotent and cheap, so a race between first callers is harmless: both
     * write the same values. */
    static kb_cpu_features features;
    static _Atomic int detected;
    if (!detected) {
        kb_cpu_features f = {0};
        detect(&f);
        features = f;
        detected = 1;
    }
    return &features;
}

void kb_cpu_features_describe(const kb_cpu_features *f, char *buf, int size) {
    const struct {
        bool on;
        const char *name;
    } sets[] = {
        {f->sse42, "sse4.2"},      {f->avx, "avx"},           {f->f16c, "f16c"},
        {f->fma, "fma"},           {f->avx2, "avx2"},         {f->avx512f, "avx512f"},
        {f->avx512bw, "avx512bw"}, {f->avx512dq, "avx512dq"}, {f->avx512vl, "avx512vl"},
        {f->neon, "neon"},         {f->sve, "sve"},
    };
    int used = 0;
    if (size > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        if (!sets[i].on || used >= size)
            continue;
        int n = snprintf(buf + used, (size_t)(size - used), "%s%s", used ? "," : "", sets[i].name);
        if (n > 0)
            used += n;
    }
}
