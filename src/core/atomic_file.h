#ifndef KB_CORE_ATOMIC_FILE_H
#define KB_CORE_ATOMIC_FILE_H

#include <stdio.h>

#include "kbench/error.h"

/* Fills the file; returns KB_OK, or a status with kb_fail's message. */
typedef kb_status (*kb_atomic_writer)(FILE *f, void *context);

/* Writes where path points, following symbolic links. A regular file, or a name that does not
 * exist yet, is written whole or not at all: write fills a temporary file beside it, which
 * then replaces it by rename, so a reader sees the old file or the new one, never a part, and
 * a failed or interrupted write (SIGINT, SIGTERM, SIGHUP: core/cleanup.h) leaves it as it was
 * and no temporary behind; a link stays a link. A FIFO, a character device (/dev/null,
 * /dev/full) or a socket is written to directly, and "-" is standard output. The file gets the
 * usual 0666 less umask. Every write error is reported, the message starting with path. Not
 * fsynced: the point is atomicity, not durability across a crash, which every benchmark run
 * would pay for. */
kb_status kb_atomic_write(const char *path, kb_atomic_writer write, void *context);

/* Whether kb_atomic_write could write path: "-", a writable FIFO or device, or a name (after
 * symbolic links) in a directory that exists and is writable. KB_EIO ("PATH: cannot write
 * into DIR: REASON") when not; for commands that check their outputs before long work. */
kb_status kb_atomic_write_possible(const char *path);

#endif
