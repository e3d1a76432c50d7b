/* The kb_impl helpers the measurement shares: recording a failure, applying its settings. */
#include <stdio.h>

#include "bench/impl.h"
#include "kbench/threads.h"

void kb_impl_fail(kb_impl *m, const char *message) {
    if (m->failed)
        return;
    m->failed = true;
    if (!message)
        message = m->c.error[0] ? m->c.error : kb_strerror(m->c.status);
    snprintf(m->error, sizeof m->error, "%s", message);
}

bool kb_impl_apply(kb_impl *m) {
    if (m->baseline) /* the runner's process has settings of its own */
        return !m->failed;
    if (m->has_simd && kb_simd_set(m->simd_request) != KB_OK) {
        kb_impl_fail(m, kb_last_error());
        return false;
    }
    if (m->threads > 0 && kb_threads_set(m->threads) != KB_OK) {
        kb_impl_fail(m, kb_last_error());
        return false;
    }
    if (kb_simd_current(&m->simd_used) != KB_OK || kb_threads_current(&m->threads_used) != KB_OK) {
        kb_impl_fail(m, kb_last_error());
        return false;
    }
    return true;
}
