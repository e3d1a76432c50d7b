/* The baseline runner as a child process: spawning it, one request and one reply at a time
 * over pipes, and every way the child can fail without taking kbench with it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/baseline_process.h"
#include "core/internal.h"
#include "util/internal.h"

extern char **environ;

/* A reply longer than this is garbage, not a reply (a run of a million samples is ~20 MB). */
#define KB_BASELINE_MAX_REPLY ((size_t)64 << 20)
/* How long a child that closed its stdout gets to finish writing its traceback and exit. */
#define KB_BASELINE_EXIT_GRACE 2.0
/* kb_baseline_stop waits at most this long for an exit after quit: the runner gives its JAX
 * workers 10 s to exit together (WORKER_EXIT_WAIT in baselines/runner.py), and on two cores
 * at a load of 10 a runner with PyTorch and JAX loaded once took more than the 10 s this
 * was. */
#define KB_BASELINE_STOP_WAIT 30.0

struct kb_baseline_process {
    pid_t pid;  /* 0 once reaped */
    int in_fd;  /* the child's stdin; -1 once closed */
    int out_fd; /* the child's stdout */
    int err_fd; /* the child's stderr; -1 at its end */
    double timeout;
    char *buf; /* bytes of stdout received and not yet consumed */
    size_t len, cap;
    char err[4096]; /* the last bytes of the child's stderr, NUL-terminated */
    size_t err_len;
    int exit_status;  /* from waitpid, valid once pid is 0 */
    bool exit_known;  /* whether exit_status is valid */
    char python[256]; /* the program run (the interpreter, or kbench), for messages */
    kb_status broken; /* non-zero once the child is unusable */
    char reason[512]; /* why, repeated by every later call */
};

void kb_baseline_set_affinity(kb_baseline_process *p, const cpu_set_t *set) {
    if (p && p->pid > 0)
        (void)sched_setaffinity(p->pid, sizeof *set, set);
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int remaining_ms(double deadline) {
    double left = deadline - now_seconds();
    if (left <= 0)
        return 0;
    return left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
}

static void close_fd(int *fd) {
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void keep_stderr(kb_baseline_process *p, const char *data, size_t n) {
    size_t room = sizeof p->err - 1;
    if (n >= room) {
        memcpy(p->err, data + n - room, room);
        p->err_len = room;
    } else {
        if (p->err_len + n > room) {
            size_t drop = p->err_len + n - room;
            memmove(p->err, p->err + drop, p->err_len - drop);
            p->err_len -= drop;
        }
        memcpy(p->err + p->err_len, data, n);
        p->err_len += n;
    }
    p->err[p->err_len] = '\0';
}

/* Reads what stderr has now, without waiting. */
static void drain_stderr(kb_baseline_process *p) {
    char chunk[4096];
    while (p->err_fd >= 0) {
        ssize_t n = read(p->err_fd, chunk, sizeof chunk);
        if (n > 0)
            keep_stderr(p, chunk, (size_t)n);
        else if (n == 0)
            close_fd(&p->err_fd);
        else if (errno != EINTR)
            break; /* EAGAIN: nothing more for now */
    }
}

/* The last non-empty line of the child's stderr ("" if none): the last line of a Python
 * traceback names the exception, which is the useful part. */
static void stderr_last_line(const kb_baseline_process *p, char *out, size_t size) {
    size_t end = p->err_len;
    while (end > 0 &&
           (p->err[end - 1] == '\n' || p->err[end - 1] == '\r' || p->err[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && p->err[start - 1] != '\n')
        start--;
    size_t n = end - start < size - 1 ? end - start : size - 1;
    memcpy(out, p->err + start, n);
    out[n] = '\0';
}

/* Waits up to `seconds` for the child to exit, reading its stderr meanwhile (a child blocked
 * on a full stderr pipe would never exit). True once it is reaped. */
static bool wait_exit(kb_baseline_process *p, double seconds) {
    double deadline = now_seconds() + seconds;
    while (p->pid > 0) {
        int status = 0;
        pid_t r = waitpid(p->pid, &status, WNOHANG);
        if (r == p->pid || (r < 0 && errno == ECHILD)) {
            /* ECHILD: the program ignores SIGCHLD, so the kernel reaped it already. */
            p->exit_known = r == p->pid;
            p->exit_status = status;
            p->pid = 0;
            break;
        }
        if (r < 0 && errno != EINTR)
            break;
        int wait = remaining_ms(deadline);
        if (wait == 0)
            break;
        if (p->err_fd >= 0) {
            struct pollfd fd = {.fd = p->err_fd, .events = POLLIN};
            poll(&fd, 1, wait < 10 ? wait : 10);
            drain_stderr(p);
        } else {
            struct timespec pause = {0, 5 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    drain_stderr(p);
    return p->pid == 0;
}

static void kill_child(kb_baseline_process *p) {
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        wait_exit(p, 5.0);
    }
}

/* Marks the child unusable, kills it if it still runs, and fails with a message that every
 * later call repeats. */
__attribute__((format(printf, 3, 4))) static kb_status
broken(kb_baseline_process *p, kb_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(p->reason, sizeof p->reason, format, args);
    va_end(args);
    p->broken = status;
    kill_child(p);
    close_fd(&p->in_fd);
    return kb_fail(status, "%s", p->reason);
}

/* The child closed its end of a pipe: it exited or is about to. Says how, with its stderr. */
static kb_status child_gone(kb_baseline_process *p, const char *cmd) {
    close_fd(&p->in_fd); /* a child still reading its stdin sees the end and exits */
    wait_exit(p, KB_BASELINE_EXIT_GRACE);
    char how[96];
    if (p->pid > 0)
        snprintf(how, sizeof how, "closed its pipes but did not exit (killed)");
    else if (!p->exit_known)
        snprintf(how, sizeof how, "exited");
    else if (WIFEXITED(p->exit_status))
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(p->exit_status));
    else if (WIFSIGNALED(p->exit_status))
        snprintf(how, sizeof how, "was killed by signal %d (%s)", WTERMSIG(p->exit_status),
                 strsignal(WTERMSIG(p->exit_status)));
    else
        snprintf(how, sizeof how, "ended");
    char last[384];
    stderr_last_line(p, last, sizeof last);
    /* 127 without a word is how a failed exec shows where posix_spawn cannot report it
     * (under qemu-user, or an interpreter whose #! line names a missing program). */
    if (!last[0] && p->exit_known && WIFEXITED(p->exit_status) &&
        WEXITSTATUS(p->exit_status) == 127)
        snprintf(last, sizeof last, "cannot run %s? (set KB_PYTHON to a Python 3 with NumPy)",
                 p->python);
    return broken(p, KB_EIO, "the baseline runner %s during %s%s%s", how, cmd, last[0] ? ": " : "",
                  last);
}

/* Writes all of data to the child's stdin before the deadline. SIGPIPE is blocked in this
 * thread while writing and a SIGPIPE the write raised is consumed before unblocking, so a
 * dead child shows as EPIPE here and the program's signal handling is unchanged. */
static kb_status write_all(kb_baseline_process *p, const char *data, size_t size, const char *cmd,
                           double deadline) {
    sigset_t pipe_set, old_mask, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigemptyset(&pending);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);

    int error = 0;
    bool timed_out = false;
    while (size > 0) {
        ssize_t n = write(p->in_fd, data, size);
        if (n > 0) {
            data += n;
            size -= (size_t)n;
        } else if (n < 0 && errno == EAGAIN) {
            int wait = remaining_ms(deadline);
            if (wait == 0) {
                timed_out = true;
                break;
            }
            struct pollfd fd = {.fd = p->in_fd, .events = POLLOUT};
            poll(&fd, 1, wait);
        } else if (n < 0 && errno != EINTR) {
            error = errno;
            break;
        }
    }

    if (error == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);

    if (error == EPIPE)
        return child_gone(p, cmd);
    if (error)
        return broken(p, KB_EIO, "cannot send %s to the baseline runner: %s", cmd, strerror(error));
    if (timed_out)
        return broken(p, KB_EIO,
                      "the baseline runner did not read the %s request within %g s; killed it", cmd,
                      p->timeout);
    return KB_OK;
}

/* Reads one line from the child's stdout, without its newline, into p->buf (NUL-terminated
 * at the newline); *consumed is how many bytes of p->buf to drop after using it. */
static kb_status read_line(kb_baseline_process *p, const char *cmd, double deadline,
                           size_t *consumed) {
    size_t scanned = 0;
    for (;;) {
        char *newline = p->len > scanned ? memchr(p->buf + scanned, '\n', p->len - scanned) : NULL;
        if (newline) {
            *newline = '\0';
            *consumed = (size_t)(newline - p->buf) + 1;
            return KB_OK;
        }
        scanned = p->len;
        if (p->len >= KB_BASELINE_MAX_REPLY)
            return broken(p, KB_EFORMAT, "malformed reply to %s: longer than %zu bytes", cmd,
                          KB_BASELINE_MAX_REPLY);
        int wait = remaining_ms(deadline);
        if (wait == 0)
            return broken(p, KB_EIO,
                          "the baseline runner did not reply to %s within %g s; "
                          "killed it",
                          cmd, p->timeout);
        struct pollfd fds[2] = {{.fd = p->out_fd, .events = POLLIN},
                                {.fd = p->err_fd, .events = POLLIN}};
        int r = poll(fds, p->err_fd >= 0 ? 2 : 1, wait);
        if (r < 0 && errno != EINTR)
            return broken(p, KB_EIO, "waiting for the baseline runner: %s", strerror(errno));
        if (r <= 0)
            continue;
        if (p->err_fd >= 0 && fds[1].revents)
            drain_stderr(p);
        if (!fds[0].revents)
            continue;
        if (p->cap - p->len < 4096) {
            size_t cap = p->cap ? p->cap * 2 : 65536;
            char *grown = realloc(p->buf, cap);
            if (!grown)
                return broken(p, KB_ENOMEM, "out of memory reading the baseline runner's reply");
            p->buf = grown;
            p->cap = cap;
        }
        /* One byte stays free for the NUL that ends the line. */
        ssize_t n = read(p->out_fd, p->buf + p->len, p->cap - p->len - 1);
        if (n > 0)
            p->len += (size_t)n;
        else if (n == 0)
            return child_gone(p, cmd);
        else if (errno != EAGAIN && errno != EINTR)
            return broken(p, KB_EIO, "reading the baseline runner's reply: %s", strerror(errno));
    }
}

/* Sends request (stolen) and returns its reply, an object with a boolean "ok". */
static kb_status transact(kb_baseline_process *p, json_t *request, const char *cmd,
                          json_t **reply) {
    *reply = NULL;
    if (p->broken) {
        json_decref(request);
        return kb_fail(p->broken, "%s", p->reason);
    }
    char *text = request ? kb_json_dumps(request, JSON_COMPACT) : NULL;
    json_decref(request);
    if (!text)
        return kb_fail(KB_ENOMEM, "out of memory building the %s request", cmd);
    size_t size = strlen(text);
    /* The line ends where the NUL was; compact JSON has no newline inside. */
    text[size] = '\n';
    double deadline = now_seconds() + p->timeout;
    kb_status s = write_all(p, text, size + 1, cmd, deadline);
    free(text);
    if (s != KB_OK)
        return s;
    size_t consumed = 0;
    if ((s = read_line(p, cmd, deadline, &consumed)) != KB_OK)
        return s;
    json_error_t error;
    json_t *r = json_loads(p->buf, 0, &error);
    if (!r || !json_is_object(r) || !json_is_boolean(json_object_get(r, "ok"))) {
        char start[81];
        snprintf(start, sizeof start, "%s", p->buf);
        json_decref(r);
        return broken(p, KB_EFORMAT, "malformed reply to %s from the baseline runner: %s", cmd,
                      start);
    }
    memmove(p->buf, p->buf + consumed, p->len - consumed);
    p->len -= consumed;
    *reply = r;
    return KB_OK;
}

/* The failure an {"ok":false} reply describes; the child stays usable. */
static kb_status reply_failure(json_t *reply, const char *cmd) {
    const char *error = json_string_value(json_object_get(reply, "error"));
    bool unsupported = json_is_true(json_object_get(reply, "unsupported")) ||
                       json_is_true(json_object_get(reply, "missing"));
    kb_status s = kb_fail(unsupported ? KB_EUNSUPPORTED : KB_EINVAL, "baseline %s: %s", cmd,
                          error ? error : "failed without a message");
    json_decref(reply);
    return s;
}

static kb_status simple_request(kb_baseline_process *p, const char *cmd, json_t **reply) {
    json_t *request = json_pack("{ss}", "cmd", cmd);
    kb_status s = transact(p, request, cmd, reply);
    if (s != KB_OK)
        return s;
    if (!json_is_true(json_object_get(*reply, "ok"))) {
        s = reply_failure(*reply, cmd);
        *reply = NULL;
    }
    return s;
}

static kb_status spawn(char *const argv[], kb_baseline_process **out);

kb_status kb_baseline_start(const char *python, const char *runner_path,
                            kb_baseline_process **out) {
    *out = NULL;
    if (!python)
        python = kb_baseline_python();
    char found[4096];
    if (!runner_path) {
        kb_status s = kb_baseline_runner_path(found, sizeof found);
        if (s != KB_OK)
            return s;
        runner_path = found;
    }
    /* Python would report a missing script too, but only after starting; this says which
     * file and how to point at another. */
    if (access(runner_path, R_OK) != 0)
        return kb_fail(KB_EIO, "baseline runner %s: %s (set KB_BASELINE_RUNNER)", runner_path,
                       strerror(errno));

    char *argv[] = {(char *)python, (char *)runner_path, NULL};
    kb_status st = spawn(argv, out);
    if (st == KB_EUNSUPPORTED)
        return kb_fail(KB_EUNSUPPORTED,
                       "cannot run the baseline runner's Python %s: %s (set KB_PYTHON to a "
                       "Python 3 with NumPy)",
                       python, kb_last_error());
    return st;
}

kb_status kb_baseline_start_kbench(const char *kbench, kb_baseline_process **out) {
    *out = NULL;
    if (access(kbench, X_OK) != 0)
        return kb_fail(KB_EIO, "kbench=%s: %s (the other build's kbench executable)", kbench,
                       strerror(errno));
    char *argv[] = {(char *)kbench, "serve", NULL};
    kb_status st = spawn(argv, out);
    if (st == KB_EUNSUPPORTED)
        return kb_fail(KB_EUNSUPPORTED, "cannot run %s serve: %s", kbench, kb_last_error());
    return st;
}

/* How long a runner's OpenMP workers (PyTorch's, and kbench serve's) keep spinning once a
 * parallel region ends, unless the environment says otherwise: GNU OpenMP's default spin lasted
 * 7.5 to 8 ms after each PyTorch call at two threads (Zen 4), running on into the next block of
 * samples, kbench's own, whose second thread then waited for a scheduler tick: a third of the
 * two-thread cases had samples of 4 to 16 ms among their microseconds. 10000 spins end about
 * 0.3 ms after a region, while the calls of a block, back to back, still find their workers
 * spinning (PyTorch's sum of float64 1024x1024 at two threads: 48.9 against 57.8 us, noise;
 * docs/baselines.md). */
#define KB_BASELINE_SPINCOUNT "GOMP_SPINCOUNT=10000"

/* The calling process's environment with KB_BASELINE_SPINCOUNT added where GOMP_SPINCOUNT is not
 * set, for the child; NULL when out of memory. Freed with free() (the strings are environ's). */
static char **child_environment(void) {
    size_t n = 0;
    bool set = false;
    for (; environ[n]; n++)
        set |= strncmp(environ[n], "GOMP_SPINCOUNT=", 15) == 0;
    char **env = malloc((n + 2) * sizeof *env);
    if (!env)
        return NULL;
    memcpy(env, environ, n * sizeof *env);
    if (!set)
        env[n++] = (char *)KB_BASELINE_SPINCOUNT;
    env[n] = NULL;
    return env;
}

/* Starts argv[0] (looked up in PATH) with pipes on its stdin, stdout and stderr, and
 * child_environment's environment. KB_EUNSUPPORTED, the message saying why, when it cannot be
 * run. */
static kb_status spawn(char *const argv[], kb_baseline_process **out) {
    kb_baseline_process *p = calloc(1, sizeof *p);
    if (!p)
        return kb_fail(KB_ENOMEM, "out of memory starting the baseline runner");
    p->in_fd = p->out_fd = p->err_fd = -1;
    snprintf(p->python, sizeof p->python, "%s", argv[0]);
    p->timeout = KB_BASELINE_TIMEOUT_SECONDS;

    /* Close-on-exec everywhere: the child gets only its three ends (dup2 clears the flag),
     * and a runner started from another thread at the same time inherits none of ours. */
    int in[2] = {-1, -1}, outp[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(outp, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        kb_status s =
            kb_fail(KB_EIO, "cannot create pipes for the baseline runner: %s", strerror(errno));
        int fds[] = {in[0], in[1], outp[0], outp[1], err[0], err[1]};
        for (int i = 0; i < 6; i++)
            close_fd(&fds[i]);
        free(p);
        return s;
    }

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, outp[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    /* The child starts with no blocked signals and default SIGPIPE, whatever the calling
     * thread had: Python sets up its own handling. */
    posix_spawnattr_init(&attr);
    sigset_t none, pipe_set;
    sigemptyset(&none);
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &pipe_set);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    pid_t pid;
    char **env = child_environment();
    int rc = env ? posix_spawnp(&pid, argv[0], &actions, &attr, argv, env) : ENOMEM;
    free(env);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(in[0]);
    close(outp[1]);
    close(err[1]);
    if (rc != 0) {
        close(in[1]);
        close(outp[0]);
        close(err[0]);
        free(p);
        return kb_fail(KB_EUNSUPPORTED, "%s", strerror(rc));
    }
    p->pid = pid;
    p->in_fd = in[1];
    p->out_fd = outp[0];
    p->err_fd = err[0];
    /* Non-blocking, so that every wait goes through poll() and its deadline. */
    int fds[] = {p->in_fd, p->out_fd, p->err_fd};
    for (int i = 0; i < 3; i++)
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    *out = p;
    return KB_OK;
}

void kb_baseline_set_timeout(kb_baseline_process *p, double seconds) {
    if (seconds > 0)
        p->timeout = seconds;
}

kb_status kb_baseline_hello(kb_baseline_process *p, json_t **info) {
    *info = NULL;
    json_t *reply;
    kb_status s = simple_request(p, "hello", &reply);
    if (s != KB_OK)
        return s;
    json_object_del(reply, "ok");
    *info = reply;
    return KB_OK;
}

kb_status kb_baseline_require(kb_baseline_process *p, const char *library, json_t **info) {
    if (info)
        *info = NULL;
    json_t *request = json_pack("{ss ss}", "cmd", "require", "library", library);
    json_t *reply;
    kb_status s = transact(p, request, "require", &reply);
    if (s != KB_OK)
        return s;
    if (!json_is_true(json_object_get(reply, "ok"))) {
        /* The runner's message says what is missing and how to install it. */
        const char *error = json_string_value(json_object_get(reply, "error"));
        s = kb_fail(KB_EUNSUPPORTED, "%s", error ? error : "the runner cannot load it");
        json_decref(reply);
        return s;
    }
    json_object_del(reply, "ok");
    if (info)
        *info = reply;
    else
        json_decref(reply);
    return KB_OK;
}

json_t *kb_baseline_reduce_case(const char *op, bool has_axis, int axis) {
    return json_pack("{ss ss so}", "kind", "reduce", "op", op, "axis",
                     has_axis ? json_integer(axis) : json_null());
}

kb_status kb_baseline_setup(kb_baseline_process *p, const char *library, const json_t *spec,
                            const char *input_path, const char *output_path, int threads,
                            bool *unsupported, json_t **reply_out) {
    return kb_baseline_setup_id(p, NULL, library, spec, input_path, output_path, threads,
                                unsupported, reply_out);
}

kb_status kb_baseline_setup_id(kb_baseline_process *p, const char *id, const char *library,
                               const json_t *spec, const char *input_path, const char *output_path,
                               int threads, bool *unsupported, json_t **reply_out) {
    if (unsupported)
        *unsupported = false;
    if (reply_out)
        *reply_out = NULL;
    if (!library || !json_is_object(spec) || !input_path || !output_path)
        return kb_fail(KB_EINVAL, "baseline setup needs a library, a case object and the "
                                  "input and output paths");
    json_t *request = json_pack("{ss ss sO ss ss so}", "cmd", "setup", "library", library, "case",
                                spec, "input", input_path, "output", output_path, "threads",
                                threads > 0 ? json_integer(threads) : json_null());
    if (request && id)
        json_object_set_new(request, "id", json_string(id));
    json_t *reply;
    kb_status s = transact(p, request, "setup", &reply);
    if (s != KB_OK)
        return s;
    if (!json_is_true(json_object_get(reply, "ok"))) {
        if (unsupported)
            *unsupported = json_is_true(json_object_get(reply, "unsupported"));
        return reply_failure(reply, "setup");
    }
    if (!json_is_string(json_object_get(reply, "result_dtype"))) {
        json_decref(reply);
        return broken(p, KB_EFORMAT,
                      "malformed reply to setup from the baseline runner: no "
                      "result_dtype");
    }
    json_object_del(reply, "ok");
    if (reply_out)
        *reply_out = reply;
    else
        json_decref(reply);
    return KB_OK;
}

kb_status kb_baseline_run(kb_baseline_process *p, const char *library, int64_t calls, int samples,
                          int64_t *sample_ns) {
    kb_baseline_block b = {.id = library, .calls = calls};
    return kb_baseline_run_block(p, &b, samples, sample_ns);
}

kb_status kb_baseline_run_block(kb_baseline_process *p, const kb_baseline_block *b, int samples,
                                int64_t *sample_ns) {
    if (b->calls < 1 || samples < 1 || b->warmup < 0 || b->flush_bytes < 0)
        return kb_fail(KB_EINVAL,
                       "baseline run needs at least one call and one sample, not "
                       "%lld calls and %d samples",
                       (long long)b->calls, samples);
    json_t *request =
        json_pack("{ss sI si}", "cmd", "run", "calls", (json_int_t)b->calls, "samples", samples);
    if (request && b->id)
        json_object_set_new(request, "id", json_string(b->id));
    if (request && b->warmup > 0)
        json_object_set_new(request, "warmup", json_integer(b->warmup));
    if (request && b->flush_bytes > 0)
        json_object_set_new(request, "flush_bytes", json_integer(b->flush_bytes));
    json_t *reply;
    kb_status s = transact(p, request, "run", &reply);
    if (s != KB_OK)
        return s;
    if (!json_is_true(json_object_get(reply, "ok")))
        return reply_failure(reply, "run");
    json_t *values = json_object_get(reply, "sample_ns");
    if (!json_is_array(values) || json_array_size(values) != (size_t)samples) {
        json_decref(reply);
        return broken(p, KB_EFORMAT,
                      "malformed reply to run from the baseline runner: expected %d samples",
                      samples);
    }
    for (int i = 0; i < samples; i++) {
        json_t *v = json_array_get(values, (size_t)i);
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            json_decref(reply);
            return broken(p, KB_EFORMAT,
                          "malformed reply to run from the baseline runner: "
                          "sample %d is not a non-negative integer",
                          i);
        }
        sample_ns[i] = (int64_t)json_integer_value(v);
    }
    json_decref(reply);
    return KB_OK;
}

kb_status kb_baseline_teardown(kb_baseline_process *p) {
    json_t *reply;
    kb_status s = simple_request(p, "teardown", &reply);
    json_decref(reply);
    return s;
}

const char *kb_baseline_stderr(const kb_baseline_process *p) {
    return p->err;
}

kb_status kb_baseline_stop(kb_baseline_process *p) {
    if (!p)
        return KB_OK;
    kb_status s = p->broken ? kb_fail(p->broken, "%s", p->reason) : KB_OK;
    if (!p->broken) {
        double saved = p->timeout;
        if (p->timeout > KB_BASELINE_STOP_WAIT)
            p->timeout = KB_BASELINE_STOP_WAIT;
        json_t *reply;
        s = simple_request(p, "quit", &reply);
        json_decref(reply);
        p->timeout = saved;
    }
    close_fd(&p->in_fd);
    if (p->pid > 0) {
        double wait = p->timeout < KB_BASELINE_STOP_WAIT ? p->timeout : KB_BASELINE_STOP_WAIT;
        if (!wait_exit(p, wait)) {
            kill_child(p);
            if (s == KB_OK)
                s = kb_fail(KB_EIO, "the baseline runner did not exit after quit; killed it");
        } else if (s == KB_OK && p->exit_known &&
                   !(WIFEXITED(p->exit_status) && WEXITSTATUS(p->exit_status) == 0)) {
            s = WIFEXITED(p->exit_status)
                    ? kb_fail(KB_EIO, "the baseline runner exited with status %d after quit",
                              WEXITSTATUS(p->exit_status))
                    : kb_fail(KB_EIO, "the baseline runner was killed by signal %d after quit",
                              WTERMSIG(p->exit_status));
        }
    }
    close_fd(&p->out_fd);
    close_fd(&p->err_fd);
    free(p->buf);
    free(p);
    return s;
}
