/* The plan of a run: the cases to measure, from definitions and suites. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "core/internal.h"
#include "kbench/threads.h"
#include "util/internal.h"

kb_status kb_bench_plan_new(kb_bench_plan **out) {
    *out = calloc(1, sizeof **out);
    if (!*out)
        return kb_fail(KB_ENOMEM, "out of memory");
    (*out)->shard_index = (*out)->shard_count = 1;
    return KB_OK;
}

void kb_plan_spec_free(kb_bench_spec *spec) {
    free(spec->name);
    free(spec->group);
    for (int i = 0; i < spec->nparams; i++) {
        free(spec->param_names[i]);
        free(spec->param_values[i]);
    }
    memset(spec, 0, sizeof *spec);
}

static void free_strings(char **list, int n) {
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

void kb_bench_plan_free(kb_bench_plan *plan) {
    if (!plan)
        return;
    for (int i = 0; i < plan->count; i++)
        kb_plan_spec_free(&plan->cases[i]);
    free(plan->cases);
    free_strings(plan->suites, plan->nsuites);
    free_strings(plan->filters, plan->nfilters);
    free(plan);
}

int kb_bench_plan_size(const kb_bench_plan *plan) {
    return plan->count;
}

const char *kb_bench_plan_case_name(const kb_bench_plan *plan, int i) {
    return i >= 0 && i < plan->count ? plan->cases[i].name : NULL;
}

const char *kb_bench_plan_case_group(const kb_bench_plan *plan, int i) {
    return i >= 0 && i < plan->count ? plan->cases[i].group : NULL;
}

double kb_bench_plan_case_cost(const kb_bench_plan *plan, int i) {
    return i >= 0 && i < plan->count ? plan->cases[i].cost : 0;
}

int kb_bench_plan_case_nparams(const kb_bench_plan *plan, int i) {
    return i >= 0 && i < plan->count ? plan->cases[i].nparams : 0;
}

bool kb_bench_plan_case_param(const kb_bench_plan *plan, int i, int j, const char **name,
                              const char **value, bool *implementation) {
    if (j < 0 || j >= kb_bench_plan_case_nparams(plan, i))
        return false;
    const kb_bench_spec *c = &plan->cases[i];
    *name = c->param_names[j];
    *value = c->param_values[j];
    *implementation = c->param_impl[j];
    return true;
}

int kb_plan_group_end(const kb_bench_plan *plan, int i) {
    int j = i + 1;
    while (j < plan->count && strcmp(plan->cases[j].group, plan->cases[i].group) == 0)
        j++;
    return j;
}

kb_status kb_plan_note_suite(kb_bench_plan *plan, const char *name) {
    for (int i = 0; i < plan->nsuites; i++)
        if (strcmp(plan->suites[i], name) == 0)
            return KB_OK;
    char **grown = realloc(plan->suites, (size_t)(plan->nsuites + 1) * sizeof *grown);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory");
    plan->suites = grown;
    if (!(plan->suites[plan->nsuites] = kb_strdup(name)))
        return KB_ENOMEM;
    plan->nsuites++;
    return KB_OK;
}

/* Appends "/value" or "/name=value" to a growing string. */
static kb_status append_part(char **s, size_t *len, const char *name, const char *value) {
    size_t add = 1 + (name ? strlen(name) + 1 : 0) + strlen(value);
    char *grown = realloc(*s, *len + add + 1);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory");
    *s = grown;
    if (name)
        snprintf(*s + *len, add + 1, "/%s=%s", name, value);
    else
        snprintf(*s + *len, add + 1, "/%s", value);
    *len += add;
    return KB_OK;
}

static bool is_harness_axis(const char *name) {
    return strcmp(name, "simd") == 0 || strcmp(name, "threads") == 0;
}

kb_status kb_plan_add_case(kb_bench_plan *plan, const kb_bench_def *def, int nparams,
                           const char *const *names, const char *const *values,
                           const unsigned *flags, double cost) {
    if (nparams < 0 || nparams > KB_BENCH_MAX_PARAMS)
        return kb_fail(KB_EINVAL, "%s: %d parameters (at most %d)", def->name, nparams,
                       KB_BENCH_MAX_PARAMS);
    if (plan->count == plan->capacity) {
        int capacity = plan->capacity ? 2 * plan->capacity : 64;
        kb_bench_spec *grown = realloc(plan->cases, (size_t)capacity * sizeof *grown);
        if (!grown)
            return kb_fail(KB_ENOMEM, "out of memory");
        plan->cases = grown;
        plan->capacity = capacity;
    }
    kb_bench_spec *s = &plan->cases[plan->count];
    memset(s, 0, sizeof *s);
    size_t name_len = strlen(def->name), group_len = name_len;
    s->name = kb_strdup(def->name);
    s->group = kb_strdup(def->name);
    kb_status st = s->name && s->group ? KB_OK : KB_ENOMEM;
    for (int i = 0; i < nparams && st == KB_OK; i++) {
        bool bare = flags[i] & KB_BENCH_AXIS_BARE;
        s->param_impl[i] = (flags[i] & KB_BENCH_AXIS_IMPLEMENTATION) || is_harness_axis(names[i]);
        s->param_names[i] = kb_strdup(names[i]);
        s->param_values[i] = kb_strdup(values[i]);
        s->nparams = i + 1;
        if (!s->param_names[i] || !s->param_values[i])
            st = KB_ENOMEM;
        if (st == KB_OK)
            st = append_part(&s->name, &name_len, bare ? NULL : names[i], values[i]);
        if (st == KB_OK && !s->param_impl[i])
            st = append_part(&s->group, &group_len, bare ? NULL : names[i], values[i]);
    }
    if (st != KB_OK) {
        kb_plan_spec_free(s);
        return st;
    }
    s->setup = def->setup;
    s->run = def->run;
    s->teardown = def->teardown;
    s->bytes_per_call = def->bytes_per_call;
    s->flops_per_call = def->flops_per_call;
    s->baseline_case = def->baseline_case;
    s->counts = def->counts;
    s->traffic = def->traffic;
    s->flop_type = def->flop_type;
    s->user = def->user;
    if (!(cost > 0) && def->cost) {
        kb_bench_case view = {.name = s->name, .nparams = s->nparams, .user = def->user};
        for (int i = 0; i < s->nparams; i++) {
            view.param_names[i] = s->param_names[i];
            view.param_values[i] = s->param_values[i];
        }
        cost = def->cost(&view);
    }
    s->cost = cost > 0 && isfinite(cost) ? cost : 1;
    plan->count++;
    return KB_OK;
}

/* ---- Checks of a definition ---- */

static bool valid_axis_name(const char *s) {
    if (!s[0])
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

/* Printable, no whitespace; '/' only inside a name prefix, never in a value. */
static bool valid_text(const char *s, bool slash_ok) {
    if (!s[0] || s[0] == '/' || s[strlen(s) - 1] == '/')
        return false;
    for (; *s; s++)
        if (!isgraph((unsigned char)*s) || (*s == '/' && !slash_ok))
            return false;
    return true;
}

/* ---- The values of one axis, with "all" expanded and unavailable levels left out ---- */

typedef struct axis_values {
    int count;
    char **values;
} axis_values;

static void axis_values_free(axis_values *v) {
    free_strings(v->values, v->count);
    memset(v, 0, sizeof *v);
}

static kb_status axis_push(axis_values *v, const char *value) {
    for (int i = 0; i < v->count; i++)
        if (strcmp(v->values[i], value) == 0)
            return KB_OK; /* "1" and "all" on one core, "auto" listed twice */
    char **grown = realloc(v->values, (size_t)(v->count + 1) * sizeof *grown);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory");
    v->values = grown;
    if (!(v->values[v->count] = kb_strdup(value)))
        return KB_ENOMEM;
    v->count++;
    return KB_OK;
}

static kb_status expand_simd(axis_values *v, const char *def, const char *value) {
    if (strcmp(value, "all") == 0) {
        kb_status st = axis_push(v, "scalar");
        for (int l = 1; l < KB_SIMD_LEVEL_COUNT && st == KB_OK; l++)
            if (kb_simd_available((kb_simd_level)l))
                st = axis_push(v, kb_simd_name((kb_simd_level)l));
        return st == KB_OK ? axis_push(v, "auto") : st;
    }
    int request;
    if (kb_simd_parse(value, &request) != KB_OK)
        return kb_fail(KB_EINVAL, "%s: unknown SIMD level '%s'", def, value);
    if (request != KB_SIMD_AUTO_REQUEST && !kb_simd_available((kb_simd_level)request))
        return KB_OK;
    return axis_push(v, value);
}

static kb_status expand_threads(axis_values *v, const char *def, const char *value) {
    char buf[32];
    if (strcmp(value, "all") == 0) {
        snprintf(buf, sizeof buf, "%d", kb_usable_cores());
        return axis_push(v, buf);
    }
    char *end;
    long n = strtol(value, &end, 10);
    if (*end || end == value || n < 1 || n > 4096)
        return kb_fail(KB_EINVAL, "%s: thread count '%s' is not 'all' or from 1 to 4096", def,
                       value);
    snprintf(buf, sizeof buf, "%ld", n);
    return axis_push(v, buf);
}

static kb_status expand_axis(const kb_bench_def *def, const kb_bench_axis *axis, axis_values *out) {
    memset(out, 0, sizeof *out);
    if (!axis->values || !axis->values[0])
        return kb_fail(KB_EINVAL, "%s: axis '%s' has no values", def->name, axis->name);
    kb_status st = KB_OK;
    for (const char *const *v = axis->values; *v && st == KB_OK; v++) {
        if (!valid_text(*v, false))
            st = kb_fail(KB_EINVAL, "%s: value '%s' of axis '%s' is empty or holds '/' or space",
                         def->name, *v, axis->name);
        else if (strcmp(axis->name, "simd") == 0)
            st = expand_simd(out, def->name, *v);
        else if (strcmp(axis->name, "threads") == 0)
            st = expand_threads(out, def->name, *v);
        else
            st = axis_push(out, *v);
    }
    if (st != KB_OK)
        axis_values_free(out);
    return st;
}

/* ---- Whole-plan checks: unique names, groups adjacent ---- */

typedef struct keyed {
    const char *key;
    int index;
} keyed;

static int compare_keyed(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static kb_status check_plan(const kb_bench_plan *plan) {
    if (plan->count == 0)
        return KB_OK;
    keyed *k = malloc((size_t)plan->count * sizeof *k);
    if (!k)
        return kb_fail(KB_ENOMEM, "out of memory");
    kb_status st = KB_OK;
    for (int i = 0; i < plan->count; i++)
        k[i] = (keyed){plan->cases[i].name, i};
    qsort(k, (size_t)plan->count, sizeof *k, compare_keyed);
    for (int i = 1; i < plan->count && st == KB_OK; i++)
        if (strcmp(k[i].key, k[i - 1].key) == 0)
            st = kb_fail(KB_EINVAL, "two cases are named '%s'", k[i].key);
    for (int i = 0; i < plan->count; i++)
        k[i] = (keyed){plan->cases[i].group, i};
    qsort(k, (size_t)plan->count, sizeof *k, compare_keyed);
    /* Sorted by group and then by index, a group's indices must be consecutive. */
    for (int i = 1; i < plan->count && st == KB_OK; i++)
        if (strcmp(k[i].key, k[i - 1].key) == 0 && k[i].index != k[i - 1].index + 1)
            st = kb_fail(KB_EINVAL,
                         "the cases of group '%s' are not planned together (define its "
                         "implementation axes last, or give them unique values)",
                         k[i].key);
    free(k);
    return st;
}

static void truncate_plan(kb_bench_plan *plan, int count) {
    while (plan->count > count)
        kb_plan_spec_free(&plan->cases[--plan->count]);
}

/* Adds every combination, implementation axes varying fastest so that a group's cases are
 * adjacent; names still list the parameters in the axes' order. */
static kb_status add_product(kb_bench_plan *plan, const kb_bench_def *def, int naxes,
                             const axis_values *values) {
    int order[KB_BENCH_MAX_PARAMS], n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int a = 0; a < naxes; a++) {
            bool impl = (def->axes[a].flags & KB_BENCH_AXIS_IMPLEMENTATION) ||
                        is_harness_axis(def->axes[a].name);
            if (impl == (pass == 1))
                order[n++] = a;
        }
    const char *names[KB_BENCH_MAX_PARAMS], *vals[KB_BENCH_MAX_PARAMS];
    unsigned flags[KB_BENCH_MAX_PARAMS];
    int index[KB_BENCH_MAX_PARAMS] = {0};
    for (int a = 0; a < naxes; a++) {
        if (values[a].count == 0)
            return KB_OK; /* e.g. only SIMD levels this CPU lacks */
        names[a] = def->axes[a].name;
        flags[a] = def->axes[a].flags;
    }
    for (;;) {
        for (int a = 0; a < naxes; a++)
            vals[a] = values[a].values[index[a]];
        kb_status st = kb_plan_add_case(plan, def, naxes, names, vals, flags, 0);
        if (st != KB_OK)
            return st;
        /* Odometer, the last axis of `order` turning fastest. */
        int k = naxes - 1;
        for (; k >= 0; k--) {
            int a = order[k];
            if (++index[a] < values[a].count)
                break;
            index[a] = 0;
        }
        if (k < 0)
            return KB_OK;
    }
}

kb_status kb_plan_add_def(kb_bench_plan *plan, const kb_bench_def *def) {
    if (!def || !def->name || !valid_text(def->name, true))
        return kb_fail(KB_EINVAL, "a benchmark needs a name without spaces, not '%s'",
                       def && def->name ? def->name : "(null)");
    if (!def->run)
        return kb_fail(KB_EINVAL, "%s: no run function", def->name);
    int naxes = 0;
    while (def->axes && def->axes[naxes].name) {
        if (naxes == KB_BENCH_MAX_PARAMS)
            return kb_fail(KB_EINVAL, "%s: more than %d axes", def->name, KB_BENCH_MAX_PARAMS);
        if (!valid_axis_name(def->axes[naxes].name))
            return kb_fail(KB_EINVAL, "%s: axis name '%s' is not letters, digits and '_'",
                           def->name, def->axes[naxes].name);
        for (int b = 0; b < naxes; b++)
            if (strcmp(def->axes[b].name, def->axes[naxes].name) == 0)
                return kb_fail(KB_EINVAL, "%s: axis '%s' given twice", def->name,
                               def->axes[b].name);
        naxes++;
    }
    axis_values values[KB_BENCH_MAX_PARAMS];
    kb_status st = KB_OK;
    int expanded = 0;
    for (; expanded < naxes && st == KB_OK; expanded++)
        st = expand_axis(def, &def->axes[expanded], &values[expanded]);
    if (st != KB_OK)
        expanded--; /* the failed axis freed its own values */
    int before = plan->count;
    if (st == KB_OK)
        st = add_product(plan, def, naxes, values);
    if (st == KB_OK)
        st = check_plan(plan);
    if (st != KB_OK)
        truncate_plan(plan, before);
    for (int a = 0; a < expanded; a++)
        axis_values_free(&values[a]);
    return st;
}

kb_status kb_bench_plan_add(kb_bench_plan *plan, const kb_bench_def *def) {
    int before = plan->count;
    kb_status st = kb_plan_add_def(plan, def);
    if (st == KB_OK && (st = kb_plan_note_suite(plan, def->name)) != KB_OK)
        truncate_plan(plan, before);
    return st;
}

/* Cases in the order of their group's first case, and in their own order within it. */
typedef struct placed {
    int first, index;
} placed;

static int compare_placed(const void *a, const void *b) {
    const placed *x = a, *y = b;
    return x->first != y->first ? (x->first > y->first) - (x->first < y->first)
                                : (x->index > y->index) - (x->index < y->index);
}

/* Draws each group's cases together where the group first appears. */
static kb_status regroup(kb_bench_plan *plan) {
    int n = plan->count;
    keyed *k = malloc((size_t)n * sizeof *k);
    placed *order = malloc((size_t)n * sizeof *order);
    kb_bench_spec *cases = malloc((size_t)n * sizeof *cases);
    kb_status st = k && order && cases ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
    if (st == KB_OK) {
        for (int i = 0; i < n; i++)
            k[i] = (keyed){plan->cases[i].group, i};
        qsort(k, (size_t)n, sizeof *k, compare_keyed);
        for (int i = 0, first = 0; i < n; i++) {
            if (i == 0 || strcmp(k[i].key, k[i - 1].key) != 0)
                first = k[i].index;
            order[i] = (placed){first, k[i].index};
        }
        qsort(order, (size_t)n, sizeof *order, compare_placed);
        for (int i = 0; i < n; i++)
            cases[i] = plan->cases[order[i].index];
        memcpy(plan->cases, cases, (size_t)n * sizeof *cases);
    }
    free(k);
    free(order);
    free(cases);
    return st;
}

/* A case that an earlier suite already planned (the same name from the same definition) is
 * one case: `kbench run quick mean_axis0` runs the cases the two share once. The later copy
 * is dropped, and a group both suites add to is drawn together where it first appears. */
static kb_status merge_repeats(kb_bench_plan *plan, int before) {
    int kept = before;
    bool dropped = false;
    for (int i = before; i < plan->count; i++) {
        const kb_bench_spec *c = &plan->cases[i];
        bool repeat = false;
        for (int j = 0; j < before && !repeat; j++)
            repeat = plan->cases[j].run == c->run && plan->cases[j].setup == c->setup &&
                     strcmp(plan->cases[j].name, c->name) == 0;
        if (repeat) {
            kb_plan_spec_free(&plan->cases[i]);
            dropped = true;
        } else {
            plan->cases[kept++] = plan->cases[i];
        }
    }
    plan->count = kept;
    return dropped || before > 0 ? regroup(plan) : KB_OK;
}

kb_status kb_plan_finish_suite(kb_bench_plan *plan, int before, const char *suite, kb_status st) {
    if (st == KB_OK)
        st = merge_repeats(plan, before);
    if (st == KB_OK)
        st = check_plan(plan);
    if (st == KB_OK)
        st = kb_plan_note_suite(plan, suite);
    if (st != KB_OK)
        truncate_plan(plan, before);
    return st;
}
