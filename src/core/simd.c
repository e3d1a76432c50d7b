/* The kb_simd API: the level kernels dispatch to and the table each kernel family runs at
 * it, all derived from the registry in core/dispatch.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/dispatch.h"
#include "core/fail.h"
#include "kbench/cpu.h"
#include "kbench/simd.h"

/* The registry's promises, checked where the build can break them: rows in the enum's
 * order, a level compiled only for its own architecture, and a fallback chain that goes
 * down to scalar through levels compiled wherever the level is. */
enum level_order {
#define ROW(ID, name, built, arch, cpu, fallback) LEVEL_ROW_##ID,
    KB_SIMD_LEVELS(ROW)
#undef ROW
        LEVEL_ROWS
};
_Static_assert((int)LEVEL_ROWS == (int)KB_SIMD_LEVEL_COUNT, "one registry row per kb_simd_level");
#define CHECK(ID, name, built, arch, cpu, fallback)                                                \
    _Static_assert((int)LEVEL_ROW_##ID == (int)KB_SIMD_##ID, #name ": row in enum order");         \
    _Static_assert(!(built) || KB_SIMD_ARCH_##arch, #name ": compiled for another architecture");  \
    _Static_assert(!(built) || KB_SIMD_BUILT_##fallback, #name ": its fallback is not compiled");  \
    _Static_assert(KB_SIMD_##fallback < KB_SIMD_##ID || KB_SIMD_##ID == KB_SIMD_SCALAR,            \
                   #name ": the fallback chain must go down to scalar");
KB_SIMD_LEVELS(CHECK)
#undef CHECK

typedef struct level_row {
    const char *name;
    bool compiled;
    kb_simd_level fallback;
} level_row;

static const level_row levels[KB_SIMD_LEVEL_COUNT] = {
#define ROW(ID, name, built, arch, cpu, fallback)                                                  \
    [KB_SIMD_##ID] = {#name, built, KB_SIMD_##fallback},
    KB_SIMD_LEVELS(ROW)
#undef ROW
};

/* A family's tables as a bit per level that has one in this build. */
#define TABLE_BIT(ID, name) | (KB_SIMD_BUILT_##ID ? 1u << KB_SIMD_##ID : 0u)

enum family_order {
#define ROW(ID, name, TABLES) FAMILY_ROW_##ID,
    KB_SIMD_FAMILIES(ROW)
#undef ROW
        FAMILY_ROWS
};
_Static_assert((int)FAMILY_ROWS == (int)KB_SIMD_FAMILY_COUNT,
               "one registry row per kb_simd_family");
#define CHECK(ID, name, TABLES)                                                                    \
    _Static_assert((int)FAMILY_ROW_##ID == (int)KB_SIMD_FAMILY_##ID, #name ": row in enum order"); \
    _Static_assert((0u TABLES(TABLE_BIT)) & 1u << KB_SIMD_SCALAR,                                  \
                   #name ": needs the scalar table every fallback chain ends at");
KB_SIMD_FAMILIES(CHECK)
#undef CHECK

typedef struct family_row {
    const char *name;
    unsigned tables;
} family_row;

static const family_row families[KB_SIMD_FAMILY_COUNT] = {
#define ROW(ID, name, TABLES) [KB_SIMD_FAMILY_##ID] = {#name, 0u TABLES(TABLE_BIT)},
    KB_SIMD_FAMILIES(ROW)
#undef ROW
};

const char *kb_simd_name(kb_simd_level level) {
    return (unsigned)level < KB_SIMD_LEVEL_COUNT ? levels[level].name : "?";
}

const char *kb_simd_family_name(kb_simd_family family) {
    return (unsigned)family < KB_SIMD_FAMILY_COUNT ? families[family].name : "?";
}

kb_status kb_simd_parse(const char *name, int *request) {
    if (strcmp(name, "auto") == 0) {
        *request = KB_SIMD_AUTO_REQUEST;
        return KB_OK;
    }
    char expected[128] = "auto";
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        if (strcmp(name, levels[l].name) == 0) {
            *request = l;
            return KB_OK;
        }
        strcat(expected, l == KB_SIMD_LEVEL_COUNT - 1 ? " or " : ", ");
        strcat(expected, levels[l].name);
    }
    return kb_fail(KB_EINVAL, "unknown SIMD level '%s' (expected %s)", name, expected);
}

bool kb_simd_compiled(kb_simd_level level) {
    return (unsigned)level < KB_SIMD_LEVEL_COUNT && levels[level].compiled;
}

static bool cpu_supports(kb_simd_level level) {
    const kb_cpu_features *f = kb_cpu_features_get();
    switch (level) {
#define CPU(ID, name, built, arch, cpu, fallback)                                                  \
    case KB_SIMD_##ID:                                                                             \
        return cpu;
        KB_SIMD_LEVELS(CPU)
#undef CPU
        default:
            return false;
    }
}

bool kb_simd_available(kb_simd_level level) {
    return kb_simd_compiled(level) && cpu_supports(level);
}

kb_simd_level kb_simd_best(void) {
    for (int l = KB_SIMD_LEVEL_COUNT - 1; l > KB_SIMD_SCALAR; l--)
        if (kb_simd_available((kb_simd_level)l))
            return (kb_simd_level)l;
    return KB_SIMD_SCALAR;
}

kb_simd_level kb_simd_fallback(kb_simd_level level) {
    return (unsigned)level < KB_SIMD_LEVEL_COUNT ? levels[level].fallback : KB_SIMD_SCALAR;
}

kb_simd_level kb_simd_table_level(kb_simd_family family, kb_simd_level level) {
    if ((unsigned)family >= KB_SIMD_FAMILY_COUNT || (unsigned)level >= KB_SIMD_LEVEL_COUNT)
        return KB_SIMD_SCALAR;
    while (!(families[family].tables & 1u << level))
        level = levels[level].fallback;
    return level;
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
                       levels[level].name);
    if (!cpu_supports(level))
        return kb_fail(KB_EUNSUPPORTED, "SIMD level '%s' is not supported by this CPU",
                       levels[level].name);
    *out = level;
    return KB_OK;
}

/* The level set through the API wins; otherwise KB_SIMD, resolved once. An invalid KB_SIMD
 * is remembered as an error and reported by every kb_simd_current call. kb_simd_now holds
 * the level once either is known (core/dispatch.h), KB_SIMD's only if no level was set
 * meanwhile. */
_Atomic int kb_simd_now = -1;
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
        atomic_store(&kb_simd_now, (int)level);
    return st;
}

kb_status kb_simd_current(kb_simd_level *out) {
    if (kb_simd_known(out))
        return KB_OK;
    pthread_once(&env_once, resolve_env);
    if (env_status != KB_OK)
        return kb_fail(env_status, "KB_SIMD: %s", env_error);
    int now = -1; /* or the level set since, which wins */
    if (atomic_compare_exchange_strong(&kb_simd_now, &now, (int)env_level))
        now = (int)env_level;
    *out = (kb_simd_level)now;
    return KB_OK;
}
