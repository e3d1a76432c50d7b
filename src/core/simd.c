#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/fail.h"
#include "kbench/cpu.h"
#include "kbench/simd.h"

static const char *const level_names[KB_SIMD_LEVEL_COUNT] = {
    [KB_SIMD_SCALAR] = "scalar", [KB_SIMD_AVX2] = "avx2", [KB_SIMD_AVX512] = "avx512",
    [KB_SIMD_NEON] = "neon",     [KB_SIMD_SVE] = "sve",
};

const char *kb_simd_name(kb_simd_level level) {
    return (unsigned)level < KB_SIMD_LEVEL_COUNT ? level_names[level] : "?";
}

kb_status kb_simd_parse(const char *name, int *request) {
    if (strcmp(name, "auto") == 0) {
        *request = KB_SIMD_AUTO_REQUEST;
        return KB_OK;
    }
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        if (strcmp(name, level_names[l]) == 0) {
            *request = l;
            return KB_OK;
        }
    }
    return kb_fail(KB_EINVAL,
                   "unknown SIMD level '%s' (expected auto, scalar, avx2, avx512, "
                   "neon or sve)",
                   name);
}

bool kb_simd_compiled(kb_simd_level level) {
    switch (level) {
        case KB_SIMD_SCALAR:
            return true;
#ifdef KB_BUILD_AVX2
        case KB_SIMD_AVX2:
            return true;
#endif
#ifdef KB_BUILD_AVX512
        case KB_SIMD_AVX512:
            return true;
#endif
#ifdef KB_BUILD_NEON
        case KB_SIMD_NEON:
            return true;
#endif
#ifdef KB_BUILD_SVE
        case KB_SIMD_SVE:
            return true;
#endif
        default:
            return false;
    }
}

static bool cpu_supports(kb_simd_level level) {
    const kb_cpu_features *f = kb_cpu_features_get();
    switch (level) {
        case KB_SIMD_SCALAR:
            return true;
        case KB_SIMD_AVX2:
            return f->avx2 && f->fma;
        case KB_SIMD_AVX512:
            return f->avx512f && f->avx512bw && f->avx512dq && f->avx512vl;
        case KB_SIMD_NEON:
            return f->neon;
        case KB_SIMD_SVE:
            return f->sve;
        default:
            return false;
    }
}

bool kb_simd_available(kb_simd_level level) {
    return kb_simd_compiled(level) && cpu_supports(level);
}

kb_simd_level kb_simd_best(void) {
    static const kb_simd_level preference[] = {KB_SIMD_AVX512, KB_SIMD_SVE, KB_SIMD_AVX2,
                                               KB_SIMD_NEON};
    for (size_t i = 0; i < sizeof preference / sizeof preference[0]; i++)
        if (kb_simd_available(preference[i]))
            return preference[i];
    return KB_SIMD_SCALAR;
}

static kb_status check_available(int request, kb_simd_level *out) {
    if (request == KB_SIMD_AUTO_REQUEST) {
        *out = kb_simd_best();
        return KB_OK;
    }
    if (request < 0 || request >= KB_SIMD_LEVEL_COUNT)
        return kb_fail(KB_EINVAL, "invalid SIMD level %d", request);
    kb_simd_level level = (kb_simd_level)request;
    if (!kb_simd_compiled(level))
        return kb_fail(KB_EUNSUPPORTED, "SIMD level '%s' is not compiled into this build",
                       level_names[level]);
    if (!cpu_supports(level))
        return kb_fail(KB_EUNSUPPORTED, "SIMD level '%s' is not supported by this CPU",
                       level_names[level]);
    *out = level;
    return KB_OK;
}

/* The level set through the API wins; otherwise KB_SIMD, resolved once. An invalid KB_SIMD
 * is remembered as an error and reported by every kb_simd_current call. */
static _Atomic int api_level = -1;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static kb_simd_level env_level;
static kb_status env_status;
static char env_error[256];

static void resolve_env(void) {
    const char *value = getenv("KB_SIMD");
    int request = KB_SIMD_AUTO_REQUEST;
    kb_status st = value && *value ? kb_simd_parse(value, &request) : KB_OK;
    if (st == KB_OK)
        st = check_available(request, &env_level);
    env_status = st;
    if (st != KB_OK)
        strncpy(env_error, kb_last_error(), sizeof env_error - 1);
}

kb_status kb_simd_set(int request) {
    kb_simd_level level;
    kb_status st = check_available(request, &level);
    if (st == KB_OK)
        atomic_store(&api_level, (int)level);
    return st;
}

kb_status kb_simd_current(kb_simd_level *out) {
    int set = atomic_load(&api_level);
    if (set >= 0) {
        *out = (kb_simd_level)set;
        return KB_OK;
    }
    pthread_once(&env_once, resolve_env);
    if (env_status != KB_OK)
        return kb_fail(env_status, "KB_SIMD: %s", env_error);
    *out = env_level;
    return KB_OK;
}
