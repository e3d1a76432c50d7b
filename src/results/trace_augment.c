/* kb_trace_augment: the trace written back with each kernel's figures in its args. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/roofline.h"
#include "kbench/trace.h"
#include "results/trace_detail.h"
#include "results/trace_format.h"
#include "results/trace_scan.h"
#include "util/internal.h"

typedef struct writer {
    const kb_trace_analysis *a;
    const kb_trace_detail *d;
    FILE *f;
    bool first;     /* no top-level member written yet */
    int64_t kernel; /* kernels seen, the next one's index in the detail */
} writer;

static kb_status put(writer *w, const json_t *value) {
    char *text = kb_json_dumps(value, KB_JSON_EXACT | JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text)
        return KB_ENOMEM;
    bool ok = fputs(text, w->f) != EOF;
    free(text);
    return ok ? KB_OK : kb_fail(KB_EIO, "cannot write the trace");
}

static kb_status put_key(writer *w, const char *key) {
    fputs(w->first ? "{\n" : ",\n", w->f);
    w->first = false;
    json_t *k = json_string(key);
    kb_status st = k ? put(w, k) : kb_fail(KB_ENOMEM, "out of memory");
    json_decref(k);
    fputs(": ", w->f);
    return st;
}

static kb_status on_member(const char *key, json_t *value, void *context) {
    writer *w = context;
    kb_status st = put_key(w, key);
    return st == KB_OK ? put(w, value) : st;
}

static kb_status on_begin(void *context) {
    writer *w = context;
    kb_status st = put_key(w, "traceEvents");
    fputs("[", w->f);
    return st;
}

static kb_status on_end(void *context) {
    writer *w = context;
    fputs("\n]", w->f);
    return KB_OK;
}

static json_t *figures(const writer *w, const kb_trace_kernel *k) {
    const char *op = k->op >= 0 ? w->d->op_names.names[k->op] : NULL;
    kb_roofline r;
    if (!kb_trace_kernel_roofline(w->a, k, &r))
        return json_pack("{s:s, s:s?}", "counted", kb_trace_reason_name(k->reason), "op", op);
    json_t *flags = json_array();
    for (unsigned f = KB_ROOFLINE_IMPOSSIBLE; f <= KB_ROOFLINE_SUSPICIOUS_LOW; f <<= 1)
        if (r.flags & f)
            json_array_append_new(flags, json_string(kb_roofline_flag_name(f)));
    return json_pack(
        "{s:s, s:s?, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "counted",
        kb_trace_reason_name(k->reason), "op", op, "peak", kb_gpu_peak_name((kb_gpu_peak)k->peak),
        "flops", json_real(k->flops), "bytes", json_real(k->bytes), "flops_per_second",
        json_real(r.flops_per_second), "bytes_per_second", json_real(r.bytes_per_second),
        "percent_of_flops", kb_json_real(r.percent_of_flops), "percent_of_bandwidth",
        kb_json_real(r.percent_of_bandwidth), "percent_of_bound", kb_json_real(r.percent_of_bound),
        "assumed_geometry", k->assumed, "flags", flags);
}

static kb_status on_event(json_t *event, int64_t index, void *context) {
    writer *w = context;
    fputs(index ? ",\n" : "\n", w->f);
    const char *name;
    double seconds;
    const json_t *args;
    bool malformed;
    if (kb_trace_event_of(event, kb_trace_kernel_cats, &name, &seconds, &args, &malformed)) {
        if (w->kernel >= w->d->nkernels)
            return kb_fail(KB_EFORMAT, "%s: changed since it was analyzed", w->a->label);
        json_t *f = figures(w, &w->d->kernels[w->kernel++]);
        json_t *own = json_object_get(event, "args");
        if (!json_is_object(own)) {
            own = json_object();
            json_object_set_new(event, "args", own);
        }
        if (!f || json_object_set_new(own, "kbench", f) != 0)
            return kb_fail(KB_ENOMEM, "out of memory");
    }
    return put(w, event);
}

static kb_status write_trace(FILE *f, void *context) {
    writer *w = context;
    w->f = f;
    kb_trace_text text;
    kb_status st = kb_trace_text_open(w->a->label, &text);
    if (st != KB_OK)
        return st;
    kb_trace_visitor v = {.member = on_member,
                          .events_begin = on_begin,
                          .events_end = on_end,
                          .event = on_event,
                          .context = w};
    st = kb_trace_scan(text.text, text.length, w->a->label, &v);
    kb_trace_text_close(&text);
    if (st == KB_OK && w->kernel != w->d->nkernels)
        st = kb_fail(KB_EFORMAT, "%s: changed since it was analyzed", w->a->label);
    if (st == KB_OK && fputs(w->first ? "{}\n" : "\n}\n", f) == EOF)
        st = kb_fail(KB_EIO, "cannot write the trace");
    return st;
}

kb_status kb_trace_augment(const kb_trace_analysis *a, const char *path) {
    writer w = {.a = a, .d = a->detail, .first = true};
    if (!w.d)
        return kb_fail(KB_EINVAL, "the analysis holds no kernels to write");
    return kb_atomic_write(path, write_trace, &w);
}
