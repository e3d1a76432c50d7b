/* A fake root directory for tests of code that reads /proc, /sys and /etc under a root
 * (kb_machine_probe_at, kb_env_check): each test builds exactly the files a machine would
 * have, so the result does not depend on the machine the test runs on (or, under
 * qemu-aarch64, on the host's /sys). */
#ifndef KB_TESTS_FAKE_TREE_H
#define KB_TESTS_FAKE_TREE_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fake_tree {
    char root[256];
} fake_tree;

/* Creates an empty tree under $TMPDIR (or /tmp); returns 0 on success. */
static inline int fake_tree_create(fake_tree *t) {
    const char *tmp = getenv("TMPDIR");
    snprintf(t->root, sizeof t->root, "%s/kbench-fake-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(t->root) ? 0 : -1;
}

/* Writes root+path with the given content, creating the directories on the way. */
static inline int fake_tree_write(const fake_tree *t, const char *path, const char *content) {
    char full[1024];
    if (snprintf(full, sizeof full, "%s%s", t->root, path) >= (int)sizeof full)
        return -1;
    for (char *p = full + strlen(t->root) + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(full, 0755);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    FILE *f = fopen(full, "w");
    if (!f)
        return -1;
    int ok = fputs(content, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static inline int fake_tree_unlink_one(const char *path, const struct stat *st, int flag,
                                       struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void fake_tree_destroy(fake_tree *t) {
    if (t->root[0])
        nftw(t->root, fake_tree_unlink_one, 16, FTW_DEPTH | FTW_PHYS);
    t->root[0] = '\0';
}

#endif
