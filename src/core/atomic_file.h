#ifndef KB_CORE_ATOMIC_FILE_H
#define KB_CORE_ATOMIC_FILE_H

#include <stdio.h>

#include "kbench/error.h"

/* Fills the file; returns KB_OK, or a status with kb_fail's message. */
typedef kb_status (*kb_atomic_writer)(FILE *f, void *context);

/* Writes path whole or not at all: write fills a temporary file beside path, which then
 * replaces path by rename, so a reader sees the old file or the new one, never a part, and a
 * failed write leaves path as it was and no temporary behind. The file gets the usual 0666
 * less umask. On failure the message starts with path. Not fsynced: the point is atomicity,
 * not durability across a crash, which every benchmark run would pay for. */
kb_status kb_atomic_write(const char *path, kb_atomic_writer write, void *context);

/* Whether kb_atomic_write could create its temporary beside path: the directory path names
 * exists and is writable. KB_EIO ("PATH: cannot write into DIR: REASON") when not; for
 * commands that check their outputs before long work. */
kb_status kb_atomic_write_possible(const char *path);

#endif
