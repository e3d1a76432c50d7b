/* Where the Python baseline runner and its interpreter are found. The runner is a file
 * shipped with kbench rather than compiled in, so that people can read and change it; an
 * installed kbench looks beside its own installation, a build looks in its source tree. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/baseline_process.h"
#include "core/internal.h"

#ifndef KB_SOURCE_DIR
#error "KB_SOURCE_DIR must name the source tree (src/CMakeLists.txt defines it for this file)"
#endif
#ifndef KB_INSTALL_DATADIR
#define KB_INSTALL_DATADIR "share"
#endif

#define KB_RUNNER_RELATIVE "kbench/baselines/runner.py"

const char *kb_baseline_python(void) {
    const char *python = getenv("KB_PYTHON");
    return python && *python ? python : "python3";
}

static kb_status copy_path(char *buf, size_t size, const char *path) {
    if (strlen(path) >= size)
        return kb_fail(KB_EINVAL, "baseline runner path too long: %s", path);
    memcpy(buf, path, strlen(path) + 1);
    return KB_OK;
}

/* <dir of the executable>/../<datadir>/kbench/baselines/runner.py, or "" if the executable
 * cannot be found or the path does not fit. */
static void installed_path(char *buf, size_t size) {
    buf[0] = '\0';
    if (KB_INSTALL_DATADIR[0] == '/') {
        snprintf(buf, size, "%s/%s", KB_INSTALL_DATADIR, KB_RUNNER_RELATIVE);
        return;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || (size_t)n >= sizeof exe - 1)
        return;
    exe[n] = '\0';
    int written =
        snprintf(buf, size, "%s/../%s/%s", dirname(exe), KB_INSTALL_DATADIR, KB_RUNNER_RELATIVE);
    if (written < 0 || (size_t)written >= size)
        buf[0] = '\0';
}

kb_status kb_baseline_runner_path(char *buf, size_t size) {
    if (size == 0)
        return kb_fail(KB_EINVAL, "no room for the baseline runner path");
    const char *env = getenv("KB_BASELINE_RUNNER");
    if (env && *env) {
        /* An explicit choice that does not exist is a mistake to report, not to work around
         * with another runner the user did not ask for. */
        if (access(env, R_OK) != 0)
            return kb_fail(KB_EIO, "KB_BASELINE_RUNNER=%s: %s", env, strerror(errno));
        return copy_path(buf, size, env);
    }
    char installed[4096];
    installed_path(installed, sizeof installed);
    if (installed[0] && access(installed, R_OK) == 0)
        return copy_path(buf, size, installed);
    const char *source = KB_SOURCE_DIR "/baselines/runner.py";
    if (access(source, R_OK) == 0)
        return copy_path(buf, size, source);
    return kb_fail(KB_EIO,
                   "cannot find the baseline runner (looked for %s and %s); set "
                   "KB_BASELINE_RUNNER to the path of baselines/runner.py",
                   installed[0] ? installed : "<executable>/../share/" KB_RUNNER_RELATIVE, source);
}
