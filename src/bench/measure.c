#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/impl.h"
#include "bench/measure.h"
#include "core/fail.h"

/* The group as setup and teardown see it: no implementation parameters. */
static void group_case(const kb_bench_spec *s, kb_bench_case *c) {
    memset(c, 0, sizeof *c);
    c->name = s->group;
    for (int i = 0; i < s->nparams; i++) {
        if (s->param_impl[i])
            continue;
        c->param_names[c->nparams] = s->param_names[i];
        c->param_values[c->nparams] = s->param_values[i];
        c->nparams++;
    }
    c->user = s->user;
    c->bytes_per_call = s->bytes_per_call;
    c->flops_per_call = s->flops_per_call;
    c->traffic = s->traffic;
    c->flop_type = s->flop_type;
}

static void impl_init(kb_impl *m, const kb_bench_spec *s, const kb_bench_case *group) {
    memset(m, 0, sizeof *m);
    m->spec = s;
    m->c = *group;
    m->c.name = s->name;
    m->c.nparams = s->nparams;
    for (int i = 0; i < s->nparams; i++) {
        m->c.param_names[i] = s->param_names[i];
        m->c.param_values[i] = s->param_values[i];
    }
    const char *simd = kb_bench_param(&m->c, "simd");
    const char *threads = kb_bench_param(&m->c, "threads");
    if (simd) {
        m->has_simd = true;
        if (kb_simd_parse(simd, &m->simd_request) != KB_OK)
            kb_impl_fail(m, kb_last_error());
    }
    if (threads)
        m->threads = atoi(threads);
}

static bool push_sample(kb_impl *m, int64_t t) {
    if (m->nsamples == m->capacity) {
        int64_t capacity = m->capacity ? 2 * m->capacity : 64;
        int64_t *grown = realloc(m->samples, (size_t)capacity * sizeof *grown);
        if (!grown)
            return false;
        m->samples = grown;
        m->capacity = capacity;
    }
    m->samples[m->nsamples++] = t;
    return true;
}

static int standing(const kb_impl *impls, int n) {
    int k = 0;
    for (int i = 0; i < n; i++)
        k += !impls[i].failed;
    return k;
}

/* Samples an implementation still needs in this repetition: at least min_samples, and
 * enough to fill min_time at the length its samples have had so far. */
static int64_t samples_needed(const kb_impl *m, const kb_bench_settings *s) {
    if (m->failed)
        return 0;
    double per = m->rep_count > 0 ? m->rep_time_ns / (double)m->rep_count : m->sample_ns;
    double time_left = s->min_time * 1e9 - m->rep_time_ns;
    int64_t by_time = time_left > 0 ? (int64_t)ceil(time_left / fmax(per, 1)) : 0;
    int64_t by_count = s->min_samples - m->rep_count;
    return by_time > by_count ? by_time : by_count > 0 ? by_count : 0;
}

/* Sizes each implementation's block of samples per round for a repetition, from the
 * samples it is expected to need: the implementation that needs the fewest takes one per
 * round, the others proportionally more, so that all of them finish together and each still
 * gets its own time budget. Rounded, so that implementations of similar speed take one each
 * (A B C A B C ...), and fixed for the repetition, so that noise in the samples does not
 * reshuffle the order; with one implementation ten times faster than the rest, A x10 B C. */
static void size_blocks(kb_impl *impls, int n, const kb_bench_settings *s) {
    int64_t fewest = 0;
    for (int i = 0; i < n; i++) {
        int64_t need = samples_needed(&impls[i], s);
        if (need > 0 && (fewest == 0 || need < fewest))
            fewest = need;
    }
    for (int i = 0; i < n; i++) {
        int64_t need = samples_needed(&impls[i], s);
        int64_t block = fewest > 0 ? llround((double)need / (double)fewest) : 0;
        impls[i].block = block < 1 ? 1 : block;
    }
}

/* One round: a block of samples of each implementation that still needs samples, in plan
 * order. Sets *done when none does. */
static kb_status round_of_samples(kb_impl *impls, int n, const kb_measure_env *env, bool *done) {
    *done = true;
    for (int i = 0; i < n; i++) {
        kb_impl *m = &impls[i];
        int64_t need = samples_needed(m, env->settings);
        if (need == 0 || !kb_impl_apply(m))
            continue;
        *done = false;
        int64_t block = m->block < need ? m->block : need;
        for (int64_t k = 0; k < block && !m->failed; k++) {
            if (env->flush)
                kb_flush_run(env->flush, m->threads_used);
            int64_t t = kb_impl_sample(m, m->calls);
            if (m->c.status != KB_OK)
                kb_impl_fail(m, NULL);
            else if (!push_sample(m, t))
                return kb_fail(KB_ENOMEM, "out of memory for samples");
            m->rep_count++;
            m->rep_time_ns += (double)t;
        }
    }
    return KB_OK;
}

static kb_status sample_rounds(kb_impl *impls, int n, const kb_measure_env *env) {
    const kb_bench_settings *s = env->settings;
    for (int rep = 0; rep < s->repetitions; rep++) {
        for (int i = 0; i < n; i++) {
            impls[i].rep_count = 0;
            impls[i].rep_time_ns = 0;
            /* Warm up again: the previous repetition ended on another implementation. */
            if (rep > 0 && !impls[i].failed && kb_impl_apply(&impls[i])) {
                (void)kb_impl_sample(&impls[i], impls[i].calls);
                if (impls[i].c.status != KB_OK)
                    kb_impl_fail(&impls[i], NULL);
            }
        }
        size_blocks(impls, n, s);
        bool done = false;
        while (!done) {
            kb_status st = round_of_samples(impls, n, env, &done);
            if (st != KB_OK)
                return st;
        }
        for (int i = 0; i < n; i++)
            impls[i].repetition_samples[rep] = impls[i].rep_count;
    }
    return KB_OK;
}

/* Moves what an implementation measured into its result. */
static kb_status fill_result(kb_impl *m, const kb_bench_case *group, int repetitions,
                             const kb_peaks *peaks, kb_bench_result *r) {
    const kb_bench_spec *s = m->spec;
    memset(r, 0, sizeof *r);
    r->name = kb_strdup(s->name);
    r->group = kb_strdup(s->group);
    r->params = calloc((size_t)(s->nparams ? s->nparams : 1), sizeof *r->params);
    if (!r->name || !r->group || !r->params)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; i < s->nparams; i++) {
        r->params[i].name = kb_strdup(s->param_names[i]);
        r->params[i].value = kb_strdup(s->param_values[i]);
        r->params[i].implementation = s->param_impl[i];
        r->nparams = i + 1;
        if (!r->params[i].name || !r->params[i].value)
            return KB_ENOMEM;
    }
    r->simd = m->simd_used;
    r->threads = m->threads_used;
    r->bytes_per_call = group->bytes_per_call;
    r->flops_per_call = group->flops_per_call;
    r->traffic = group->traffic;
    r->flop_type = group->flop_type;
    r->working_set_bytes =
        group->working_set_bytes > 0 ? group->working_set_bytes : group->bytes_per_call;
    if (!m->failed && m->nsamples == 0)
        kb_impl_fail(m, "no samples were taken");
    if (m->failed) {
        r->failed = true;
        return (r->error = kb_strdup(m->error)) ? KB_OK : KB_ENOMEM;
    }
    r->calls_per_sample = m->calls;
    r->nrepetitions = repetitions;
    r->repetition_samples = m->repetition_samples;
    r->nsamples = m->nsamples;
    r->sample_ns = m->samples;
    m->repetition_samples = NULL;
    m->samples = NULL;
    kb_status st = kb_bench_result_summarize(r);
    if (st == KB_OK)
        st = kb_bench_result_roofline(r, peaks);
    if (st != KB_OK) {
        r->failed = true;
        r->error = kb_strdup(kb_last_error());
    }
    return st == KB_ENOMEM ? st : KB_OK;
}

kb_status kb_measure_group(const kb_bench_plan *plan, int first, int end, const kb_measure_env *env,
                           kb_bench_result *results) {
    int n = end - first;
    const kb_bench_spec *lead = &plan->cases[first];
    kb_bench_case group;
    group_case(lead, &group);
    kb_impl *impls = calloc((size_t)n, sizeof *impls);
    if (!impls)
        return kb_fail(KB_ENOMEM, "out of memory");

    /* Settings first, so that setup allocates where (and with the threads) the first
     * implementation will run. */
    kb_status st = KB_OK;
    for (int i = 0; i < n; i++) {
        impl_init(&impls[i], &plan->cases[first + i], &group);
        impls[i].repetition_samples =
            calloc((size_t)env->settings->repetitions, sizeof *impls[i].repetition_samples);
        if (!impls[i].repetition_samples)
            st = kb_fail(KB_ENOMEM, "out of memory");
    }
    if (env->pin && st == KB_OK) {
        int most = 1;
        for (int i = 0; i < n; i++)
            if (impls[i].threads > most)
                most = impls[i].threads;
        if (kb_pin_threads(env->pin, most) != KB_OK)
            for (int i = 0; i < n; i++)
                kb_impl_fail(&impls[i], kb_last_error());
    }

    bool set_up = lead->setup == NULL; /* teardown pairs with a setup that succeeded */
    if (st == KB_OK && lead->setup && standing(impls, n) > 0) {
        kb_fail(KB_OK, "%s", ""); /* so that a stale message is not blamed on setup */
        kb_status rc = lead->setup(&group);
        if (rc != KB_OK || group.status != KB_OK) {
            char message[512];
            const char *why = group.error[0]       ? group.error
                              : kb_last_error()[0] ? kb_last_error()
                                                   : kb_strerror(rc);
            snprintf(message, sizeof message, "setup: %s", why);
            for (int i = 0; i < n; i++)
                kb_impl_fail(&impls[i], message);
        } else {
            set_up = true;
        }
    }
    for (int i = 0; i < n; i++) {
        /* The group's data and counts, as setup left them. */
        impls[i].c.data = group.data;
        impls[i].c.bytes_per_call = group.bytes_per_call;
        impls[i].c.flops_per_call = group.flops_per_call;
        impls[i].c.traffic = group.traffic;
        impls[i].c.flop_type = group.flop_type;
        impls[i].c.working_set_bytes = group.working_set_bytes;
    }

    if (st == KB_OK) {
        bool cold = env->flush != NULL;
        for (int i = 0; i < n; i++)
            if (!impls[i].failed && kb_impl_apply(&impls[i]))
                kb_calibrate(&impls[i], env->target_ns, env->warmup_ns, cold);
        st = sample_rounds(impls, n, env);
    }

    if (set_up && lead->teardown)
        lead->teardown(&group);
    for (int i = 0; i < n && st != KB_ENOMEM; i++) {
        kb_status rc = fill_result(&impls[i], &group, env->settings->repetitions,
                                   env->settings->peaks, &results[i]);
        if (rc != KB_OK)
            st = rc;
    }
    for (int i = 0; i < n; i++) {
        free(impls[i].samples);
        free(impls[i].repetition_samples);
    }
    free(impls);
    return st;
}
