#ifndef KBENCH_ERROR_H
#define KBENCH_ERROR_H

/* Status codes and the thread-local error message.
 *
 * Every function that can fail returns a kb_status: KB_OK (0) on success, a negative code
 * otherwise. On failure it also sets a one-line, human-readable message for the calling
 * thread, readable with kb_last_error() until the next failing call on that thread. */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kb_status {
    KB_OK = 0,
    KB_EINVAL = -1,      /* an argument is invalid (bad shape, unknown name, ...) */
    KB_ENOMEM = -2,      /* an allocation failed */
    KB_EIO = -3,         /* reading or writing a file failed */
    KB_EFORMAT = -4,     /* input data is malformed */
    KB_EUNSUPPORTED = -5 /* valid, but not supported by kbench, this build or this CPU */
} kb_status;

/* The message of the last failure on this thread; "" if there was none. Never NULL. */
const char *kb_last_error(void);

/* A fixed description of a status code, such as "invalid argument". */
const char *kb_strerror(kb_status status);

#ifdef __cplusplus
}
#endif

#endif
