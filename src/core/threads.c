#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fail.h"
#include "kbench/threads.h"

static int affinity_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The cgroup v2 path of this process ("0::/some/path"), or "" when not under cgroup v2. */
static void cgroup2_path(char *path, size_t size) {
    path[0] = '\0';
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            size_t n = strlen(line + 3);
            if (n < size)
                memcpy(path, line + 3, n + 1);
            break;
        }
    }
    fclose(f);
}

/* CPU quota in cores from a cgroup file pair, or 0 when unlimited or unreadable. */
static double quota_v2(const char *file) {
    FILE *f = fopen(file, "r");
    if (!f)
        return 0;
    char quota[64] = "";
    long long period = 0;
    int n = fscanf(f, "%63s %lld", quota, &period);
    fclose(f);
    if (n != 2 || period <= 0 || !isdigit((unsigned char)quota[0]))
        return 0;
    return (double)atoll(quota) / (double)period;
}

static double quota_v1(void) {
    long long quota = 0, period = 0;
    FILE *f = fopen("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "r");
    if (!f)
        f = fopen("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "r");
    if (!f)
        return 0;
    int ok = fscanf(f, "%lld", &quota) == 1;
    fclose(f);
    f = fopen("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "r");
    if (!f)
        f = fopen("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "r");
    if (!f)
        return 0;
    ok = ok && fscanf(f, "%lld", &period) == 1;
    fclose(f);
    return ok && quota > 0 && period > 0 ? (double)quota / (double)period : 0;
}

/* The tightest quota on the path from this process's cgroup up to the root. */
static double cgroup_quota(void) {
    char path[2048];
    cgroup2_path(path, sizeof path);
    double best = 0;
    if (path[0] == '/') {
        for (;;) {
            char file[2200];
            snprintf(file, sizeof file, "/sys/fs/cgroup%s/cpu.max", strcmp(path, "/") ? path : "");
            double q = quota_v2(file);
            if (q > 0 && (best == 0 || q < best))
                best = q;
            char *slash = strrchr(path, '/');
            if (!slash || slash == path)
                break;
            *slash = '\0';
        }
        double root = quota_v2("/sys/fs/cgroup/cpu.max");
        if (root > 0 && (best == 0 || root < best))
            best = root;
        return best;
    }
    return quota_v1();
}

int kb_usable_cores(void) {
    int cores = affinity_cores();
    double quota = cgroup_quota();
    if (quota > 0 && ceil(quota) < cores)
        cores = (int)ceil(quota);
    return cores > 0 ? cores : 1;
}

static _Atomic int api_threads = 0;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_threads;
static char env_error[256];

static void resolve_env(void) {
    const char *value = getenv("KB_NUM_THREADS");
    if (!value || !*value) {
        env_threads = kb_usable_cores();
        return;
    }
    errno = 0;
    char *end;
    long n = strtol(value, &end, 10);
    if (errno || *end || n < 1 || n > 4096) {
        snprintf(env_error, sizeof env_error,
                 "KB_NUM_THREADS must be an integer from 1 to 4096, not '%.64s'", value);
        return;
    }
    env_threads = (int)n;
}

kb_status kb_threads_set(int count) {
    if (count < 0 || count > 4096)
        return kb_fail(KB_EINVAL,
                       "thread count must be from 1 to 4096 (or 0 for the default), "
                       "not %d",
                       count);
    atomic_store(&api_threads, count ? count : kb_usable_cores());
    return KB_OK;
}

kb_status kb_threads_current(int *out) {
    int set = atomic_load(&api_threads);
    if (set > 0) {
        *out = set;
        return KB_OK;
    }
    pthread_once(&env_once, resolve_env);
    if (env_threads == 0)
        return kb_fail(KB_EINVAL, "%s", env_error);
    *out = env_threads;
    return KB_OK;
}
