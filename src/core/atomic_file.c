/* Writing a file through a temporary beside it and a rename, so that it appears whole. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/atomic_file.h"
#include "core/fail.h"

/* A name beside path that no one else uses: O_EXCL makes the claim atomic, and the counter
 * keeps threads of one process apart. (mkstemp would do, but creates files with mode 0600,
 * and the result should get the usual 0666 less umask, as NumPy's files do.) */
static int create_temp(const char *path, char *name, size_t cap) {
    static atomic_uint counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(name, cap, "%s.kbtmp.%ld.%u", path, (long)getpid(),
                 atomic_fetch_add(&counter, 1u));
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

kb_status kb_atomic_write(const char *path, kb_atomic_writer write, void *context) {
    size_t cap = strlen(path) + 48;
    char *temp = malloc(cap);
    if (!temp)
        return kb_fail(KB_ENOMEM, "%s: cannot allocate %zu bytes", path, cap);
    int fd = create_temp(path, temp, cap);
    if (fd < 0) {
        kb_status st = kb_fail(KB_EIO, "%s: cannot create a temporary file beside it: %s", path,
                               strerror(errno));
        free(temp);
        return st;
    }
    kb_status st;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        st = kb_fail(KB_EIO, "cannot write: %s", strerror(errno));
        close(fd);
    } else {
        st = write(f, context);
        if (st == KB_OK && ferror(f))
            st = kb_fail(KB_EIO, "cannot write: %s", strerror(errno));
        /* fclose reports delayed write errors (NFS, quotas); rename then publishes the whole
         * file at once. */
        if (fclose(f) != 0 && st == KB_OK)
            st = kb_fail(KB_EIO, "cannot write: %s", strerror(errno));
    }
    if (st == KB_OK && rename(temp, path) != 0)
        st = kb_fail(KB_EIO, "cannot rename the temporary file into place: %s", strerror(errno));
    if (st != KB_OK) {
        unlink(temp);
        st = kb_fail_prefix(st, path);
    }
    free(temp);
    return st;
}

kb_status kb_atomic_write_possible(const char *path) {
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat st;
    if (stat(dir, &st) != 0)
        return kb_fail(KB_EIO, "%s: cannot write into %s: %s", path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return kb_fail(KB_EIO, "%s: cannot write into %s: not a directory", path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return kb_fail(KB_EIO, "%s: cannot write into %s: %s", path, dir, strerror(errno));
    return KB_OK;
}
