/* Removing a process's temporary files and directories when a signal ends it. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/fail.h"

static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { nsignals = sizeof signals / sizeof signals[0] };

/* The handler reads these: an entry is filled before its flag is set (a release fence between,
 * an acquire fence in the handler), and they change under the mutex, with the signals blocked
 * in the changing thread. */
static char paths[KB_CLEANUP_MAX][4096];
static volatile sig_atomic_t used[KB_CLEANUP_MAX];
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The handler runs on one thread while the others go on. A thread between kb_cleanup_hold and
 * kb_cleanup_release (creating a file and adding it, renaming one into place) counts in
 * holding, and once a handler has set ending, no thread enters: it waits there to be ended.
 * The handler waits for holding to reach zero before it removes anything, so that it neither
 * misses a file just created nor removes one that is being renamed into place. */
static atomic_int holding, ending;
static _Thread_local int depth; /* the calling thread's nesting of hold */

/* Async-signal-safe: atomics, nanosleep, unlink, rmdir, sigaction and raise only. */
static void on_signal(int sig) {
    int saved = errno;
    atomic_store(&ending, 1);
    while (atomic_load(&holding) > 0) {
        struct timespec pause_ns = {0, 20000};
        nanosleep(&pause_ns, NULL);
    }
    for (int i = KB_CLEANUP_MAX - 1; i >= 0; i--) {
        if (!used[i])
            continue;
        atomic_thread_fence(memory_order_acquire);
        if (unlink(paths[i]) != 0 && (errno == EISDIR || errno == EPERM))
            rmdir(paths[i]);
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    errno = saved;
    raise(sig); /* delivered once the handler returns, with the default action */
}

static void install(void) {
    for (int i = 0; i < nsignals; i++) {
        struct sigaction old, handler;
        if (sigaction(signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&handler, 0, sizeof handler);
        handler.sa_handler = on_signal;
        sigemptyset(&handler.sa_mask);
        for (int k = 0; k < nsignals; k++)
            sigaddset(&handler.sa_mask, signals[k]);
        sigaction(signals[i], &handler, NULL);
    }
}

void kb_cleanup_hold(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < nsignals; i++)
        sigaddset(&set, signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
    /* Installed before the first file is made: a signal that another thread takes while this
     * one creates it would otherwise still end the process at once. */
    pthread_once(&installed, install);
    if (depth++ > 0)
        return;
    atomic_fetch_add(&holding, 1);
    if (atomic_load(&ending)) {
        /* A handler is removing the files and will end the process: nothing more is made. */
        atomic_fetch_sub(&holding, 1);
        for (;;)
            pause();
    }
}

void kb_cleanup_release(const sigset_t *old) {
    if (--depth == 0)
        atomic_fetch_sub(&holding, 1);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

kb_status kb_cleanup_add(const char *path) {
    if (strlen(path) >= sizeof paths[0])
        return kb_fail(KB_EINVAL, "%s: path too long to clean up after", path);
    sigset_t old;
    kb_cleanup_hold(&old);
    pthread_mutex_lock(&lock);
    /* Newest in the highest slot: the handler goes from the top down. */
    int slot = KB_CLEANUP_MAX - 1;
    while (slot >= 0 && !used[slot])
        slot--;
    slot++;
    if (slot >= KB_CLEANUP_MAX) {
        /* Full at the top: close the gaps that forgotten paths left, keeping the order. */
        slot = 0;
        for (int i = 0; i < KB_CLEANUP_MAX; i++)
            if (used[i] && i != slot) {
                memcpy(paths[slot], paths[i], sizeof paths[0]);
                atomic_thread_fence(memory_order_release);
                used[slot++] = 1;
                used[i] = 0;
            } else if (used[i]) {
                slot++;
            }
    }
    kb_status st = KB_OK;
    if (slot >= KB_CLEANUP_MAX) {
        st = kb_fail(KB_ENOMEM, "%s: more than %d temporary paths at once", path, KB_CLEANUP_MAX);
    } else {
        memcpy(paths[slot], path, strlen(path) + 1);
        atomic_thread_fence(memory_order_release); /* the path before the flag */
        used[slot] = 1;
    }
    pthread_mutex_unlock(&lock);
    kb_cleanup_release(&old);
    return st;
}

void kb_cleanup_forget(const char *path) {
    sigset_t old;
    kb_cleanup_hold(&old);
    pthread_mutex_lock(&lock);
    for (int i = KB_CLEANUP_MAX - 1; i >= 0; i--)
        if (used[i] && strcmp(paths[i], path) == 0) {
            used[i] = 0;
            break;
        }
    pthread_mutex_unlock(&lock);
    kb_cleanup_release(&old);
}
