/* The usage monitor: a thread that samples /proc while a run measures (kbench/monitor.h). */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "kbench/bench.h"
#include "kbench/monitor.h"
#include "util/internal.h"

#define MONITOR_MAX_CPUS 1024

/* Cumulative CPU times in clock ticks, as /proc/stat and /proc/PID/stat count them. */
typedef struct cpu_times {
    unsigned long long busy, steal;
} cpu_times;

typedef struct snapshot {
    int64_t at_ns;
    cpu_times total;
    int ncpus;
    cpu_times cpu[MONITOR_MAX_CPUS];
    unsigned long long own; /* this process and its descendants */
} snapshot;

struct kb_monitor {
    double interval_s;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
    bool out_of_memory;
    double ticks_per_s;
    snapshot last;
    kb_usage_series series;
    int64_t capacity, busy_capacity; /* of series.samples and of series.cpu_busy */
};

/* user nice system idle iowait irq softirq steal: busy is all but idle and iowait; guest time
 * is already inside user and nice. */
static bool parse_cpu_line(const char *line, cpu_times *t) {
    unsigned long long v[8] = {0};
    int n = sscanf(line, "%*s %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    if (n < 4)
        return false;
    t->busy = v[0] + v[1] + v[2] + v[5] + v[6];
    t->steal = v[7];
    return true;
}

static bool read_proc_stat(snapshot *s) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return false;
    char line[512];
    bool total = false;
    s->ncpus = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "cpu ", 4) == 0)
            total = parse_cpu_line(line, &s->total);
        else if (strncmp(line, "cpu", 3) == 0 && s->ncpus < MONITOR_MAX_CPUS &&
                 parse_cpu_line(line, &s->cpu[s->ncpus]))
            s->ncpus++;
    }
    fclose(f);
    return total && s->ncpus > 0;
}

/* utime + stime + cutime + cstime of /proc/PID/stat (its own time, and that of the children it
 * has waited for, so that the sum over a tree of processes does not drop when one of them
 * ends and is reaped), and its parent's pid; false when it cannot be read. */
static bool process_ticks(const char *path, unsigned long long *ticks, long *parent) {
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The command name is in parentheses and may hold anything: fields follow the last ')'. */
    const char *p = strrchr(buf, ')');
    unsigned long long utime, stime;
    long long cutime, cstime;
    if (!p || sscanf(p + 1, " %*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld",
                     parent, &utime, &stime, &cutime, &cstime) != 5)
        return false;
    *ticks = utime + stime + (unsigned long long)(cutime > 0 ? cutime : 0) +
             (unsigned long long)(cstime > 0 ? cstime : 0);
    return true;
}

/* A process's ticks and its parent, for telling which processes descend from this one. */
typedef struct process_entry {
    long pid, parent;
    unsigned long long ticks;
    bool own;
} process_entry;

static int by_pid(const void *a, const void *b) {
    long x = ((const process_entry *)a)->pid, y = ((const process_entry *)b)->pid;
    return (x > y) - (x < y);
}

/* This process's ticks and those of every process descending from it: the baseline runners
 * are its children, and a runner's library may start processes of its own (JAX's compiler
 * worker), whose work is the run's too. Every process's parent is read from /proc (the
 * kernel's lists of children, /proc/PID/task/TID/children, need CONFIG_PROC_CHILDREN, which
 * not every kernel has), and descendants are marked generation by generation (a parent found
 * by its pid). */
static unsigned long long own_ticks(void) {
    long self = (long)getpid();
    unsigned long long total = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return total;
    process_entry *all = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    char path[64];
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        process_entry p = {.pid = strtol(e->d_name, NULL, 10)};
        snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
        if (!process_ticks(path, &p.ticks, &p.parent))
            continue;
        if (n == cap) {
            size_t grown = cap ? 2 * cap : 256;
            process_entry *more = realloc(all, grown * sizeof *more);
            if (!more)
                break;
            all = more;
            cap = grown;
        }
        p.own = p.pid == self;
        total += p.own ? p.ticks : 0;
        all[n++] = p;
    }
    closedir(d);
    qsort(all, n, sizeof *all, by_pid);
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < n; i++) {
            process_entry key = {.pid = all[i].parent};
            const process_entry *parent = bsearch(&key, all, n, sizeof *all, by_pid);
            if (!all[i].own && parent && parent->own) {
                all[i].own = grew = true;
                total += all[i].ticks;
            }
        }
    }
    free(all);
    return total;
}

static double read_load1(void) {
    FILE *f = fopen("/proc/loadavg", "r");
    double load = -1;
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1;
        fclose(f);
    }
    return load;
}

static int64_t read_mem_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            break;
    fclose(f);
    return kib < 0 ? -1 : (int64_t)kib * 1024;
}

/* The mean of the clocks the kernel reports: cpufreq's current frequency where there is one,
 * else /proc/cpuinfo's "cpu MHz" (fixed under many hypervisors). 0 when neither says. */
static double read_clock_mhz(int ncpus) {
    double sum = 0;
    int n = 0;
    char path[96];
    for (int c = 0; c < ncpus; c++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
        FILE *f = fopen(path, "r");
        double khz;
        if (f) {
            if (fscanf(f, "%lf", &khz) == 1 && khz > 0) {
                sum += khz / 1e3;
                n++;
            }
            fclose(f);
        }
    }
    if (n == 0) {
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[256];
        double mhz;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && mhz > 0) {
                sum += mhz;
                n++;
            }
        if (f)
            fclose(f);
    }
    return n ? sum / n : 0;
}

static bool take_snapshot(snapshot *s) {
    s->at_ns = kb_bench_now_ns();
    s->own = own_ticks();
    return read_proc_stat(s);
}

static double delta_cpus(unsigned long long now, unsigned long long before, double ticks,
                         double seconds) {
    return now > before && seconds > 0 ? (double)(now - before) / ticks / seconds : 0;
}

/* Appends the interval from m->last to now; the caller holds the lock. */
static void record(kb_monitor *m) {
    snapshot now;
    if (!take_snapshot(&now))
        return;
    /* The processes are read one by one, not at one instant: a child reaped between the reads
     * of its parent and its own is missing from this sum and back in its parent's at the next.
     * Kept at its highest, the sum then counts that child's time once, not again. */
    if (now.own < m->last.own)
        now.own = m->last.own;
    kb_usage_series *s = &m->series;
    kb_usage_sample *samples = kb_reserve(s->samples, &m->capacity, s->count + 1, sizeof *samples);
    if (samples)
        s->samples = samples;
    double *busy = samples ? kb_reserve(s->cpu_busy, &m->busy_capacity,
                                        (int64_t)(s->count + 1) * s->ncpus, sizeof *busy)
                           : NULL;
    if (!busy) {
        m->out_of_memory = true;
        return;
    }
    s->cpu_busy = busy;
    double seconds = (double)(now.at_ns - m->last.at_ns) * 1e-9, t = m->ticks_per_s;
    kb_usage_sample *u = &s->samples[s->count];
    u->at_ns = now.at_ns;
    u->busy_cpus = delta_cpus(now.total.busy, m->last.total.busy, t, seconds);
    u->steal_cpus = delta_cpus(now.total.steal, m->last.total.steal, t, seconds);
    u->own_cpus = delta_cpus(now.own, m->last.own, t, seconds);
    /* Ticks are counted at their own resolution (1 / USER_HZ): a CPU cannot be busier than
     * all of the time. */
    if (u->busy_cpus > s->ncpus)
        u->busy_cpus = s->ncpus;
    u->others_cpus = u->busy_cpus > u->own_cpus ? u->busy_cpus - u->own_cpus : 0;
    u->load1 = read_load1();
    u->mem_available_bytes = read_mem_available();
    u->clock_mhz = read_clock_mhz(s->ncpus);
    for (int c = 0; c < s->ncpus; c++) {
        double cpu =
            c < now.ncpus ? delta_cpus(now.cpu[c].busy, m->last.cpu[c].busy, t, seconds) : 0;
        s->cpu_busy[(size_t)s->count * (size_t)s->ncpus + (size_t)c] = cpu < 1 ? cpu : 1;
    }
    s->count++;
    m->last = now;
}

static void *sample_loop(void *arg) {
    kb_monitor *m = arg;
    pthread_mutex_lock(&m->lock);
    while (!m->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double end = (double)until.tv_sec + until.tv_nsec * 1e-9 + m->interval_s;
        until.tv_sec = (time_t)end;
        until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
        int rc = 0;
        while (!m->stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&m->wake, &m->lock, &until);
        record(m);
    }
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        m->series.overhead_s = (double)cpu.tv_sec + cpu.tv_nsec * 1e-9;
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

kb_status kb_monitor_start(double interval_s, kb_monitor **out) {
    *out = NULL;
    if (!(interval_s >= 0.05 && interval_s <= 60))
        return kb_fail(KB_EINVAL, "monitor interval must be from 0.05 to 60 seconds, not %g",
                       interval_s);
    kb_monitor *m = calloc(1, sizeof *m);
    if (!m)
        return kb_fail(KB_ENOMEM, "out of memory for the usage monitor");
    long ticks = sysconf(_SC_CLK_TCK);
    m->ticks_per_s = ticks > 0 ? (double)ticks : 100;
    m->interval_s = interval_s;
    if (!take_snapshot(&m->last)) {
        free(m);
        return kb_fail(KB_EUNSUPPORTED, "usage monitor: /proc/stat cannot be read");
    }
    m->series.interval_s = interval_s;
    m->series.ncpus = m->last.ncpus;
    m->series.started_ns = m->last.at_ns;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->wake, NULL);
    if (pthread_create(&m->thread, NULL, sample_loop, m) != 0) {
        pthread_cond_destroy(&m->wake);
        pthread_mutex_destroy(&m->lock);
        free(m);
        return kb_fail(KB_EIO, "usage monitor: cannot start its thread");
    }
    *out = m;
    return KB_OK;
}

void kb_monitor_stop(kb_monitor *m, kb_usage_series *out) {
    memset(out, 0, sizeof *out);
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    m->stop = true;
    pthread_cond_signal(&m->wake);
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->thread, NULL);
    pthread_cond_destroy(&m->wake);
    pthread_mutex_destroy(&m->lock);
    *out = m->series;
    if (m->out_of_memory) {
        kb_usage_series_free(out);
        out->interval_s = m->interval_s;
    }
    free(m);
}

void kb_monitor_sample(kb_monitor *m) {
    pthread_mutex_lock(&m->lock);
    record(m);
    pthread_mutex_unlock(&m->lock);
}

double kb_monitor_outside(kb_monitor *m, int64_t start_ns, int64_t end_ns, double *steal,
                          bool *covered) {
    pthread_mutex_lock(&m->lock);
    double outside = kb_usage_outside(&m->series, start_ns, end_ns, steal, covered);
    pthread_mutex_unlock(&m->lock);
    return outside;
}

void kb_usage_series_free(kb_usage_series *s) {
    free(s->samples);
    free(s->cpu_busy);
    memset(s, 0, sizeof *s);
}

double kb_usage_outside(const kb_usage_series *s, int64_t start_ns, int64_t end_ns, double *steal,
                        bool *covered) {
    double weight = 0, outside = 0, stolen = 0;
    int64_t from = s->started_ns;
    for (int i = 0; i < s->count; i++) {
        int64_t to = s->samples[i].at_ns;
        int64_t lo = start_ns > from ? start_ns : from, hi = end_ns < to ? end_ns : to;
        /* A window shorter than the clock's step still belongs to the interval it lies in. */
        double w = hi > lo ? (double)(hi - lo) : (lo == hi && lo > from && lo <= to) ? 1 : 0;
        if (w > 0) {
            weight += w;
            outside += w * (s->samples[i].others_cpus + s->samples[i].steal_cpus);
            stolen += w * s->samples[i].steal_cpus;
        }
        from = to;
    }
    *covered = weight > 0;
    if (steal)
        *steal = weight > 0 ? stolen / weight : 0;
    return weight > 0 ? outside / weight : 0;
}
