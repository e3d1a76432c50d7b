/* Compiled kernels (expr/kernel_compile.h): the source compiled into the cache directory by the
 * C compiler, loaded with dlopen, kept in a table for the process. */
#include "expr/kernel_compile.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cache_dir.h"
#include "core/cleanup.h"
#include "core/internal.h"
#include "util/hash.h"
#include "util/make_dirs.h"

extern char **environ;

/* What the build gives (src/CMakeLists.txt): the compiler, the source tree, SLEEF's header
 * directory and library, and each level's flags. */
#ifndef KB_CK_COMPILER
#define KB_CK_COMPILER "cc"
#endif
#ifndef KB_CK_SOURCE_DIR
#define KB_CK_SOURCE_DIR ""
#endif
#ifndef KB_CK_SLEEF_INCLUDE
#define KB_CK_SLEEF_INCLUDE "/usr/include"
#endif
#ifndef KB_CK_SLEEF_LIBRARY
#define KB_CK_SLEEF_LIBRARY "-lsleef"
#endif
#ifndef KB_CK_FLAGS_AVX2
#define KB_CK_FLAGS_AVX2 ""
#endif
#ifndef KB_CK_FLAGS_AVX512
#define KB_CK_FLAGS_AVX512 ""
#endif
#ifndef KB_CK_FLAGS_NEON
#define KB_CK_FLAGS_NEON ""
#endif

/* The headers a kernel's source includes, beyond SLEEF's, under the source tree's src/. */
static const char *const headers[] = {"simd/internal.h",   "simd/vec_avx2.h",
                                      "simd/vec_avx512.h", "simd/vec_neon.h",
                                      "simd/vmath.h",      "kernels/ew_float_bodies.h"};

typedef struct entry {
    uint64_t key;
    kb_ck_fn fn;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static int count, capacity;
static uint64_t headers_hash; /* 0 until read */
static char broken[512];      /* why no kernel can be compiled with broken_cc, once known */
static char broken_cc[4096];

kb_status kb_ck_policy(int *policy) {
    const char *v = getenv("KB_COMPILE");
    if (!v || !*v || strcmp(v, "auto") == 0)
        *policy = KB_CK_AUTO;
    else if (strcmp(v, "0") == 0)
        *policy = KB_CK_NEVER;
    else if (strcmp(v, "1") == 0)
        *policy = KB_CK_ALWAYS;
    else
        return kb_fail(KB_EINVAL, "KB_COMPILE is '%s'; it takes 0, 1 or auto", v);
    return KB_OK;
}

/* The hash of the headers' contents, or 0 with broken set when one cannot be read. */
static uint64_t hash_headers(void) {
    uint64_t h = KB_FNV1A_OFFSET;
    for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/src/%s", KB_CK_SOURCE_DIR, headers[i]);
        FILE *f = fopen(path, "rb");
        if (!f) {
            snprintf(broken, sizeof broken,
                     "cannot read %.300s (%s): compiled kernels include "
                     "the headers of the source tree kbench was built from",
                     path, strerror(errno));
            return 0;
        }
        char buf[8192];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            h = kb_fnv1a_bytes(h, buf, n);
        fclose(f);
    }
    return h ? h : 1;
}

/* Splits flags at spaces into argv from *argc on (at most max in all). */
static void add_words(char *flags, const char **argv, int *argc, int max) {
    for (char *w = strtok(flags, " "); w && *argc < max; w = strtok(NULL, " "))
        argv[(*argc)++] = w;
}

/* Runs the compiler on c_path into so_path, its output into log_path. */
static kb_status run_compiler(const char *compiler, const char *flags, const char *c_path,
                              const char *so_path, const char *log_path) {
    char words[1024], include[4200], sleef_include[4200];
    snprintf(words, sizeof words, "%s", flags);
    snprintf(include, sizeof include, "-I%s/src", KB_CK_SOURCE_DIR);
    snprintf(sleef_include, sizeof sleef_include, "-I%s", KB_CK_SLEEF_INCLUDE);
    const char *argv[64];
    int argc = 0;
    const char *fixed[] = {compiler, "-std=c17", "-O3", "-ffp-contract=off",
                           "-fPIC",  "-shared",  "-w"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        argv[argc++] = fixed[i];
    add_words(words, argv, &argc, 48);
    const char *rest[] = {include, sleef_include,       "-o",  so_path,
                          c_path,  KB_CK_SLEEF_LIBRARY, "-lm", NULL};
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++)
        argv[argc++] = rest[i];
    posix_spawn_file_actions_t actions;
    if (posix_spawn_file_actions_init(&actions) != 0)
        return kb_fail(KB_ENOMEM, "cannot start the compiler");
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid;
    int err = posix_spawnp(&pid, compiler, &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (err != 0) {
        snprintf(broken, sizeof broken, "cannot run the C compiler %s: %s (KB_CC names another)",
                 compiler, strerror(err));
        return kb_fail(KB_EUNSUPPORTED, "%s", broken);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return kb_fail(KB_EUNSUPPORTED, "lost the compiler: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return KB_OK;
    char said[300] = "";
    FILE *log = fopen(log_path, "r");
    if (log) {
        size_t n = fread(said, 1, sizeof said - 1, log);
        said[n] = '\0';
        fclose(log);
        for (char *c = said; *c; c++)
            if (*c == '\n')
                *c = ' ';
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) { /* the exec failed in the child */
        snprintf(broken, sizeof broken, "cannot run the C compiler %s (KB_CC names another)",
                 compiler);
        return kb_fail(KB_EUNSUPPORTED, "%s", broken);
    }
    return kb_fail(KB_EUNSUPPORTED, "the C compiler %s failed on a kernel: %s", compiler, said);
}

/* The temporaries' names: stem-XXXXXX.c, and the same stem with .so and .log. */
typedef struct temps {
    char c[4200], so[4200], log[4200];
    bool made;
} temps;

static void temps_remove(temps *t) {
    if (!t->made)
        return;
    sigset_t old;
    kb_cleanup_hold(&old);
    const char *paths[] = {t->c, t->so, t->log};
    for (int i = 0; i < 3; i++) {
        unlink(paths[i]);
        kb_cleanup_forget(paths[i]);
    }
    kb_cleanup_release(&old);
    t->made = false;
}

/* Writes the source to a new temporary beside final, then compiles it and renames the object
 * into place. */
static kb_status compile_into(const char *source, const char *dir, uint64_t key, const char *cc,
                              const char *flags, const char *final) {
    temps t = {.made = false};
    snprintf(t.c, sizeof t.c, "%s/k-%016llx-XXXXXX.c", dir, (unsigned long long)key);
    sigset_t old;
    kb_cleanup_hold(&old);
    int fd = mkstemps(t.c, 2);
    if (fd >= 0) {
        size_t stem = strlen(t.c) - 2;
        snprintf(t.so, sizeof t.so, "%.*s.so", (int)stem, t.c);
        snprintf(t.log, sizeof t.log, "%.*s.log", (int)stem, t.c);
        /* removed on a signal where the table has room (KB_CLEANUP_MAX), else only here */
        (void)kb_cleanup_add(t.c);
        (void)kb_cleanup_add(t.so);
        (void)kb_cleanup_add(t.log);
        t.made = true;
    }
    kb_cleanup_release(&old);
    if (fd < 0)
        return kb_fail(KB_EUNSUPPORTED, "cannot write a kernel into %s: %s", dir, strerror(errno));
    size_t n = strlen(source);
    bool written = write(fd, source, n) == (ssize_t)n;
    written &= close(fd) == 0;
    if (!written) {
        temps_remove(&t);
        return kb_fail(KB_EUNSUPPORTED, "cannot write a kernel into %s", dir);
    }
    kb_status st = run_compiler(cc, flags, t.c, t.so, t.log);
    if (st == KB_OK) {
        kb_cleanup_hold(&old);
        if (rename(t.so, final) != 0)
            st = kb_fail(KB_EUNSUPPORTED, "cannot move a kernel to %s: %s", final, strerror(errno));
        kb_cleanup_release(&old);
    }
    temps_remove(&t);
    return st;
}

static kb_status load(const char *path, kb_ck_fn *fn) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return kb_fail(KB_EUNSUPPORTED, "cannot load the kernel %s: %s", path, dlerror());
    void *f = dlsym(h, KB_CK_SYMBOL);
    if (!f) {
        dlclose(h);
        return kb_fail(KB_EUNSUPPORTED, "%s has no %s", path, KB_CK_SYMBOL);
    }
    /* dlsym's object pointer as the function it is (POSIX guarantees the conversion) */
    memcpy(fn, &f, sizeof *fn);
    return KB_OK;
}

/* The kernel's identity in this process's table: its description and level, and the
 * compiler; the same kernel has the same source. */
static uint64_t kernel_key(const kb_ck *k, kb_simd_level level, const char *cc) {
    int head[6] = {(int)level, (int)k->type, k->ninputs, k->nconsts, k->nouts, k->nops};
    uint64_t h = kb_fnv1a_bytes(KB_FNV1A_OFFSET, head, sizeof head);
    for (int i = 0; i < k->nops; i++) {
        const kb_ck_op *o = &k->ops[i];
        int op[6] = {
            (int)o->op, o->nin, o->in[0], o->nin > 1 ? o->in[1] : 0, o->nin > 2 ? o->in[2] : 0,
            o->out};
        h = kb_fnv1a_bytes(h, op, sizeof op);
    }
    return kb_fnv1a_bytes(h, cc, strlen(cc));
}

static kb_status compile_locked(const kb_ck *k, kb_simd_level level, kb_ck_fn *fn) {
    const char *flags = level == KB_SIMD_AVX512 ? KB_CK_FLAGS_AVX512
                        : level == KB_SIMD_AVX2 ? KB_CK_FLAGS_AVX2
                        : level == KB_SIMD_NEON ? KB_CK_FLAGS_NEON
                                                : "";
    if (!*flags)
        return kb_fail(KB_EUNSUPPORTED, "this build compiles no kernels at simd=%s",
                       kb_simd_name(level));
    const char *cc = getenv("KB_CC");
    cc = cc && *cc ? cc : KB_CK_COMPILER;
    uint64_t id = kernel_key(k, level, cc);
    for (int i = 0; i < count; i++)
        if (table[i].key == id) {
            *fn = table[i].fn;
            return KB_OK;
        }
    if (broken[0] && strcmp(broken_cc, cc) == 0)
        return kb_fail(KB_EUNSUPPORTED, "%s", broken);
    broken[0] = '\0';
    snprintf(broken_cc, sizeof broken_cc, "%s", cc);
    if (!headers_hash && !(headers_hash = hash_headers()))
        return kb_fail(KB_EUNSUPPORTED, "%s", broken);
    char *source;
    kb_status st = kb_ck_source(k, level, &source);
    if (st != KB_OK)
        return st;
    /* the shared object's name: what its contents depend on */
    uint64_t key = kb_fnv1a_bytes(headers_hash, source, strlen(source));
    key = kb_fnv1a_bytes(key, flags, strlen(flags));
    key = kb_fnv1a_bytes(key, cc, strlen(cc));
    char dir[4096], final[4200];
    st = kb_cache_dir(dir, sizeof dir - 16);
    if (st == KB_OK) {
        strcat(dir, "/kernels");
        st = kb_make_dirs(dir);
    }
    if (st != KB_OK) {
        free(source);
        snprintf(broken, sizeof broken, "%s", kb_last_error());
        return kb_fail(KB_EUNSUPPORTED, "%s", broken);
    }
    snprintf(final, sizeof final, "%s/k-%016llx.so", dir, (unsigned long long)key);
    if (access(final, R_OK) != 0)
        st = compile_into(source, dir, key, cc, flags, final);
    free(source);
    if (st != KB_OK || (st = load(final, fn)) != KB_OK)
        return st;
    if (count == capacity) {
        int grown = capacity ? 2 * capacity : 16;
        entry *t = realloc(table, (size_t)grown * sizeof *t);
        if (!t)
            return KB_OK; /* loaded, only not remembered */
        table = t;
        capacity = grown;
    }
    table[count++] = (entry){id, *fn};
    return KB_OK;
}

kb_status kb_ck_compile(const kb_ck *k, kb_simd_level level, kb_ck_fn *fn) {
    pthread_mutex_lock(&lock);
    kb_status st = compile_locked(k, level, fn);
    pthread_mutex_unlock(&lock);
    return st;
}
