/* kb_fail and kb_last_error: the thread-local message behind every failing kb_status. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/fail.h"

static _Thread_local char last_message[512];

const char *kb_last_error(void) {
    return last_message;
}

const char *kb_strerror(kb_status status) {
    switch (status) {
        case KB_OK:
            return "success";
        case KB_EINVAL:
            return "invalid argument";
        case KB_ENOMEM:
            return "out of memory";
        case KB_EIO:
            return "input/output error";
        case KB_EFORMAT:
            return "malformed input";
        case KB_EUNSUPPORTED:
            return "not supported";
    }
    return "unknown status";
}

kb_status kb_fail(kb_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(last_message, sizeof last_message, format, args);
    va_end(args);
    /* The message is one line by contract; a newline from formatted input would break it. */
    for (char *p = last_message; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return status;
}

kb_status kb_fail_prefix(kb_status status, const char *prefix) {
    /* kb_fail formats into the buffer the message is read from: copy it first. */
    char message[sizeof last_message];
    snprintf(message, sizeof message, "%s", last_message);
    return kb_fail(status, "%s: %s", prefix, message);
}
