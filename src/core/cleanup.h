#ifndef KB_CORE_CLEANUP_H
#define KB_CORE_CLEANUP_H

/* Files and directories a process is making, removed if SIGINT, SIGTERM or SIGHUP ends it
 * first: temporaries beside outputs, the baselines' shared directory and the files in it.
 * The first hold (every registration holds) installs the handler, for each of those signals
 * whose action is still the default (a program's own handler, or an ignored signal, is left
 * alone). The handler removes what is registered, newest first (so a directory after the files
 * in it), then ends the process by the same signal, as if kbench had not caught it.
 *
 * At most KB_CLEANUP_MAX paths at once; beyond that, kb_cleanup_add fails (KB_ENOMEM). Any
 * thread may add and forget (a mutex orders them); a handler running on another thread sees
 * each entry whole or not at all (release and acquire fences). The handler runs on one thread
 * while the others go on: it first waits for every thread between kb_cleanup_hold and
 * kb_cleanup_release to leave, and a thread that reaches kb_cleanup_hold after that waits
 * there for the end, so that a file being created and added, or renamed into place, is
 * neither missed nor removed halfway. */

#include <signal.h>

#include "kbench/error.h"

#define KB_CLEANUP_MAX 64

kb_status kb_cleanup_add(const char *path);

/* Holds the cleanup signals in the calling thread (their previous mask in *old) and lets them
 * through again: around creating a file and adding it, and around renaming it into place and
 * forgetting it, so that no handler comes in between. Holds nest within a thread. Never held
 * for long: a handler waits for the hold to end. */
void kb_cleanup_hold(sigset_t *old);
void kb_cleanup_release(const sigset_t *old);

/* Forgets path (it was removed, renamed into place, or is no longer the process's to
 * remove); a path never added is ignored. */
void kb_cleanup_forget(const char *path);

#endif
