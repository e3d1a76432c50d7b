/* Thread counts: the cores this process may use and the count kernels run with. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fail.h"
#include "kbench/threads.h"

/* The CPUs this process may use, and what says so. With OMP_PROC_BIND set, the OpenMP runtime
 * binds the initial thread to its first place while it starts, before any of kbench's code
 * runs, so the thread's own mask then shows one place. The place list is built from the mask
 * the process started with (or from OMP_PLACES, when that lists fewer CPUs), so with binding
 * on, the union of the places is what the process may use. */
static void startup_cpus(cpu_set_t *set, const char **bound_by) {
    CPU_ZERO(set);
    int places = omp_get_proc_bind() != omp_proc_bind_false ? omp_get_num_places() : 0;
    for (int p = 0; p < places; p++) {
        int n = omp_get_place_num_procs(p);
        if (n <= 0)
            continue;
        int *ids = malloc((size_t)n * sizeof *ids);
        if (!ids)
            break;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < n; i++)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE)
                CPU_SET(ids[i], set);
        free(ids);
    }
    if (CPU_COUNT(set) > 0) {
        const char *env = getenv("OMP_PLACES");
        *bound_by = env && *env ? "OMP_PLACES" : "the OpenMP place list (OMP_PROC_BIND)";
        return;
    }
    if (sched_getaffinity(0, sizeof *set, set) == 0 && CPU_COUNT(set) > 0) {
        *bound_by = "the affinity mask";
        return;
    }
    CPU_ZERO(set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long cpu = 0; cpu < (online > 0 ? online : 1) && cpu < CPU_SETSIZE; cpu++)
        CPU_SET((int)cpu, set);
    *bound_by = "the online CPUs";
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

void kb_cores_describe(kb_cores_info *out) {
    memset(out, 0, sizeof *out);
    cpu_set_t set;
    const char *bound_by;
    startup_cpus(&set, &bound_by);
    out->cpus = CPU_COUNT(&set);
    out->cgroup_quota = cgroup_quota();
    out->usable = out->cpus;
    if (out->cgroup_quota > 0 && ceil(out->cgroup_quota) < out->usable) {
        out->usable = (int)ceil(out->cgroup_quota);
        bound_by = "the cgroup CPU quota";
    }
    if (out->usable < 1)
        out->usable = 1;
    snprintf(out->bound_by, sizeof out->bound_by, "%s", bound_by);
}

int kb_usable_cores(void) {
    kb_cores_info info;
    kb_cores_describe(&info);
    return info.usable;
}

int kb_usable_cpus(int *cpus, int max) {
    cpu_set_t set;
    const char *bound_by;
    startup_cpus(&set, &bound_by);
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
        if (CPU_ISSET(cpu, &set))
            cpus[n++] = cpu;
    return n;
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
