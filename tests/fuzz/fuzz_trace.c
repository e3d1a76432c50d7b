/* libFuzzer target for the reader of profiler traces (`kbench trace analyze`): any bytes must
 * give either the events of a Chrome trace, each classified as a kernel, a CPU op or neither,
 * with every counted op's FLOPs and bytes finite and not negative, or KB_EFORMAT with a
 * one-line message; never a crash, a leak or undefined behaviour (the whole library is built
 * with ASan and UBSan for fuzzing). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "results/trace_detail.h"
#include "results/trace_ops.h"
#include "results/trace_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kb_status on_member(const char *key, json_t *value, void *context) {
    (void)context;
    if (!key || !value)
        __builtin_trap();
    return KB_OK;
}

static kb_status on_event(json_t *event, int64_t index, void *context) {
    int64_t *count = context;
    if (index != (*count)++)
        __builtin_trap();
    const char *name;
    double seconds;
    const json_t *args;
    bool malformed;
    if (kb_trace_event_of(event, kb_trace_kernel_cats, &name, &seconds, &args, &malformed)) {
        if (!name || !(seconds >= 0) || !isfinite(seconds))
            __builtin_trap();
        return KB_OK;
    }
    if (!kb_trace_event_of(event, kb_trace_cpu_op_cats, &name, &seconds, &args, &malformed))
        return KB_OK;
    kb_trace_work w;
    kb_trace_op_status st = kb_trace_op_work(name, args, &w);
    if (st == KB_TRACE_OP_OK &&
        (!(w.flops >= 0) || !(w.bytes >= 0) || !isfinite(w.flops) || !isfinite(w.bytes)))
        __builtin_trap();
    if (st != KB_TRACE_OP_OK && (!w.why[0] || strchr(w.why, '\n')))
        __builtin_trap();
    return KB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int64_t count = 0;
    kb_trace_visitor v = {.member = on_member, .event = on_event, .context = &count};
    kb_status st = kb_trace_scan((const char *)data, size, "fuzz", &v);
    if (st != KB_OK) {
        const char *m = kb_last_error();
        if (st != KB_EFORMAT || !m[0] || strchr(m, '\n'))
            __builtin_trap();
    }
    return 0;
}
