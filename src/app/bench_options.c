#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "app/bench_options.h"

static bool parse_int(const char *text, long lo, long hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

kb_status kb_bench_parse_shard(const char *text, int *index, int *count) {
    const char *slash = strchr(text, '/');
    char k[32];
    if (!slash || (size_t)(slash - text) >= sizeof k)
        return kb_fail(KB_EINVAL, "bad shard '%s' (expected K/N, such as 2/9)", text);
    memcpy(k, text, (size_t)(slash - text));
    k[slash - text] = '\0';
    if (!parse_int(k, 1, 100000, index) || !parse_int(slash + 1, 1, 100000, count) ||
        *index > *count)
        return kb_fail(KB_EINVAL, "bad shard '%s' (expected K/N with 1 <= K <= N)", text);
    return KB_OK;
}

/* "--name value" or "--name=value": the value, or NULL when the option is not `name`. */
static const char *option_value(int argc, char **argv, int *i, const char *name,
                                const char *short_name, kb_status *st) {
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    if (strcmp(arg, name) != 0 && !(short_name && strcmp(arg, short_name) == 0))
        return NULL;
    if (*i + 1 >= argc) {
        *st = kb_fail(KB_EINVAL, "option '%s' needs a value", arg);
        return NULL;
    }
    return argv[++*i];
}

static kb_status push(const char ***list, int *n, const char *item) {
    const char **grown = realloc(*list, (size_t)(*n + 1) * sizeof *grown);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory");
    *list = grown;
    grown[(*n)++] = item;
    return KB_OK;
}

static kb_status add_output(kb_bench_options *o, const char *path) {
    kb_results_format format;
    kb_status st = kb_results_format_of_path(path, &format);
    if (st != KB_OK)
        return st;
    kb_results_format *grown =
        realloc(o->output_formats, (size_t)(o->noutputs + 1) * sizeof *grown);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory");
    o->output_formats = grown;
    grown[o->noutputs] = format;
    return push(&o->outputs, &o->noutputs, path);
}

static kb_status one_option(int argc, char **argv, int *i, kb_bench_options *o) {
    kb_status st = KB_OK;
    const char *arg = argv[*i], *v;
    kb_bench_settings *s = &o->settings;
    if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
        o->quiet = true;
    } else if (strcmp(arg, "--pin") == 0) {
        s->pin = true;
    } else if (strcmp(arg, "--quick-peaks") == 0) {
        o->quick_peaks = true;
    } else if (strcmp(arg, "--no-roofline") == 0) {
        o->no_roofline = true;
    } else if (strcmp(arg, "--allow-impossible") == 0) {
        o->allow_impossible = true;
    } else if ((v = option_value(argc, argv, i, "--baseline", NULL, &st))) {
        unsigned library = kb_baseline_from_name(v);
        if (library)
            s->baselines |= library;
        else
            st = kb_fail(KB_EINVAL, "bad --baseline '%s' (expected numpy, numexpr, torch or jax)",
                         v);
    } else if (st == KB_OK && (v = option_value(argc, argv, i, "--peaks", NULL, &st))) {
        o->peaks_file = v;
    } else if ((v = option_value(argc, argv, i, "--filter", "-f", &st))) {
        st = push(&o->filters, &o->nfilters, v);
    } else if (st == KB_OK && (v = option_value(argc, argv, i, "--shard", NULL, &st))) {
        st = kb_bench_parse_shard(v, &o->shard_index, &o->shard_count);
    } else if (st == KB_OK && (v = option_value(argc, argv, i, "--min-time", NULL, &st))) {
        char *end;
        s->min_time = strtod(v, &end);
        if (end == v || *end || !(s->min_time > 0) || s->min_time > 3600)
            st = kb_fail(KB_EINVAL, "bad --min-time '%s' (expected seconds, above 0, at most 3600)",
                         v);
    } else if (st == KB_OK && (v = option_value(argc, argv, i, "--min-samples", NULL, &st))) {
        if (!parse_int(v, KB_BENCH_MIN_SAMPLES, 1000000, &s->min_samples))
            st = kb_fail(KB_EINVAL, "bad --min-samples '%s' (expected an integer from %d)", v,
                         KB_BENCH_MIN_SAMPLES);
    } else if (st == KB_OK && (v = option_value(argc, argv, i, "--repetitions", NULL, &st))) {
        if (!parse_int(v, 1, 1000, &s->repetitions))
            st = kb_fail(KB_EINVAL, "bad --repetitions '%s' (expected 1 to 1000)", v);
    } else if (st == KB_OK && (v = option_value(argc, argv, i, "--cache", NULL, &st))) {
        if (strcmp(v, "hot") == 0)
            s->cache = KB_BENCH_CACHE_HOT;
        else if (strcmp(v, "cold") == 0)
            s->cache = KB_BENCH_CACHE_COLD;
        else
            st = kb_fail(KB_EINVAL, "bad --cache '%s' (expected hot or cold)", v);
    } else if (st == KB_OK && (v = option_value(argc, argv, i, "--output", "-o", &st))) {
        st = add_output(o, v);
    } else if (st == KB_OK && (v = option_value(argc, argv, i, "--format", NULL, &st))) {
        st = kb_results_format_parse(v, &o->format);
    } else if (st == KB_OK) {
        st = kb_fail(KB_EINVAL, "unknown option '%s'", arg);
    }
    return st;
}

kb_status kb_bench_options_parse(int argc, char **argv, bool suites_allowed,
                                 kb_bench_options *out) {
    memset(out, 0, sizeof *out);
    kb_bench_settings_default(&out->settings);
    out->format = KB_RESULTS_TABLE;
    bool options = true;
    kb_status st = KB_OK;
    for (int i = 1; i < argc && st == KB_OK; i++) {
        const char *arg = argv[i];
        if (options && strcmp(arg, "--") == 0)
            options = false;
        else if (options && arg[0] == '-' && arg[1] != '\0')
            st = one_option(argc, argv, &i, out);
        else if (suites_allowed)
            st = push(&out->suites, &out->nsuites, arg);
        else
            st = kb_fail(KB_EINVAL, "unexpected argument '%s'", arg);
    }
    if (st == KB_OK && (out->no_roofline + out->quick_peaks + (out->peaks_file != NULL)) > 1)
        st = kb_fail(KB_EINVAL, "--peaks, --quick-peaks and --no-roofline exclude one another");
    if (st != KB_OK)
        kb_bench_options_free(out);
    return st;
}

void kb_bench_options_free(kb_bench_options *o) {
    free(o->suites);
    free(o->filters);
    free(o->outputs);
    free(o->output_formats);
    memset(o, 0, sizeof *o);
}
