/* Expression errors that point at the column where the problem is. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "expr/fail_at.h"

/* Shorter than kb_last_error's buffer by more than " at column 2147483647", so that a long
 * quoted name is cut rather than the position. */
enum { MESSAGE_ROOM = 400 };

static kb_status fail_with_column(kb_status status, int column, char *message, int length) {
    if (length >= MESSAGE_ROOM) /* cut: say so */
        memcpy(message + MESSAGE_ROOM - 4, "...", 3);
    return kb_fail(status, "%s at column %d", message, column);
}

kb_status kb_expr_fail_at(kb_status status, int column, const char *format, ...) {
    char message[MESSAGE_ROOM];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return fail_with_column(status, column, message, length);
}

kb_status kb_expr_fail_here(kb_status status, int column) {
    char message[MESSAGE_ROOM];
    /* Copied first: kb_fail writes the buffer kb_last_error reads. */
    int length = snprintf(message, sizeof message, "%s", kb_last_error());
    return fail_with_column(status, column, message, length);
}
