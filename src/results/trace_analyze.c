/* kb_trace_analyze: a profiler trace's kernels joined to their CPU ops, their work counted and
 * held against the device's datasheet peaks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/internal.h"
#include "kbench/roofline.h"
#include "kbench/trace.h"
#include "results/trace_detail.h"
#include "results/trace_ops.h"
#include "results/trace_scan.h"
#include "util/internal.h"

const char *const kb_trace_kernel_cats[] = {"kernel", NULL};
const char *const kb_trace_cpu_op_cats[] = {"cpu_op", "operator", NULL};

const char *kb_trace_reason_name(kb_trace_reason reason) {
    static const char *const names[] = {"counted",   "no-cpu-op",   "unknown-op",
                                        "no-shapes", "unsupported", "no-peak"};
    return reason >= 0 && reason < KB_TRACE_REASON_COUNT ? names[reason] : "?";
}

bool kb_trace_event_of(const json_t *e, const char *const *cats, const char **name, double *seconds,
                       const json_t **args, bool *malformed) {
    *malformed = false;
    const char *cat = json_string_value(json_object_get(e, "cat"));
    const char *ph = json_string_value(json_object_get(e, "ph"));
    bool of = false;
    for (int i = 0; cat && cats[i]; i++)
        of |= strcasecmp(cat, cats[i]) == 0;
    if (!of || !ph || strcmp(ph, "X") != 0)
        return false;
    const json_t *ts = json_object_get(e, "ts"), *dur = json_object_get(e, "dur");
    *name = json_string_value(json_object_get(e, "name"));
    if (!*name || !json_is_number(ts) || !json_is_number(dur) || !(json_number_value(dur) >= 0) ||
        !isfinite(json_number_value(ts)) || !isfinite(json_number_value(dur))) {
        *malformed = true;
        return false;
    }
    *seconds = json_number_value(dur) * 1e-6; /* Chrome traces count microseconds */
    *args = json_object_get(e, "args");
    return true;
}

/* A CPU op as the join needs it. */
typedef struct cpu_op {
    int64_t external_id;
    double seconds;
    int32_t name;
    uint8_t status; /* kb_trace_op_status */
    uint8_t dtype;
    bool matrix, assumed;
    double flops, bytes;
    double kernel_seconds; /* of the kernels joined to it */
} cpu_op;

typedef struct pass {
    kb_trace_analysis *a;
    kb_trace_detail *d;
    int64_t *kernel_ids; /* each kernel's External id; -1 without (then its op's index) */
    int64_t capacity;
    cpu_op *ops;
    int64_t nops, ops_capacity;
    bool mixed_devices;
} pass;

static bool external_id(const json_t *args, int64_t *id) {
    const json_t *v = json_object_get(args, "External id");
    if (!v)
        v = json_object_get(args, "external id");
    *id = json_is_integer(v) ? json_integer_value(v) : -1;
    return *id >= 0;
}

static kb_status grow(void **items, int64_t *capacity, int64_t count, size_t size) {
    if (count < *capacity)
        return KB_OK;
    int64_t grown = *capacity ? 2 * *capacity : 1024;
    void *p = realloc(*items, (size_t)grown * size);
    if (!p)
        return kb_fail(KB_ENOMEM, "out of memory reading the trace");
    *items = p;
    *capacity = grown;
    return KB_OK;
}

static kb_status add_kernel(pass *p, const char *name, double seconds, const json_t *args) {
    kb_trace_detail *d = p->d;
    int64_t capacity = p->capacity;
    kb_status st = grow((void **)&d->kernels, &capacity, d->nkernels, sizeof *d->kernels);
    if (st == KB_OK)
        st = grow((void **)&p->kernel_ids, &p->capacity, d->nkernels, sizeof *p->kernel_ids);
    if (st != KB_OK)
        return st;
    int group = kb_trace_names_add(&d->names, name);
    if (group < 0)
        return KB_ENOMEM;
    d->kernels[d->nkernels] = (kb_trace_kernel){
        .group = group, .op = -1, .peak = -1, .reason = KB_TRACE_NO_CPU_OP, .seconds = seconds};
    external_id(args, &p->kernel_ids[d->nkernels]);
    d->nkernels++;
    return KB_OK;
}

static kb_status add_op(pass *p, const char *name, double seconds, const json_t *args) {
    int64_t id;
    if (!external_id(args, &id))
        return KB_OK; /* no kernel can name it */
    kb_status st = grow((void **)&p->ops, &p->ops_capacity, p->nops, sizeof *p->ops);
    if (st != KB_OK)
        return st;
    int index = kb_trace_names_add(&p->d->op_names, name);
    if (index < 0)
        return KB_ENOMEM;
    kb_trace_work w;
    kb_trace_op_status status = kb_trace_op_work(name, args, &w);
    p->ops[p->nops++] = (cpu_op){.external_id = id,
                                 .seconds = seconds,
                                 .name = index,
                                 .status = (uint8_t)status,
                                 .dtype = (uint8_t)w.dtype,
                                 .matrix = w.matrix,
                                 .assumed = w.assumed,
                                 .flops = w.flops,
                                 .bytes = w.bytes};
    return KB_OK;
}

static kb_status on_event(json_t *event, int64_t index, void *context) {
    (void)index;
    pass *p = context;
    p->a->events++;
    const char *name;
    double seconds;
    const json_t *args;
    bool malformed;
    if (kb_trace_event_of(event, kb_trace_kernel_cats, &name, &seconds, &args, &malformed))
        return add_kernel(p, name, seconds, args);
    p->a->malformed += malformed;
    if (kb_trace_event_of(event, kb_trace_cpu_op_cats, &name, &seconds, &args, &malformed))
        return add_op(p, name, seconds, args);
    p->a->malformed += malformed;
    return KB_OK;
}

static kb_status on_member(const char *key, json_t *value, void *context) {
    pass *p = context;
    if (strcmp(key, "deviceProperties") != 0 || !json_is_array(value))
        return KB_OK;
    size_t i;
    json_t *device;
    json_array_foreach(value, i, device) {
        const char *name = json_string_value(json_object_get(device, "name"));
        if (!name)
            continue;
        if (!p->a->device_name[0])
            kb_copy_string(p->a->device_name, sizeof p->a->device_name, name);
        else if (strcmp(p->a->device_name, name) != 0)
            p->mixed_devices = true;
    }
    return KB_OK;
}

static int by_external_id(const void *x, const void *y) {
    const cpu_op *a = x, *b = y;
    return (a->external_id > b->external_id) - (a->external_id < b->external_id);
}

/* Of the ops with the kernel's External id, one whose work is counted, else any; among
 * equals the shortest, the innermost of nested ops. NULL when none. */
static cpu_op *find_op(const pass *p, int64_t id) {
    int64_t lo = 0, hi = p->nops;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (p->ops[mid].external_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    cpu_op *best = NULL;
    for (int64_t i = lo; i < p->nops && p->ops[i].external_id == id; i++) {
        cpu_op *o = &p->ops[i];
        bool counted = o->status == KB_TRACE_OP_OK,
             best_counted = best && best->status == KB_TRACE_OP_OK;
        if (!best || (counted && !best_counted) ||
            (counted == best_counted && o->seconds < best->seconds))
            best = o;
    }
    return best;
}

static kb_gpu_peak choose_peak(kb_trace_dtype dtype, bool matrix, const kb_trace_analysis *a) {
    switch (dtype) {
        case KB_TRACE_F64:
            return matrix && a->device.tflops[KB_GPU_FP64_TENSOR] > 0 ? KB_GPU_FP64_TENSOR
                                                                      : KB_GPU_FP64;
        case KB_TRACE_F32:
            return matrix && a->tf32 ? KB_GPU_TF32_TENSOR : KB_GPU_FP32;
        case KB_TRACE_F16:
            return matrix ? KB_GPU_FP16_TENSOR : KB_GPU_FP16;
        case KB_TRACE_BF16:
            return matrix ? KB_GPU_FP16_TENSOR : KB_GPU_PEAK_COUNT;
        case KB_TRACE_F8:
            return KB_GPU_FP8_TENSOR;
        case KB_TRACE_I8:
            return KB_GPU_INT8_TENSOR;
        default:
            return KB_GPU_PEAK_COUNT;
    }
}

static const kb_trace_reason reason_of_status[] = {
    [KB_TRACE_OP_OK] = KB_TRACE_COUNTED,
    [KB_TRACE_OP_UNKNOWN] = KB_TRACE_UNKNOWN_OP,
    [KB_TRACE_OP_NO_SHAPES] = KB_TRACE_NO_SHAPES,
    [KB_TRACE_OP_UNSUPPORTED] = KB_TRACE_UNSUPPORTED,
};

/* Each kernel's op, and its share of the op's work: an op whose work several kernels do
 * (a convolution's transform and product) gives each the part of it that its time is of
 * theirs, so that none is credited with the whole. */
static void join(pass *p) {
    kb_trace_detail *d = p->d;
    qsort(p->ops, (size_t)p->nops, sizeof *p->ops, by_external_id);
    /* Each kernel's External id becomes the index of its op, -1 when none. */
    for (int64_t i = 0; i < d->nkernels; i++) {
        int64_t id = p->kernel_ids[i];
        cpu_op *o = id >= 0 ? find_op(p, id) : NULL;
        p->kernel_ids[i] = o ? o - p->ops : -1;
        if (o) {
            o->kernel_seconds += d->kernels[i].seconds;
        }
    }
    for (int64_t i = 0; i < d->nkernels; i++) {
        kb_trace_kernel *k = &d->kernels[i];
        if (p->kernel_ids[i] < 0)
            continue;
        const cpu_op *o = &p->ops[p->kernel_ids[i]];
        k->op = o->name;
        k->reason = (uint8_t)reason_of_status[o->status];
        if (k->reason != KB_TRACE_COUNTED)
            continue;
        kb_gpu_peak peak = choose_peak((kb_trace_dtype)o->dtype, o->matrix, p->a);
        if (kb_gpu_flops(&p->a->device, peak, 0) <= 0 || kb_gpu_bandwidth(&p->a->device) <= 0) {
            k->reason = KB_TRACE_NO_PEAK;
            continue;
        }
        if (!(k->seconds > 0)) {
            k->reason = KB_TRACE_UNSUPPORTED; /* no rate without a duration */
            continue;
        }
        double share = k->seconds / o->kernel_seconds;
        k->peak = (int8_t)peak;
        k->flops = o->flops * share;
        k->bytes = o->bytes * share;
        k->assumed = o->assumed;
        if (k->flops == 0 && k->bytes == 0)
            k->reason = KB_TRACE_UNSUPPORTED; /* empty tensors */
    }
}

bool kb_trace_kernel_roofline(const kb_trace_analysis *a, const kb_trace_kernel *k,
                              kb_roofline *out) {
    if (k->reason != KB_TRACE_COUNTED)
        return false;
    kb_roofline_peaks peaks = {.threads = 1};
    peaks.bytes_per_second[KB_MEM_DRAM] = kb_gpu_bandwidth(&a->device);
    peaks.flops_per_second = kb_gpu_flops(&a->device, (kb_gpu_peak)k->peak, a->clock_mhz);
    kb_roofline_input in = {.seconds = k->seconds,
                            .bytes = k->bytes,
                            .flops = k->flops,
                            .working_set_bytes = (int64_t)fmin(k->bytes, 9e18)};
    return kb_roofline_compute(&in, &peaks, out) == KB_OK;
}

static void merge_text(char *dst, size_t size, const char *text) {
    if (!dst[0])
        kb_copy_string(dst, size, text);
    else if (strcmp(dst, text) != 0)
        kb_copy_string(dst, size, "mixed");
}

static int by_time(const void *x, const void *y) {
    const kb_trace_group *a = x, *b = y;
    if (a->seconds != b->seconds)
        return a->seconds < b->seconds ? 1 : -1;
    return strcmp(a->name, b->name);
}

static kb_status summarize(kb_trace_analysis *a, kb_trace_detail *d) {
    a->ngroups = d->names.count;
    a->groups = calloc((size_t)(a->ngroups ? a->ngroups : 1), sizeof *a->groups);
    if (!a->groups)
        return kb_fail(KB_ENOMEM, "out of memory");
    /* Sums of the bound, FLOP and bandwidth times of the counted kernels, per group. */
    double(*terms)[3] = calloc((size_t)(a->ngroups ? a->ngroups : 1), sizeof *terms);
    if (!terms)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int g = 0; g < a->ngroups; g++)
        a->groups[g].name = d->names.names[g];
    for (int64_t i = 0; i < d->nkernels; i++) {
        const kb_trace_kernel *k = &d->kernels[i];
        kb_trace_group *g = &a->groups[k->group];
        g->count++;
        g->seconds += k->seconds;
        a->seconds += k->seconds;
        a->reasons[k->reason]++;
        kb_roofline r;
        if (!kb_trace_kernel_roofline(a, k, &r))
            continue;
        a->assumed += k->assumed;
        g->counted++;
        g->counted_seconds += k->seconds;
        g->flops += k->flops;
        g->bytes += k->bytes;
        g->flags |= r.flags;
        terms[k->group][0] += r.bound_seconds;
        terms[k->group][1] += k->flops / r.peak_flops_per_second;
        terms[k->group][2] += k->bytes / r.peak_bytes_per_second;
        merge_text(g->op, sizeof g->op, d->op_names.names[k->op]);
        merge_text(g->peak, sizeof g->peak, kb_gpu_peak_name((kb_gpu_peak)k->peak));
    }
    a->kernels = d->nkernels;
    for (int i = 0; i < a->ngroups; i++) {
        kb_trace_group *g = &a->groups[i];
        g->share = a->seconds > 0 ? g->seconds / a->seconds : 0;
        double t = g->counted_seconds;
        bool known = g->counted > 0 && t > 0;
        g->flops_per_second = known ? g->flops / t : NAN;
        g->bytes_per_second = known ? g->bytes / t : NAN;
        g->percent_of_bound = known ? 100 * terms[i][0] / t : NAN;
        g->percent_of_flops = known ? 100 * terms[i][1] / t : NAN;
        g->percent_of_bandwidth = known ? 100 * terms[i][2] / t : NAN;
    }
    free(terms);
    qsort(a->groups, (size_t)a->ngroups, sizeof *a->groups, by_time);
    return KB_OK;
}

static kb_status resolve_device(kb_trace_analysis *a, const kb_trace_options *o, bool mixed) {
    kb_gpus gpus;
    kb_status st = kb_gpus_load(&gpus);
    if (st != KB_OK)
        return st;
    char ids[512];
    kb_gpus_ids(&gpus, ids, sizeof ids);
    const char *name = o->device ? o->device : a->device_name;
    const kb_gpu_row *row = kb_gpus_find(&gpus, name[0] ? name : NULL);
    if (o->device)
        kb_copy_string(a->device_name, sizeof a->device_name, o->device);
    if (!o->device && !name[0])
        st = kb_fail(KB_EFORMAT,
                     "%s: names no device (no deviceProperties); --device ID names "
                     "one of %s",
                     a->label, ids);
    else if (!o->device && mixed)
        st = kb_fail(KB_EFORMAT,
                     "%s: deviceProperties names devices of more than one kind; "
                     "--device ID says which one the kernels ran on (%s)",
                     a->label, ids);
    else if (!row)
        st = kb_fail(KB_EINVAL, "unknown device '%s': the GPU datasheet knows %s", name, ids);
    else
        a->device = *row;
    kb_gpus_free(&gpus);
    return st;
}

kb_status kb_trace_analyze(const char *path, const kb_trace_options *options,
                           kb_trace_analysis *a) {
    kb_trace_options none = {0};
    const kb_trace_options *o = options ? options : &none;
    memset(a, 0, sizeof *a);
    kb_copy_string(a->label, sizeof a->label, path);
    a->tf32 = o->tf32;
    a->clock_mhz = o->clock_mhz;
    kb_trace_detail *d = calloc(1, sizeof *d);
    if (!d)
        return kb_fail(KB_ENOMEM, "out of memory");
    a->detail = d;
    pass p = {.a = a, .d = d};
    kb_trace_text text;
    kb_status st = kb_trace_text_open(path, &text);
    if (st == KB_OK) {
        kb_trace_visitor v = {.member = on_member, .event = on_event, .context = &p};
        st = kb_trace_scan(text.text, text.length, path, &v);
        kb_trace_text_close(&text);
    }
    if (st == KB_OK)
        st = resolve_device(a, o, p.mixed_devices);
    if (st == KB_OK) {
        join(&p);
        st = summarize(a, d);
    }
    free(p.ops);
    free(p.kernel_ids);
    if (st != KB_OK)
        kb_trace_analysis_free(a);
    return st;
}

void kb_trace_analysis_free(kb_trace_analysis *a) {
    kb_trace_detail *d = a->detail;
    if (d) {
        free(d->kernels);
        kb_trace_names_free(&d->names);
        kb_trace_names_free(&d->op_names);
        free(d);
    }
    free(a->groups);
    a->groups = NULL;
    a->ngroups = 0;
    a->detail = NULL;
}
