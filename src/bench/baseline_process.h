#ifndef KB_BENCH_BASELINE_PROCESS_H
#define KB_BENCH_BASELINE_PROCESS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "kbench/error.h"

/* The Python baseline runner (baselines/runner.py) as a child process: kbench starts it once
 * per run and sends it one JSON request per line on its stdin; it answers one JSON line per
 * request on its stdout. The runner's docstring is the protocol's reference.
 *
 * Every failure of the child (it cannot start, it dies, it answers garbage, it does not
 * answer within the timeout) is a kb_status with a one-line message that includes the last
 * line the child wrote to stderr, typically its traceback's last line. After such a failure
 * the child is killed and every later call fails at once with the same cause; a failed
 * request the runner answered ({"ok":false}) leaves it usable.
 *
 * The calls block the calling thread (up to the timeout); one process serves one thread at
 * a time. SIGPIPE is blocked only in the writing thread and only while it writes, so a dead
 * child never kills kbench and the program's signal dispositions are left alone. */

typedef struct kb_baseline_process kb_baseline_process;

/* How long a reply may take by default: a setup loads a large input and a run may time
 * many calls of a slow case, so this is generous; it exists so that a stuck child fails the
 * run instead of hanging it. */
#define KB_BASELINE_TIMEOUT_SECONDS 300.0

/* The Python interpreter to run: $KB_PYTHON, else "python3" (looked up in PATH). */
const char *kb_baseline_python(void);

/* Finds runner.py: $KB_BASELINE_RUNNER if set (which must exist); else
 * <dir of the executable>/../share/kbench/baselines/runner.py (an installed kbench); else
 * baselines/runner.py in the source tree kbench was built from. */
kb_status kb_baseline_runner_path(char *buf, size_t size);

/* Starts `python runner_path` with pipes on its stdin, stdout and stderr. python NULL means
 * kb_baseline_python(), runner_path NULL means kb_baseline_runner_path(). Succeeds once the
 * process exists; whether Python and NumPy work shows at the first request (hello). */
kb_status kb_baseline_start(const char *python, const char *runner_path, kb_baseline_process **out);

/* Starts `kbench serve` of another build (its executable's path): a runner of the same
 * protocol for the library "kbench" (bench/baseline_serve.h). */
kb_status kb_baseline_start_kbench(const char *kbench, kb_baseline_process **out);

/* Puts the child's main thread, which computes its single-thread cases, on the CPUs of set;
 * its other threads (an OpenMP team's workers) are left where they are, so that none of them
 * spins on the CPU the main thread then times on. Nothing for a child that has exited. */
void kb_baseline_set_affinity(kb_baseline_process *p, const cpu_set_t *set);

/* The limit on each reply's wait (KB_BASELINE_TIMEOUT_SECONDS unless set), also used as the
 * time kb_baseline_stop waits for the child to exit before killing it. */
void kb_baseline_set_timeout(kb_baseline_process *p, double seconds);

/* {"cmd":"hello"}: the Python version, NumPy's version and build configuration, numexpr's
 * (or null), the thread variables and the timer. *info (new reference, the caller releases
 * it) is the reply without "ok". A runner without NumPy gives KB_EUNSUPPORTED and the
 * runner's message saying how to install it. */
kb_status kb_baseline_hello(kb_baseline_process *p, json_t **info);

/* {"cmd":"require","library":library}: imports the library in the runner; *info (new
 * reference, may be NULL) receives what it says of itself (its version, threads and build),
 * without "ok". A library that is not installed gives KB_EUNSUPPORTED with the runner's
 * message naming the command that installs it. */
kb_status kb_baseline_require(kb_baseline_process *p, const char *library, json_t **info);

/* A reduce case for kb_baseline_setup: {"kind":"reduce","op":op,"axis":axis or null}.
 * NULL only when out of memory. */
json_t *kb_baseline_reduce_case(const char *op, bool has_axis, int axis);

/* {"cmd":"setup"}: the runner loads input_path, builds the call of library ("numpy",
 * "numexpr") that computes spec (borrowed), calls it once and saves the result to
 * output_path. threads <= 0 leaves the library's default.
 *
 * The cases set up since the last teardown form a group, one per library, whose rounds can
 * be interleaved (kb_baseline_run names the library); they share one loaded copy of the
 * input. A setup for a library already in the group starts a new group, dropping every
 * case of the old one; a failed setup leaves its library without a case. A case the library cannot
 * compute gives KB_EUNSUPPORTED with *unsupported set (kbench reports it, untimed); any other
 * failure clears it. *reply (may be NULL; new reference) receives the reply without "ok", with
 * "result_dtype", "result_shape", "version" and "threads". */
kb_status kb_baseline_setup(kb_baseline_process *p, const char *library, const json_t *spec,
                            const char *input_path, const char *output_path, int threads,
                            bool *unsupported, json_t **reply);

/* kb_baseline_setup with the case's id in the group (NULL: the library's name), so that one
 * library can hold a case at each of several thread counts ("torch/threads=2"). */
kb_status kb_baseline_setup_id(kb_baseline_process *p, const char *id, const char *library,
                               const json_t *spec, const char *input_path, const char *output_path,
                               int threads, bool *unsupported, json_t **reply);

/* How the samples of one run request start, in the process that computes the case. */
typedef struct kb_baseline_block {
    const char *id;      /* the case (its id, or its library); NULL: the only case */
    int64_t calls;       /* per sample */
    int warmup;          /* untimed calls before the first sample: hot caches */
    int64_t flush_bytes; /* > 0: bytes read before every sample, untimed: cold caches */
} kb_baseline_block;

/* {"cmd":"run"} as b says: `samples` samples into sample_ns[0 .. samples-1]. */
kb_status kb_baseline_run_block(kb_baseline_process *p, const kb_baseline_block *b, int samples,
                                int64_t *sample_ns);

/* {"cmd":"run"}: `samples` samples of library's set-up case, each the nanoseconds `calls`
 * calls took in a Python loop, into sample_ns[0 .. samples-1]. library NULL: the only
 * library with a case. */
kb_status kb_baseline_run(kb_baseline_process *p, const char *library, int64_t calls, int samples,
                          int64_t *sample_ns);

/* {"cmd":"teardown"}: the runner drops every case and the input. */
kb_status kb_baseline_teardown(kb_baseline_process *p);

/* The last bytes (up to about 4 KiB) the child wrote to stderr, for a verbose report. */
const char *kb_baseline_stderr(const kb_baseline_process *p);

/* Sends quit, waits for the child to exit (killing it after the timeout) and frees p.
 * KB_OK if the child answered and exited with status 0. NULL is harmless. */
kb_status kb_baseline_stop(kb_baseline_process *p);

#endif
