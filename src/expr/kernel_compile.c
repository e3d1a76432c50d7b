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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/atomic_file.h"
#include "core/cache_dir.h"
#include "core/cleanup.h"
#include "core/internal.h"
#include "expr/kernel_headers.h"
#include "util/hash.h"
#include "util/make_dirs.h"

extern char **environ;

/* What the build gives (src/CMakeLists.txt): the compiler, SLEEF's header directory and
 * library, and each level's flags (empty: the build has no kernels of that level). */
#ifndef KB_CK_COMPILER
#define KB_CK_COMPILER "cc"
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

/* The headers a kernel's source includes beyond the system's and SLEEF's, as this build
 * compiled its loops with them (expr/kernel_headers.h): written once under the cache
 * directory, in a folder named by their hash, so that a kernel never sees a source tree that
 * moved on since the build, and an installed kbench needs none. */
typedef struct header {
    const char *path;
    const char *text;
    const size_t *size;
} header;
static const header headers[] = {
    {"simd/internal.h", kb_ck_internal_h, &kb_ck_internal_h_size},
    {"simd/vec_avx2.h", kb_ck_vec_avx2_h, &kb_ck_vec_avx2_h_size},
    {"simd/vec_avx512.h", kb_ck_vec_avx512_h, &kb_ck_vec_avx512_h_size},
    {"simd/vec_neon.h", kb_ck_vec_neon_h, &kb_ck_vec_neon_h_size},
    {"simd/vmath.h", kb_ck_vmath_h, &kb_ck_vmath_h_size},
    {"kernels/ew_float_bodies.h", kb_ck_ew_float_bodies_h, &kb_ck_ew_float_bodies_h_size},
};
enum { NHEADERS = sizeof headers / sizeof *headers };

/* A kernel of this process: its function, or why it could not be had (fn NULL), so that a
 * failure costs one compilation, not one a call. */
typedef struct entry {
    uint64_t key;
    kb_ck_fn fn;
    char *why;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static int count, capacity;
/* A compiler that cannot be run at all, and why: every kernel would fail the same way. */
static char broken[512], broken_cc[1024];

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

/* The last error again, as KB_EUNSUPPORTED (kb_fail reads its format's arguments after it has
 * begun to write the message they may point into). */
static kb_status unsupported_again(void) {
    char message[1024];
    snprintf(message, sizeof message, "%s", kb_last_error());
    return kb_fail(KB_EUNSUPPORTED, "%s", message);
}

/* The compiler's command line, but for the files: the fixed flags, the level's, the headers'
 * folder and SLEEF's. */
typedef struct command {
    const char *argv[64];
    int argc;
    char words[1024], include[4400], sleef_include[4200];
} command;

static void command_init(command *c, const char *cc, const char *flags, const char *include) {
    const char *fixed[] = {cc, "-std=c17", "-O3", "-ffp-contract=off", "-fPIC", "-shared", "-w"};
    c->argc = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        c->argv[c->argc++] = fixed[i];
    snprintf(c->words, sizeof c->words, "%s", flags);
    char *save = NULL;
    for (char *w = strtok_r(c->words, " ", &save); w && c->argc < 48;
         w = strtok_r(NULL, " ", &save))
        c->argv[c->argc++] = w;
    snprintf(c->include, sizeof c->include, "-I%s", include);
    snprintf(c->sleef_include, sizeof c->sleef_include, "-I%s", KB_CK_SLEEF_INCLUDE);
    c->argv[c->argc++] = c->include;
    c->argv[c->argc++] = c->sleef_include;
}

/* h continued with a file's size and time of change (the compiler, sleef.h): an upgrade makes
 * new kernels. A path without a slash is found in PATH by the spawn; its name alone counts. */
static uint64_t hash_file_stamp(uint64_t h, const char *path) {
    struct stat st;
    if (strchr(path, '/') && stat(path, &st) == 0) {
        int64_t stamp[3] = {(int64_t)st.st_size, (int64_t)st.st_mtime, (int64_t)st.st_ino};
        h = kb_fnv1a_bytes(h, stamp, sizeof stamp);
    }
    return kb_fnv1a_bytes(h, path, strlen(path));
}

static kb_status write_header(FILE *f, void *context) {
    const header *h = context;
    if (fwrite(h->text, 1, *h->size, f) != *h->size)
        return kb_fail(KB_EIO, "short write");
    return KB_OK;
}

/* The headers' folder under dir (written where a header is missing, each file whole or not at
 * all), into include. */
static kb_status write_headers(const char *dir, uint64_t hash, char *include, size_t size) {
    snprintf(include, size, "%s/h-%016llx", dir, (unsigned long long)hash);
    for (int i = 0; i < NHEADERS; i++) {
        char path[4400], folder[4400];
        snprintf(path, sizeof path, "%s/%s", include, headers[i].path);
        if (access(path, R_OK) == 0)
            continue;
        snprintf(folder, sizeof folder, "%s", path);
        *strrchr(folder, '/') = '\0';
        KB_TRY(kb_make_dirs(folder));
        KB_TRY(kb_atomic_write(path, write_header, (void *)&headers[i]));
    }
    return KB_OK;
}

/* Runs the compiler's command on c_path into so_path, its output into log_path. */
static kb_status run_compiler(command *cmd, const char *c_path, const char *so_path,
                              const char *log_path) {
    const char *cc = cmd->argv[0];
    int argc = cmd->argc;
    const char *rest[] = {"-o", so_path, c_path, KB_CK_SLEEF_LIBRARY, "-lm", NULL};
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++)
        cmd->argv[argc++] = rest[i];
    posix_spawn_file_actions_t actions;
    if (posix_spawn_file_actions_init(&actions) != 0)
        return kb_fail(KB_EUNSUPPORTED, "cannot start the C compiler: out of memory");
    int err = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (!err)
        err = posix_spawn_file_actions_addopen(&actions, 1, log_path, O_WRONLY | O_TRUNC, 0600);
    if (!err)
        err = posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid;
    if (!err)
        err = posix_spawnp(&pid, cc, &actions, NULL, (char *const *)cmd->argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (err == ENOENT || err == EACCES) {
        snprintf(broken, sizeof broken,
                 "cannot run the C compiler %.300s: %s (KB_CC names another)", cc, strerror(err));
        snprintf(broken_cc, sizeof broken_cc, "%s", cc);
        return kb_fail(KB_EUNSUPPORTED, "%s", broken);
    }
    if (err)
        return kb_fail(KB_EUNSUPPORTED, "cannot start the C compiler %s: %s", cc, strerror(err));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return kb_fail(KB_EUNSUPPORTED, "lost the C compiler: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return KB_OK;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) { /* the exec failed in the child */
        snprintf(broken, sizeof broken, "cannot run the C compiler %.300s (KB_CC names another)",
                 cc);
        snprintf(broken_cc, sizeof broken_cc, "%s", cc);
        return kb_fail(KB_EUNSUPPORTED, "%s", broken);
    }
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
    return kb_fail(KB_EUNSUPPORTED, "the C compiler %s failed on a kernel: %s", cc, said);
}

/* The temporaries' names: stem-XXXXXX.c, and the same stem with .so and .log. */
typedef struct temps {
    char c[4200], so[4200], log[4200];
} temps;

/* Creates the three temporaries, registered for removal on a signal where the table has room
 * (KB_CLEANUP_MAX), else removed only by temps_remove. The .c file's descriptor, or -1. */
static int temps_create(temps *t, const char *dir, uint64_t key) {
    snprintf(t->c, sizeof t->c, "%s/k-%016llx-XXXXXX.c", dir, (unsigned long long)key);
    sigset_t old;
    kb_cleanup_hold(&old);
    int fd = mkstemps(t->c, 2);
    if (fd >= 0) {
        size_t stem = strlen(t->c) - 2;
        snprintf(t->so, sizeof t->so, "%.*s.so", (int)stem, t->c);
        snprintf(t->log, sizeof t->log, "%.*s.log", (int)stem, t->c);
        (void)kb_cleanup_add(t->c);
        int log = open(t->log, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (log >= 0) {
            close(log);
            (void)kb_cleanup_add(t->log);
        }
        (void)kb_cleanup_add(t->so);
    }
    kb_cleanup_release(&old);
    return fd;
}

static void temps_remove(const temps *t) {
    sigset_t old;
    kb_cleanup_hold(&old);
    const char *paths[] = {t->c, t->so, t->log};
    for (int i = 0; i < 3; i++) {
        unlink(paths[i]);
        kb_cleanup_forget(paths[i]);
    }
    kb_cleanup_release(&old);
}

/* Writes the source to a new temporary in dir, compiles it and renames the object to final. */
static kb_status compile_into(const char *source, const char *dir, uint64_t key, command *cmd,
                              const char *final) {
    temps t;
    int fd = temps_create(&t, dir, key);
    if (fd < 0)
        return kb_fail(KB_EUNSUPPORTED, "cannot write a kernel into %s: %s", dir, strerror(errno));
    size_t n = strlen(source);
    bool written = write(fd, source, n) == (ssize_t)n;
    written &= close(fd) == 0;
    kb_status st = written ? run_compiler(cmd, t.c, t.so, t.log)
                           : kb_fail(KB_EUNSUPPORTED, "cannot write a kernel into %s", dir);
    if (st == KB_OK) {
        sigset_t old;
        kb_cleanup_hold(&old);
        if (rename(t.so, final) != 0)
            st = kb_fail(KB_EUNSUPPORTED, "cannot move a kernel to %s: %s", final, strerror(errno));
        kb_cleanup_release(&old);
    }
    temps_remove(&t);
    return st;
}

/* Loads the object at path: only one this user owns and no one else may write, as it runs
 * with kbench's rights. */
static kb_status load(const char *path, kb_ck_fn *fn) {
    struct stat st;
    if (stat(path, &st) != 0)
        return kb_fail(KB_EUNSUPPORTED, "cannot read the kernel %s: %s", path, strerror(errno));
    if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
        return kb_fail(KB_EUNSUPPORTED,
                       "not loading the kernel %s: another user owns it or may write it", path);
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

/* The kernel's identity in this process's table: its description, level and compiler; the
 * same kernel has the same source. */
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

/* The kernel compiled or loaded: the headers' folder, the object named by the hash of all it
 * depends on (source, headers, command line, compiler, sleef.h), compiled where missing, and
 * compiled again once where the one there does not load (built elsewhere, or damaged).
 * *kernels: a failure is this kernel's, not the cache directory's. */
static kb_status obtain(const kb_ck *k, kb_simd_level level, const char *cc, const char *flags,
                        kb_ck_fn *fn, bool *kernels) {
    *kernels = false;
    char dir[4096], include[4200], final[4200];
    KB_TRY(kb_cache_dir(dir, sizeof dir - 16));
    strcat(dir, "/kernels");
    KB_TRY(kb_make_dirs(dir));
    uint64_t headers_hash = KB_FNV1A_OFFSET;
    for (int i = 0; i < NHEADERS; i++) {
        headers_hash = kb_fnv1a_bytes(headers_hash, headers[i].path, strlen(headers[i].path));
        headers_hash = kb_fnv1a_bytes(headers_hash, headers[i].text, *headers[i].size);
    }
    KB_TRY(write_headers(dir, headers_hash, include, sizeof include));
    char *source;
    KB_TRY(kb_ck_source(k, level, &source));
    command cmd;
    command_init(&cmd, cc, flags, include);
    uint64_t key = kb_fnv1a_bytes(headers_hash, source, strlen(source));
    for (int i = 1; i < cmd.argc; i++)
        if (cmd.argv[i] != cmd.include) /* the folder's name is the headers' hash */
            key = kb_fnv1a_bytes(key, cmd.argv[i], strlen(cmd.argv[i]) + 1);
    key = kb_fnv1a_bytes(key, KB_CK_SLEEF_LIBRARY, strlen(KB_CK_SLEEF_LIBRARY));
    key = hash_file_stamp(key, cc);
    char sleef_h[4200];
    snprintf(sleef_h, sizeof sleef_h, "%s/sleef.h", KB_CK_SLEEF_INCLUDE);
    key = hash_file_stamp(key, sleef_h);
    snprintf(final, sizeof final, "%s/k-%016llx.so", dir, (unsigned long long)key);
    /* from here on, a failure is this kernel's (the compiler's, or its object's) */
    *kernels = true;
    kb_status st = KB_OK;
    bool loaded = false;
    if (access(final, R_OK) == 0 && !(loaded = load(final, fn) == KB_OK) && unlink(final) != 0)
        st = unsupported_again();
    if (!loaded && st == KB_OK && (st = compile_into(source, dir, key, &cmd, final)) == KB_OK)
        st = load(final, fn);
    free(source);
    return st;
}

static kb_status compile_locked(const kb_ck *k, kb_simd_level level, kb_ck_fn *fn) {
    *fn = NULL;
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
            return *fn ? KB_OK : kb_fail(KB_EUNSUPPORTED, "%s", table[i].why);
        }
    if (broken[0] && strcmp(broken_cc, cc) == 0)
        return kb_fail(KB_EUNSUPPORTED, "%s", broken);
    bool kernels;
    kb_status st = obtain(k, level, cc, flags, fn, &kernels);
    if (st == KB_ENOMEM)
        return st;
    /* A compiler that cannot be run is remembered by its name (above); a kernel that failed to
     * compile or load, by the kernel; a cache directory that cannot be had is not remembered
     * (KB_CACHE_DIR may be set again, and finding out costs no compilation). */
    bool remember = *fn || (kernels && !(broken[0] && strcmp(broken_cc, cc) == 0));
    if (remember && count == capacity) {
        int grown = capacity ? 2 * capacity : 16;
        entry *t = realloc(table, (size_t)grown * sizeof *t);
        remember = t != NULL;
        if (t) {
            table = t;
            capacity = grown;
        }
    }
    char *why = remember && !*fn ? strdup(kb_last_error()) : NULL;
    if (remember && (*fn || why))
        table[count++] = (entry){id, *fn, why};
    if (st != KB_OK)
        return unsupported_again();
    return KB_OK;
}

kb_status kb_ck_compile(const kb_ck *k, kb_simd_level level, kb_ck_fn *fn) {
    pthread_mutex_lock(&lock);
    kb_status st = compile_locked(k, level, fn);
    pthread_mutex_unlock(&lock);
    return st;
}
