#ifndef KB_CORE_FAIL_H
#define KB_CORE_FAIL_H

#include "kbench/error.h"

/* Records a one-line message for kb_last_error() and returns status, so that failures read
 *     return kb_fail(KB_EINVAL, "axis %d out of range", axis); */
kb_status kb_fail(kb_status status, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Rewrites the last message as "prefix: message" (a file's path before what was wrong in it)
 * and returns status. */
kb_status kb_fail_prefix(kb_status status, const char *prefix);

/* Returns the status of a call that failed, for functions that run a sequence of calls and
 * stop at the first failure (parsers). */
#define KB_TRY(call)                                                                               \
    do {                                                                                           \
        kb_status kb_try_status_ = (call);                                                         \
        if (kb_try_status_ != KB_OK)                                                               \
            return kb_try_status_;                                                                 \
    } while (0)

#endif
