/* Writing an output where its path points: a file through a temporary beside it and a
 * rename, so that it appears whole; a FIFO or device as it is; "-" to standard output. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/atomic_file.h"
#include "core/cleanup.h"
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

/* Where a write to path goes: path itself, or the file its symbolic links name, followed as
 * open() would follow them (relative links from the link's directory), to a name that is not
 * a link (which may not exist yet). */
static kb_status resolve(const char *path, char *target, size_t cap) {
    if (strlen(path) >= cap)
        return kb_fail(KB_EINVAL, "path too long");
    memcpy(target, path, strlen(path) + 1);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(target, &st) != 0 || !S_ISLNK(st.st_mode))
            return KB_OK;
        char link[4096];
        ssize_t n = readlink(target, link, sizeof link - 1);
        if (n < 0)
            return kb_fail(KB_EIO, "cannot read the symbolic link %s: %s", target, strerror(errno));
        link[n] = '\0';
        const char *slash = strrchr(target, '/');
        int dir = link[0] == '/' || !slash ? 0 : (int)(slash - target) + 1;
        if ((size_t)dir + (size_t)n >= cap)
            return kb_fail(KB_EINVAL, "the symbolic link's target is too long");
        memmove(target + dir, link, (size_t)n + 1);
    }
    return kb_fail(KB_EIO, "too many levels of symbolic links");
}

/* Fills f and closes it (unless it is stdout, which is only flushed): every write error,
 * including those only fclose or fflush report, becomes the status. */
static kb_status fill(FILE *f, kb_atomic_writer write, void *context) {
    kb_status st = write(f, context);
    if (st == KB_OK && ferror(f))
        st = kb_fail(KB_EIO, "cannot write: %s", strerror(errno));
    int closed = f == stdout ? fflush(f) : fclose(f);
    if (closed != 0 && st == KB_OK)
        st = kb_fail(KB_EIO, "cannot write: %s", strerror(errno));
    return st;
}

/* A FIFO or a character device is written to as it is: there is no file to replace, and a
 * temporary beside it would replace the node itself. */
static bool is_stream(const struct stat *st) {
    return S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode);
}

static kb_status write_stream(const char *target, kb_atomic_writer write, void *context) {
    int fd = open(target, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return kb_fail(KB_EIO, "cannot open for writing: %s", strerror(errno));
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        return kb_fail(KB_EIO, "cannot write: %s", strerror(errno));
    }
    return fill(f, write, context);
}

static kb_status write_replacing(const char *target, kb_atomic_writer write, void *context) {
    size_t cap = strlen(target) + 48;
    char *temp = malloc(cap);
    if (!temp)
        return kb_fail(KB_ENOMEM, "cannot allocate %zu bytes", cap);
    /* Created and registered with the signals held, so that none can come in between (and
     * removed again within the hold when it cannot be registered). Messages are made after
     * the holds: a handler waits for them to end. */
    sigset_t held;
    kb_cleanup_hold(&held);
    int fd = create_temp(target, temp, cap), create_errno = errno;
    kb_status st = KB_OK;
    if (fd >= 0 && (st = kb_cleanup_add(temp)) != KB_OK) {
        close(fd);
        unlink(temp);
        fd = -1;
    }
    kb_cleanup_release(&held);
    if (fd < 0) {
        free(temp);
        return st != KB_OK ? st
                           : kb_fail(KB_EIO, "cannot create a temporary file beside %s: %s", target,
                                     strerror(create_errno));
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        st = kb_fail(KB_EIO, "cannot write: %s", strerror(errno));
        close(fd);
    } else {
        st = fill(f, write, context);
    }
    /* rename publishes the whole file at once; held, so that a signal's handler neither
     * removes the temporary under it nor leaves the rename half-accounted. */
    kb_cleanup_hold(&held);
    int rename_errno = 0;
    if (st == KB_OK && rename(temp, target) != 0)
        rename_errno = errno;
    if (st != KB_OK || rename_errno)
        unlink(temp);
    kb_cleanup_forget(temp);
    kb_cleanup_release(&held);
    free(temp);
    if (rename_errno)
        st = kb_fail(KB_EIO, "cannot rename the temporary file into place: %s",
                     strerror(rename_errno));
    return st;
}

kb_status kb_atomic_write(const char *path, kb_atomic_writer write, void *context) {
    if (strcmp(path, "-") == 0) {
        kb_status st = fill(stdout, write, context);
        return st == KB_OK ? KB_OK : kb_fail_prefix(st, "standard output");
    }
    /* What the path reaches, through links, is asked of the kernel first: /dev/stdout and
     * /dev/fd/N are links that only it can follow to a pipe (their text is "pipe:[N]"). */
    char target[4096];
    struct stat st;
    kb_status status = KB_OK;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        status = kb_fail(KB_EIO, "is a directory");
    else if (stat(path, &st) == 0 && is_stream(&st))
        status = write_stream(path, write, context);
    else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        status = kb_fail(KB_EIO, "not a file, FIFO or character device");
    else if ((status = resolve(path, target, sizeof target)) == KB_OK)
        status = write_replacing(target, write, context);
    return status == KB_OK ? KB_OK : kb_fail_prefix(status, path);
}

kb_status kb_atomic_write_possible(const char *path) {
    char target[4096];
    struct stat st;
    if (strcmp(path, "-") == 0)
        return KB_OK;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return kb_fail(KB_EIO, "%s: is a directory", path);
        if (!is_stream(&st))
            return kb_fail(KB_EIO, "%s: not a file, FIFO or character device", path);
        if (access(path, W_OK) != 0)
            return kb_fail(KB_EIO, "%s: cannot write: %s", path, strerror(errno));
        return KB_OK;
    }
    if (resolve(path, target, sizeof target) != KB_OK)
        return kb_fail_prefix(KB_EIO, path);
    const char *slash = strrchr(target, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == target)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - target), target);
    if (stat(dir, &st) != 0)
        return kb_fail(KB_EIO, "%s: cannot write into %s: %s", path, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return kb_fail(KB_EIO, "%s: cannot write into %s: not a directory", path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return kb_fail(KB_EIO, "%s: cannot write into %s: %s", path, dir, strerror(errno));
    return KB_OK;
}
