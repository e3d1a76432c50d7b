/* kb_scratch_get and kb_scratch_release: per-thread scratch buffers kept across calls
 * (scratch.h says why). */
#include <pthread.h>
#include <stdlib.h>

#include "core/scratch.h"

typedef struct scratch_set {
    void *buffer[KB_SCRATCH_SLOTS];
    size_t size[KB_SCRATCH_SLOTS];
} scratch_set;

static _Thread_local scratch_set kept;
static pthread_key_t release_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* At thread exit: the key's value is the thread's own set, still valid while destructors run. */
static void release_thread(void *set) {
    scratch_set *s = set;
    for (int i = 0; i < KB_SCRATCH_SLOTS; i++) {
        free(s->buffer[i]);
        s->buffer[i] = NULL;
        s->size[i] = 0;
    }
}

static void make_key(void) {
    (void)pthread_key_create(&release_key, release_thread);
}

static size_t round_up(size_t bytes) {
    return (bytes + 63) / 64 * 64;
}

void *kb_scratch_get(kb_scratch_slot slot, size_t bytes) {
    size_t size = round_up(bytes ? bytes : 1);
    if (size < bytes)
        return NULL;
    if (size > KB_SCRATCH_KEEP_MAX)
        return aligned_alloc(64, size);
    if (size <= kept.size[slot])
        return kept.buffer[slot];
    pthread_once(&key_once, make_key);
    free(kept.buffer[slot]);
    kept.buffer[slot] = aligned_alloc(64, size);
    kept.size[slot] = kept.buffer[slot] ? size : 0;
    /* Registered on the first buffer of the thread, so that its exit frees them. */
    if (kept.buffer[slot] && pthread_getspecific(release_key) == NULL)
        (void)pthread_setspecific(release_key, &kept);
    return kept.buffer[slot];
}

void kb_scratch_release(kb_scratch_slot slot, void *p) {
    if (p && p != kept.buffer[slot])
        free(p);
}
