/* The usage monitor: the outside activity of a stretch of time, worked out by hand from
 * made-up series, and a real monitor that sees this process keep a core busy, and a
 * grandchild (as JAX's worker is kbench's, through the baseline runner) count as its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kbench/bench.h"
#include "kbench/monitor.h"
#include "test_util.h"

#define assert_close(a, b, tolerance) assert_true(fabs((a) - (b)) <= (tolerance))

/* Intervals of 1 s from t = 0: outside (others + steal) of 0.1, 2.0 and 0.5 CPUs. */
static kb_usage_series made_up(void) {
    static kb_usage_sample samples[3] = {
        {.at_ns = 1000000000, .others_cpus = 0.1},
        {.at_ns = 2000000000, .others_cpus = 1.5, .steal_cpus = 0.5},
        {.at_ns = 3000000000, .others_cpus = 0.5},
    };
    return (kb_usage_series){.interval_s = 1, .ncpus = 2, .count = 3, .samples = samples};
}

static void outside_is_weighted_by_overlap(void **state) {
    kb_usage_series u = made_up();
    bool covered;
    double steal;
    /* Within the first interval: its figure alone. */
    assert_close(kb_usage_outside(&u, 200000000, 300000000, &steal, &covered), 0.1, 1e-12);
    assert_true(covered);
    assert_close(steal, 0, 0);
    /* Half a second of the first, the whole second, a quarter of the third:
     * (0.5 x 0.1 + 1 x 2.0 + 0.25 x 0.5) / 1.75. */
    double o = kb_usage_outside(&u, 500000000, 2250000000, &steal, &covered);
    assert_close(o, (0.05 + 2.0 + 0.125) / 1.75, 1e-12);
    assert_close(steal, 0.5 / 1.75, 1e-12);
    /* An instant belongs to the interval it lies in. */
    assert_close(kb_usage_outside(&u, 2500000000, 2500000000, NULL, &covered), 0.5, 1e-12);
    assert_true(covered);
    /* After the last sample: not covered. */
    assert_close(kb_usage_outside(&u, 3500000000, 3600000000, NULL, &covered), 0, 0);
    assert_false(covered);
}

/* The flag's threshold, as the runner applies it: a quiet stretch is not contended, one that
 * overlaps the busy second is. */
static void contended_from_a_quarter_of_a_cpu(void **state) {
    kb_usage_series u = made_up();
    bool covered;
    assert_true(kb_usage_outside(&u, 100000000, 900000000, NULL, &covered) <
                KB_USAGE_CONTENDED_CPUS);
    assert_true(kb_usage_outside(&u, 900000000, 1100000000, NULL, &covered) >=
                KB_USAGE_CONTENDED_CPUS);
}

/* A second thread blocks for good in a timed wait under qemu-user here, as OpenMP's do
 * (tests/CMakeLists.txt): the cross-built tests, which say so with KB_TEST_THREADS=1, leave
 * the monitor's thread to the native run. */
static void monitor_sees_this_process_work(void **state) {
    const char *threads = getenv("KB_TEST_THREADS");
    if (threads && strcmp(threads, "1") == 0)
        skip();
    kb_monitor *m;
    assert_int_equal(kb_monitor_start(0.01, &m), KB_EINVAL);
    assert_int_equal(kb_monitor_start(61, &m), KB_EINVAL);
    struct timespec cpu0, cpu1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
    assert_int_equal(kb_monitor_start(0.05, &m), KB_OK);
    volatile double x = 0;
    int64_t until = kb_bench_now_ns() + 300000000;
    while (kb_bench_now_ns() < until)
        x += 1;
    kb_monitor_sample(m);
    bool covered;
    (void)kb_monitor_outside(m, until - 100000000, until, NULL, &covered);
    assert_true(covered);
    kb_usage_series u;
    kb_monitor_stop(m, &u);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
    double used = (double)(cpu1.tv_sec - cpu0.tv_sec) + (cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
    assert_true(u.count >= 3);
    assert_int_equal(u.ncpus > 0, 1);
    double own = 0;
    int64_t from = u.started_ns;
    for (int i = 0; i < u.count; i++) {
        const kb_usage_sample *s = &u.samples[i];
        assert_true(s->busy_cpus >= 0 && s->busy_cpus <= u.ncpus);
        assert_true(s->others_cpus >= 0 && s->steal_cpus >= 0);
        assert_true(i == 0 || s->at_ns > u.samples[i - 1].at_ns);
        for (int c = 0; c < u.ncpus; c++) {
            double b = u.cpu_busy[(size_t)i * (size_t)u.ncpus + (size_t)c];
            assert_true(b >= 0 && b <= 1);
        }
        own += s->own_cpus * (double)(s->at_ns - from) * 1e-9;
        from = s->at_ns;
    }
    /* The CPU time the samples gave this process is the time it used, within the kernel's
     * accounting in ticks (1/100 s) at each end of each interval. */
    if (fabs(own - used) > 0.03 + 0.2 * used)
        fail_msg("the monitor saw %.3f s of this process's CPU time; it used %.3f s", own, used);
    assert_true(u.overhead_s >= 0 && u.overhead_s < 0.3);
    kb_usage_series_free(&u);
    assert_int_equal(u.count, 0);
}

static double seconds(struct timeval t) {
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

/* CPU time this process and its reaped descendants have used. */
static double cpu_used(void) {
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    return seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) +
           seconds(children.ru_stime);
}

/* The time own_cpus gives [from, to] of the series, to the samples' resolution. */
static double own_seconds(const kb_usage_series *u, int64_t to) {
    double own = 0;
    int64_t from = u->started_ns;
    for (int i = 0; i < u->count && u->samples[i].at_ns <= to; i++) {
        own += u->samples[i].own_cpus * (double)(u->samples[i].at_ns - from) * 1e-9;
        from = u->samples[i].at_ns;
    }
    return own;
}

static void assert_seen(const char *what, double seen, double used) {
    if (fabs(seen - used) > 0.03 + 0.2 * used)
        fail_msg("%s: the monitor saw %.3f s of CPU time; %.3f s were used", what, seen, used);
}

/* A child whose own child keeps a core busy for 200 ms, waits while the monitor samples, and
 * keeps it busy for 200 ms more: the monitor counts that time as this process's, both halfway
 * (the grandchild says how much it has used) and after the two have ended and been reaped (the
 * whole time, which a process's time alone would lose as each one ends). Forked processes
 * block for good under qemu-user here, as threads do. */
static void monitor_counts_descendants(void **state) {
    (void)state;
    const char *threads = getenv("KB_TEST_THREADS");
    if (threads && strcmp(threads, "1") == 0)
        skip();
    double before = cpu_used();
    kb_monitor *m;
    /* Samples only when asked: the one interval before each spans the grandchild's work. */
    assert_int_equal(kb_monitor_start(30, &m), KB_OK);
    int report[2], resume[2];
    assert_int_equal(pipe(report), 0);
    assert_int_equal(pipe(resume), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        pid_t grandchild = fork();
        if (grandchild == 0) {
            volatile double x = 0;
            int64_t until = kb_bench_now_ns() + 200000000;
            while (kb_bench_now_ns() < until)
                x += 1;
            struct timespec cpu;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
            double spent = (double)cpu.tv_sec + (double)cpu.tv_nsec * 1e-9;
            char go;
            if (write(report[1], &spent, sizeof spent) != sizeof spent ||
                read(resume[0], &go, 1) != 1)
                _exit(1);
            until = kb_bench_now_ns() + 200000000;
            while (kb_bench_now_ns() < until)
                x += 1;
            _exit(0);
        }
        int status;
        _exit(grandchild > 0 && waitpid(grandchild, &status, 0) == grandchild ? 0 : 1);
    }
    double spent;
    assert_int_equal(read(report[0], &spent, sizeof spent), sizeof spent);
    kb_monitor_sample(m);
    int64_t sampled = kb_bench_now_ns();
    assert_int_equal(write(resume[1], "g", 1), 1);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    kb_monitor_sample(m);
    kb_usage_series u;
    kb_monitor_stop(m, &u);
    for (int k = 0; k < 2; k++) {
        close(report[k]);
        close(resume[k]);
    }
    double used = cpu_used() - before;
    assert_true(spent > 0.05 && used > spent);
    assert_seen("halfway, the grandchild's", own_seconds(&u, sampled), spent);
    assert_seen("at the end, the whole tree's", own_seconds(&u, INT64_MAX), used);
    kb_usage_series_free(&u);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(outside_is_weighted_by_overlap),
        cmocka_unit_test(contended_from_a_quarter_of_a_cpu),
        cmocka_unit_test(monitor_sees_this_process_work),
        cmocka_unit_test(monitor_counts_descendants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
