#ifndef KB_EXPR_FAIL_AT_H
#define KB_EXPR_FAIL_AT_H

#include "kbench/error.h"

/* Every expression error goes through here, so that each message ends the same way,
 * "... at column N", and keeps that ending even when what it quotes is long. */
kb_status kb_expr_fail_at(kb_status status, int column, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Adds " at column N" to the message of a failure that happened below the expression layer
 * (kb_reduce_result's "axis 2 out of range for a 2-d array") and returns status. */
kb_status kb_expr_fail_here(kb_status status, int column);

#endif
