/* Helpers shared by the unit tests: temporary directories (also used as fake root trees for
 * the code that reads /proc, /sys and /etc), whole-file reads and writes, and the tests' own
 * deterministic random numbers. Header-only: each test includes what it uses. */
#ifndef KB_TESTS_TEST_UTIL_H
#define KB_TESTS_TEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

/* ---- Temporary directories ----
 *
 * A fresh directory under $TMPDIR (or /tmp), removed with everything in it. Tests of code that
 * reads a machine's files under a root (kb_machine_probe_at, kb_env_check) write exactly the
 * files a machine would have into one, so that the result does not depend on the machine the
 * test runs on (or, under qemu-aarch64, on the host's /sys). */

typedef struct test_dir {
    char root[256];
} test_dir;

/* Returns 0 on success, -1 otherwise, so that it can serve as (part of) a group setup. */
static inline int test_dir_create(test_dir *d) {
    const char *tmp = getenv("TMPDIR");
    snprintf(d->root, sizeof d->root, "%s/kbench-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(d->root) ? 0 : -1;
}

/* root/name into buf (name may start with '/', as "/proc/cpuinfo" does); returns buf. */
static inline char *test_dir_path(const test_dir *d, const char *name, char *buf, size_t size) {
    int n = snprintf(buf, size, "%s%s%s", d->root, name[0] == '/' ? "" : "/", name);
    assert_true(n > 0 && (size_t)n < size);
    return buf;
}

/* Writes size bytes to path, replacing the file. */
static inline void test_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static inline void test_write_text(const char *path, const char *text) {
    test_write_file(path, text, strlen(text));
}

/* The whole file, with a NUL after its size bytes so that text can be read as a string;
 * the caller frees it. */
static inline void *test_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s: %s", path, strerror(errno));
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *size = (size_t)n;
    return buf;
}

/* Writes root/name with the given text, creating the directories on the way. */
static inline void test_dir_write(const test_dir *d, const char *name, const char *text) {
    char full[1024];
    test_dir_path(d, name, full, sizeof full);
    for (char *p = full + strlen(d->root) + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(full, 0755) != 0 && errno != EEXIST)
            fail_msg("cannot create %s: %s", full, strerror(errno));
        *p = '/';
    }
    test_write_text(full, text);
}

/* Entries in the directory itself, not below it. */
static inline int test_dir_count(const test_dir *d) {
    int n = 0;
    DIR *dir = opendir(d->root);
    assert_non_null(dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(dir);
    return n;
}

/* Entries in the directory root/name whose names end with suffix ("" for all), 0 when there
 * is no such directory. */
static inline int test_dir_count_in(const test_dir *d, const char *name, const char *suffix) {
    char path[1024];
    test_dir_path(d, name, path, sizeof path);
    DIR *dir = opendir(path);
    int n = 0;
    size_t ls = strlen(suffix);
    for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
        size_t le = strlen(e->d_name);
        n += e->d_name[0] != '.' && le >= ls && strcmp(e->d_name + le - ls, suffix) == 0;
    }
    if (dir)
        closedir(dir);
    return n;
}

static inline int test_dir_remove_one(const char *path, const struct stat *st, int flag,
                                      struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Returns 0 when everything was removed, -1 otherwise (for a group teardown). */
static inline int test_dir_destroy(test_dir *d) {
    int rc = 0;
    if (d->root[0])
        rc = nftw(d->root, test_dir_remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
    d->root[0] = '\0';
    return rc;
}

/* ---- Deterministic random numbers ----
 *
 * splitmix64: the tests' own generator, independent of the library's, so that a change to
 * the library's cannot change a test's data. Each test seeds its own state. */

typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline uint64_t test_rng_next(test_rng *r) {
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static inline int64_t test_rng_below(test_rng *r, int64_t n) {
    return (int64_t)(test_rng_next(r) % (uint64_t)n);
}

/* Uniform in [0, 1). */
static inline double test_rng_unit(test_rng *r) {
    return (double)(test_rng_next(r) >> 11) * 0x1p-53;
}

/* Uniform in (0, 1): never 0, so that its logarithm is finite. */
static inline double test_rng_open_unit(test_rng *r) {
    return ((double)(test_rng_next(r) >> 11) + 0.5) * 0x1p-53;
}

/* Standard normal (Box-Muller). */
static inline double test_rng_normal(test_rng *r) {
    return sqrt(-2 * log(test_rng_open_unit(r))) * cos(2 * M_PI * test_rng_open_unit(r));
}

#endif
