/* core/cleanup.h under fire: a process that writes files through kb_atomic_write in a loop is
 * ended by SIGTERM at random moments, and nothing but whole outputs may be left. Another thread
 * keeps running beside the writer, as idle OpenMP workers do in kbench: while the writer holds
 * the signals to create a temporary and register it, the kernel hands the signal to that
 * thread, whose handler must not clean up before the registration is complete. Threads, and
 * forked processes too, block for good under qemu-user here (tests/CMakeLists.txt): the
 * cross-built tests, which say so with KB_TEST_THREADS=1, leave this to the native run. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#include "core/atomic_file.h"
#include "test_util.h"

static atomic_int spinning;

static void *spin(void *arg) {
    (void)arg;
    atomic_store(&spinning, 1);
    for (;;)
        atomic_fetch_add_explicit(&spinning, 1, memory_order_relaxed);
    return NULL;
}

static kb_status write_line(FILE *f, void *context) {
    (void)context;
    fputs("whole\n", f);
    return KB_OK;
}

/* The child: starts the spinner, signals it is ready on fd, then writes outputs until it is
 * killed. */
static _Noreturn void write_forever(const test_dir *d, int fd) {
    pthread_t spinner;
    if (pthread_create(&spinner, NULL, spin, NULL) != 0)
        _exit(3);
    while (!atomic_load(&spinning))
        ;
    char path[300];
    test_dir_path(d, "out", path, sizeof path);
    if (write(fd, "r", 1) != 1)
        _exit(3);
    for (;;)
        if (kb_atomic_write(path, write_line, NULL) != KB_OK)
            _exit(4);
}

static void sleep_ns(long ns) {
    struct timespec t = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&t, NULL);
}

static void nothing_left_by_sigterm_during_writes(void **state) {
    (void)state;
    const char *threads = getenv("KB_TEST_THREADS");
    if (threads && strcmp(threads, "1") == 0)
        skip();
    test_rng rng = {0x5eedc1ea};
    int rounds = 300;
    for (int round = 0; round < rounds; round++) {
        test_dir d;
        assert_int_equal(test_dir_create(&d), 0);
        int ready[2];
        assert_int_equal(pipe(ready), 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            close(ready[0]);
            write_forever(&d, ready[1]);
        }
        close(ready[1]);
        char c;
        assert_int_equal(read(ready[0], &c, 1), 1);
        close(ready[0]);
        /* From the first write (a handler not installed yet) to well into the loop. */
        sleep_ns(round % 4 == 0 ? test_rng_below(&rng, 100000) : test_rng_below(&rng, 2000000));
        assert_int_equal(kill(child, SIGTERM), 0);
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM)
            fail_msg("round %d: the writer ended with status %#x, not by SIGTERM", round, status);
        /* The output, whole, or nothing at all. */
        char path[300];
        size_t size;
        if (access(test_dir_path(&d, "out", path, sizeof path), F_OK) == 0) {
            char *text = test_read_file(path, &size);
            assert_string_equal(text, "whole\n");
            free(text);
            unlink(path);
        }
        int left = test_dir_count(&d);
        if (left != 0)
            fail_msg("round %d: %d temporaries left beside the output", round, left);
        assert_int_equal(test_dir_destroy(&d), 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_left_by_sigterm_during_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
