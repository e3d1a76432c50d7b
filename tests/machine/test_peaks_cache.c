/* The cache of measured peaks in a temporary KB_CACHE_DIR: the key names what peaks depend on,
 * the path follows KB_CACHE_DIR, XDG_CACHE_HOME and HOME, a written file reads back the same
 * peaks, another key or a missing file is a miss, and a damaged file is an error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "test_util.h"
#include "kbench/peaks.h"
#include "kbench/version.h"

static test_dir dir;

static int setup(void **state) {
    if (test_dir_create(&dir) != 0)
        return -1;
    setenv("KB_CACHE_DIR", dir.root, 1);
    return 0;
}

static int teardown(void **state) {
    test_dir_destroy(&dir);
    unsetenv("KB_CACHE_DIR");
    return 0;
}

static kb_machine machine(void) {
    kb_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.cpu_vendor, sizeof m.cpu_vendor, "AuthenticAMD");
    snprintf(m.cpu_model, sizeof m.cpu_model, "AMD EPYC");
    snprintf(m.kernel_release, sizeof m.kernel_release, "6.1.0-18-amd64");
    m.logical_cpus = 2;
    m.signature = (kb_cpu_signature){25, 17, -1, -1};
    return m;
}

static void key_names_what_peaks_depend_on(void **state) {
    kb_machine m = machine();
    char key[512], other[512];
    assert_int_equal(kb_peaks_cache_key(&m, 2, false, key, sizeof key), KB_OK);
    assert_non_null(strstr(key, "AMD EPYC"));
    assert_non_null(strstr(key, "25,17"));
    assert_non_null(strstr(key, "kernel=6.1.0-18-amd64"));
    assert_non_null(strstr(key, "kbench=" KB_VERSION_STRING));
    assert_non_null(strstr(key, "threads=2"));
    /* Each ingredient changes the key. */
    assert_int_equal(kb_peaks_cache_key(&m, 4, false, other, sizeof other), KB_OK);
    assert_string_not_equal(key, other);
    /* --quick's short measurements are cached apart: they never replace full ones. */
    assert_int_equal(kb_peaks_cache_key(&m, 2, true, other, sizeof other), KB_OK);
    assert_string_not_equal(key, other);
    assert_non_null(strstr(other, "measure=quick"));
    m.signature.x86_model = 1; /* a Milan VM is also just "AMD EPYC" */
    assert_int_equal(kb_peaks_cache_key(&m, 2, false, other, sizeof other), KB_OK);
    assert_string_not_equal(key, other);
    m = machine();
    snprintf(m.kernel_release, sizeof m.kernel_release, "6.2");
    assert_int_equal(kb_peaks_cache_key(&m, 2, false, other, sizeof other), KB_OK);
    assert_string_not_equal(key, other);
    assert_int_equal(kb_peaks_cache_key(&m, 2, false, other, 10), KB_EINVAL);
}

static void path_follows_the_environment(void **state) {
    char path[1024], again[1024], expected[1024];
    assert_int_equal(kb_peaks_cache_path("some key", path, sizeof path), KB_OK);
    snprintf(expected, sizeof expected, "%s/peaks-", dir.root);
    assert_memory_equal(path, expected, strlen(expected));
    assert_string_equal(path + strlen(path) - 5, ".json");
    assert_int_equal(strlen(path), strlen(expected) + 16 + 5);
    /* Stable for a key, different for another. */
    assert_int_equal(kb_peaks_cache_path("some key", again, sizeof again), KB_OK);
    assert_string_equal(path, again);
    assert_int_equal(kb_peaks_cache_path("some other key", again, sizeof again), KB_OK);
    assert_string_not_equal(path, again);

    unsetenv("KB_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    assert_int_equal(kb_peaks_cache_path("k", path, sizeof path), KB_OK);
    assert_memory_equal(path, "/xdg/kbench/peaks-", 18);
    setenv("XDG_CACHE_HOME", "relative", 1); /* not absolute: ignored, as the spec says */
    setenv("HOME", "/home/someone", 1);
    assert_int_equal(kb_peaks_cache_path("k", path, sizeof path), KB_OK);
    assert_memory_equal(path, "/home/someone/.cache/kbench/peaks-", 34);
    unsetenv("XDG_CACHE_HOME");
    setenv("KB_CACHE_DIR", dir.root, 1);
}

/* Peaks with a distinct value in every field that the file keeps. */
static kb_peaks sample(void) {
    kb_peaks p;
    memset(&p, 0, sizeof p);
    p.bandwidth_simd = KB_SIMD_AVX2;
    p.logical_cpus = 2;
    p.clock_mhz = 3712.5;
    p.measured_at = 1767225600; /* 2026-01-01T00:00:00Z */
    p.load_average = 0.25;
    p.quick = true;
    for (int c = 0; c < KB_CACHE_LEVEL_COUNT; c++)
        p.caches[c] = (kb_cache){(int64_t)(32 << 10) << (3 * c), 64, c == KB_CACHE_L3 ? 2 : 1};
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        kb_peak_set *set = &p.sets[s];
        set->threads = s == 0 ? 1 : 2;
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
                double v = 1e9 * (1 + s + 10 * k + 100 * l) + 0.125;
                set->bandwidth[k][l].working_set_bytes = (int64_t)(16 << 10) << (4 * l);
                set->bandwidth[k][l].bytes_per_second = (kb_rate){v, v * 0.9, v * 0.8, v, 11};
            }
        /* Three measurements of load DRAM, a minute apart, and one of an FMA figure. */
        for (int i = 0; i < 3; i++)
            kb_peak_history_add(&set->bandwidth[KB_BW_LOAD][KB_MEM_DRAM].history,
                                p.measured_at - 120 + 60 * i, (40 + i + s) * 1e9);
        kb_peak_history_add(&set->flops_history[KB_FLOP_F32][KB_SIMD_AVX2], p.measured_at,
                            123.456e9);
        set->flops[KB_FLOP_F32][KB_SIMD_AVX2] = (kb_rate){123.456e9, 120e9, 100e9, 123.456e9, 3};
        set->flops[KB_FLOP_F64][KB_SIMD_SCALAR] = (kb_rate){7e9, 6e9, 5e9, 7e9, 1};
        /* A curve of three points per kernel, each its own, the middle one measured twice. */
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
            kb_bw_curve *c = &set->curves[k];
            c->count = 3;
            for (int i = 0; i < 3; i++) {
                kb_bw_curve_point *point = &c->points[i];
                double v = (90.5 - 10 * i + s + 100 * k) * 1e9;
                point->working_set_bytes = ((int64_t)4 << 10) * (1 + s) * (1 + k) << (3 * i);
                point->bytes_per_second = (kb_rate){v, v * 0.9, v * 0.8, v, 5};
                if (i == 1)
                    kb_peak_history_add(&point->history, p.measured_at - 60, v * 1.5);
                kb_peak_history_add(&point->history, p.measured_at, v);
            }
        }
    }
    return p;
}

static void assert_rate(const kb_rate *a, const kb_rate *b) {
    assert_int_equal(a->repetitions, b->repetitions);
    const double ax[4] = {a->best, a->median, a->min, a->max},
                 bx[4] = {b->best, b->median, b->min, b->max};
    for (int i = 0; i < 4; i++)
        if (!(fabs(ax[i] - bx[i]) <= 1e-9 * fabs(bx[i])))
            fail_msg("rate %.17g read back as %.17g", bx[i], ax[i]);
}

static void assert_same_history(const kb_peak_history *a, const kb_peak_history *b) {
    assert_int_equal(a->count, b->count);
    for (int i = 0; i < a->count; i++) {
        assert_int_equal(a->samples[i].at, b->samples[i].at);
        if (!(fabs(a->samples[i].value - b->samples[i].value) <= 1e-9 * b->samples[i].value))
            fail_msg("history value %.17g read back as %.17g", b->samples[i].value,
                     a->samples[i].value);
    }
}

static void assert_same_peaks(const kb_peaks *a, const kb_peaks *b) {
    assert_int_equal(a->bandwidth_simd, b->bandwidth_simd);
    assert_int_equal(a->logical_cpus, b->logical_cpus);
    assert_true(a->clock_mhz == b->clock_mhz);
    assert_int_equal(a->measured_at, b->measured_at);
    assert_true(a->load_average == b->load_average);
    assert_int_equal(a->quick, b->quick);
    assert_memory_equal(a->caches, b->caches, sizeof a->caches);
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        assert_int_equal(a->sets[s].threads, b->sets[s].threads);
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
                assert_int_equal(a->sets[s].bandwidth[k][l].working_set_bytes,
                                 b->sets[s].bandwidth[k][l].working_set_bytes);
                assert_rate(&a->sets[s].bandwidth[k][l].bytes_per_second,
                            &b->sets[s].bandwidth[k][l].bytes_per_second);
                assert_same_history(&a->sets[s].bandwidth[k][l].history,
                                    &b->sets[s].bandwidth[k][l].history);
            }
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
                assert_rate(&a->sets[s].flops[t][l], &b->sets[s].flops[t][l]);
                assert_same_history(&a->sets[s].flops_history[t][l],
                                    &b->sets[s].flops_history[t][l]);
            }
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
            const kb_bw_curve *ca = &a->sets[s].curves[k], *cb = &b->sets[s].curves[k];
            assert_int_equal(ca->count, cb->count);
            for (int i = 0; i < ca->count; i++) {
                assert_int_equal(ca->points[i].working_set_bytes, cb->points[i].working_set_bytes);
                assert_rate(&ca->points[i].bytes_per_second, &cb->points[i].bytes_per_second);
                assert_same_history(&ca->points[i].history, &cb->points[i].history);
            }
        }
    }
}

static void file_round_trip(void **state) {
    kb_peaks p = sample(), back;
    char path[1024];
    bool found = true;
    assert_int_equal(kb_peaks_cache_path("key one", path, sizeof path), KB_OK);
    /* Nothing there yet: a miss, not an error. */
    assert_int_equal(kb_peaks_cache_read(path, "key one", &back, &found), KB_OK);
    assert_false(found);

    assert_int_equal(kb_peaks_cache_write(path, "key one", &p), KB_OK);
    assert_int_equal(kb_peaks_cache_read(path, "key one", &back, &found), KB_OK);
    assert_true(found);
    assert_same_peaks(&back, &p);

    /* The file repeats its key: another key is a miss. */
    assert_int_equal(kb_peaks_cache_read(path, "key two", &back, &found), KB_OK);
    assert_false(found);

    /* A cache directory that does not exist yet is created. */
    char nested[1100];
    test_dir_path(&dir, "a/b/peaks.json", nested, sizeof nested);
    assert_int_equal(kb_peaks_cache_write(nested, "k", &p), KB_OK);
    assert_int_equal(kb_peaks_cache_read(nested, "k", &back, &found), KB_OK);
    assert_true(found);
}

static void json_round_trip(void **state) {
    kb_peaks p = sample(), back;
    char *text;
    assert_int_equal(kb_peaks_to_json(&p, &text), KB_OK);
    assert_non_null(strstr(text, "\"format\": \"kbench-peaks/3\""));
    assert_non_null(strstr(text, "\"measured_at\": \"2026-01-01T00:00:00Z\""));
    assert_non_null(strstr(text, "\"gbytes_per_s_with_write_allocate\": null")); /* load, L1 */
    assert_int_equal(kb_peaks_from_json(text, &back), KB_OK);
    free(text);
    assert_same_peaks(&back, &p);
}

static void damaged_files_are_errors(void **state) {
    char path[1100];
    test_dir_path(&dir, "damaged.json", path, sizeof path);
    kb_peaks back;
    bool found = true;
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"{\"format\": \"kbench-peaks-cache/1\", \"key\": \"k\"", "line"},
        {"[1, 2]", "not a kbench peaks cache file"},
        {"{\"format\": \"other/1\", \"key\": \"k\", \"peaks\": {}}", "format is 'other/1'"},
        {"{\"format\": \"kbench-peaks-cache/1\", \"key\": \"k\", \"peaks\": {}}", "peaks JSON"},
        {"{\"format\": \"kbench-peaks-cache/1\", \"key\": \"k\", \"peaks\": {\"format\": "
         "\"kbench-peaks/1\", \"measured_at\": \"yesterday\", \"load_average\": null, "
         "\"quick\": false, "
         "\"bandwidth_simd\": \"avx2\", \"clock_mhz\": null, \"logical_cpus\": 2, \"caches\": {}, "
         "\"sets\": []}}",
         "measured_at"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_write_text(path, cases[i].text);
        assert_int_equal(kb_peaks_cache_read(path, "k", &back, &found), KB_EFORMAT);
        assert_false(found);
        if (!strstr(kb_last_error(), cases[i].message))
            fail_msg("case %zu: '%s' does not say '%s'", i, kb_last_error(), cases[i].message);
    }

    /* A rate out of order and an unknown level are refused too. */
    kb_peaks p = sample();
    char *text;
    assert_int_equal(kb_peaks_to_json(&p, &text), KB_OK);
    char *avx2 = strstr(text, "\"simd\": \"avx2\"");
    assert_non_null(avx2);
    memcpy(avx2 + 9, "avx9", 4);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "unknown type or SIMD level"));
    free(text);
    /* A curve whose working sets do not ascend, named by its kernel. */
    p.sets[1].curves[KB_BW_TRIAD].points[2].working_set_bytes = 4 << 10;
    assert_int_equal(kb_peaks_to_json(&p, &text), KB_OK);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "curves.triad's working sets are not positive"));
    free(text);
    /* A curve of a kernel kbench does not have. */
    p = sample();
    assert_int_equal(kb_peaks_to_json(&p, &text), KB_OK);
    char *copy = strstr(text, "\"copy\": [");
    assert_non_null(copy);
    memcpy(copy + 1, "cpy2", 4);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "curves names an unknown kernel"));
    free(text);
    p = sample();
    p.sets[0].flops[KB_FLOP_F64][KB_SIMD_SCALAR].min = 8e9; /* above the median */
    assert_int_equal(kb_peaks_to_json(&p, &text), KB_OK);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "not ordered"));
    free(text);
}

/* Peaks that kb_peaks_from_json accepts must write back with kb_peaks_to_json and read back
 * the same (fuzz_peaks checks it for any input): a negative clock_mhz, which is written back as
 * null, and a rate that overflows when scaled to units per second, which cannot be written
 * back at all, are refused; a clock of 0 reads back as 0. */
static void read_peaks_write_back(void **state) {
    kb_peaks p = sample(), back, again;
    char *text, *replaced;
    assert_int_equal(kb_peaks_to_json(&p, &text), KB_OK);

    char *clock = strstr(text, "\"clock_mhz\": 3712.5");
    assert_non_null(clock);
    memcpy(clock + 13, "-371.5", 6);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "clock_mhz"));
    memcpy(clock + 13, "0.0000", 6);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_OK);
    assert_true(back.clock_mhz == 0);
    free(text);
    assert_int_equal(kb_peaks_to_json(&back, &replaced), KB_OK);
    assert_non_null(strstr(replaced, "\"clock_mhz\": null"));
    assert_int_equal(kb_peaks_from_json(replaced, &again), KB_OK);
    free(replaced);
    assert_same_peaks(&again, &back);

    /* 1e300 GFLOP/s is 1e309 FLOP/s: past the largest double, so refused; 1e299 is not. */
    p = sample();
    p.sets[0].flops[KB_FLOP_F64][KB_SIMD_SCALAR] =
        (kb_rate){1234.5e9, 1234.5e9, 1234.5e9, 1234.5e9, 1};
    assert_int_equal(kb_peaks_to_json(&p, &text), KB_OK);
    for (char *r = strstr(text, "1234.5"); r; r = strstr(r, "1234.5"))
        memcpy(r, "1e+300", 6);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "too large"));
    for (char *r = strstr(text, "1e+300"); r; r = strstr(r, "1e+300"))
        memcpy(r, "1e+299", 6);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_OK);
    assert_true(back.sets[0].flops[KB_FLOP_F64][KB_SIMD_SCALAR].best > 9e307);
    free(text);
    assert_int_equal(kb_peaks_to_json(&back, &text), KB_OK);
    assert_int_equal(kb_peaks_from_json(text, &again), KB_OK);
    free(text);
    assert_same_peaks(&again, &back);

    /* Caches, CPU and thread counts out of any real range are refused (a cache of 2^62 bytes
     * or shared by INT_MAX CPUs overflowed the roofline's capacities). */
    static const struct {
        const char *from, *to, *message;
    } out_of_range[] = {
        {"\"size_bytes\": 32768,", "\"size_bytes\": 4611686018427387904,", "caches.L1d"},
        {"\"size_bytes\": 32768,", "\"size_bytes\": -1,", "caches.L1d"},
        {"\"shared_by\": 2\n", "\"shared_by\": 2147483647\n", "caches.L3"},
        {"\"line_size\": 64,", "\"line_size\": -64,", "caches.L1d"},
        {"\"logical_cpus\": 2,", "\"logical_cpus\": -2,", "logical_cpus"},
        {"\"threads\": 2,", "\"threads\": 2000000000,", "threads from 1 to"},
    };
    p = sample();
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++) {
        assert_int_equal(kb_peaks_to_json(&p, &text), KB_OK);
        char *at = strstr(text, out_of_range[i].from);
        if (!at)
            fail_msg("case %zu: no '%s' in %s", i, out_of_range[i].from, text);
        size_t from = strlen(out_of_range[i].from), to = strlen(out_of_range[i].to);
        replaced = malloc(strlen(text) + to + 1);
        assert_non_null(replaced);
        snprintf(replaced, strlen(text) + to + 1, "%.*s%s%s", (int)(at - text), text,
                 out_of_range[i].to, at + from);
        free(text);
        assert_int_equal(kb_peaks_from_json(replaced, &back), KB_EFORMAT);
        free(replaced);
        if (!strstr(kb_last_error(), out_of_range[i].message))
            fail_msg("case %zu: '%s' does not say '%s'", i, kb_last_error(),
                     out_of_range[i].message);
    }
}

/* The JSON of peaks as a jansson value (the caller's), its format set to format: an older
 * version's to make a file of it. */
static json_t *sample_json_as(const kb_peaks *p, const char *format) {
    char *text;
    assert_int_equal(kb_peaks_to_json(p, &text), KB_OK);
    json_t *root = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(root);
    json_object_set_new(root, "format", json_string(format));
    return root;
}

/* Peaks written before the history (kbench-peaks/1, no "history" in any entry) still read:
 * each figure is a history of its one measurement, at the time the peaks were measured. */
static void version_1_reads_as_one_measurement(void **state) {
    kb_peaks p = sample(), back;
    json_t *root = sample_json_as(&p, "kbench-peaks/1");
    json_t *set, *item;
    size_t i, j;
    json_array_foreach(json_object_get(root, "sets"), i, set) {
        json_array_foreach(json_object_get(set, "bandwidth"), j, item) {
            json_object_del(item, "history");
            json_object_del(item, "history_summary");
        }
        json_array_foreach(json_object_get(set, "flops"), j, item) {
            json_object_del(item, "history");
            json_object_del(item, "history_summary");
        }
        json_object_del(set, "curves");
    }
    char *text = json_dumps(root, 0);
    json_decref(root);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_OK);
    free(text);
    const kb_peak_history *h = &back.sets[1].bandwidth[KB_BW_COPY][KB_MEM_L2].history;
    assert_int_equal(h->count, 1);
    assert_int_equal(h->samples[0].at, p.measured_at);
    double best = p.sets[1].bandwidth[KB_BW_COPY][KB_MEM_L2].bytes_per_second.best;
    assert_true(fabs(h->samples[0].value - best) <= 1e-9 * best); /* the 1e-9 scaling rounds */
    assert_int_equal(back.sets[0].flops_history[KB_FLOP_F64][KB_SIMD_SCALAR].count, 1);
    assert_int_equal(back.sets[0].flops_history[KB_FLOP_F64][KB_SIMD_AVX512].count, 0);
}

/* Peaks with one curve, the load kernel's, under "load_curve" (kbench-peaks/2, as kbench wrote
 * them before the copy and triad curves) still read: the load curve whole, the others not
 * measured (test_roofline: results whose traffic is copy or triad are then held against the
 * levels). A version 3 file has no "load_curve", and an older one no "curves". */
static void version_2_reads_the_load_curve(void **state) {
    kb_peaks p = sample(), back;
    json_t *root = sample_json_as(&p, "kbench-peaks/2");
    json_t *set;
    size_t i;
    json_array_foreach(json_object_get(root, "sets"), i, set) {
        json_t *curves = json_object_get(set, "curves");
        json_object_set(set, "load_curve", json_object_get(curves, "load"));
        json_object_del(set, "curves");
    }
    char *text = json_dumps(root, 0);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_OK);
    free(text);
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        const kb_bw_curve *c = &back.sets[s].curves[KB_BW_LOAD];
        assert_int_equal(c->count, 3);
        for (int j = 0; j < 3; j++) {
            assert_int_equal(c->points[j].working_set_bytes,
                             p.sets[s].curves[KB_BW_LOAD].points[j].working_set_bytes);
            assert_same_history(&c->points[j].history,
                                &p.sets[s].curves[KB_BW_LOAD].points[j].history);
        }
        assert_int_equal(back.sets[s].curves[KB_BW_COPY].count, 0);
        assert_int_equal(back.sets[s].curves[KB_BW_TRIAD].count, 0);
    }
    /* Written back, they are version 3, with the load curve under "curves". */
    assert_int_equal(kb_peaks_to_json(&back, &text), KB_OK);
    assert_non_null(strstr(text, "\"format\": \"kbench-peaks/3\""));
    assert_null(strstr(text, "load_curve"));
    free(text);

    /* "curves" in a version 2 file, "load_curve" in a version 3 one: refused. */
    json_array_foreach(json_object_get(root, "sets"), i, set)
        json_object_set_new(set, "curves", json_object());
    text = json_dumps(root, 0);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "curves is of kbench-peaks/3"));
    free(text);
    json_object_set_new(root, "format", json_string("kbench-peaks/3"));
    text = json_dumps(root, 0);
    assert_int_equal(kb_peaks_from_json(text, &back), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "load_curve is of kbench-peaks/2"));
    free(text);
    json_decref(root);
}

/* A run's probes join the history in the cache file; a missing file is left missing. */
static void cache_add_records(void **state) {
    kb_peaks p = sample(), back;
    char path[1100], absent[1100];
    snprintf(path, sizeof path, "%s/add.json", dir.root);
    snprintf(absent, sizeof absent, "%s/absent.json", dir.root);
    assert_int_equal(kb_peaks_cache_write(path, "k", &p), KB_OK);
    kb_bw_record r[] = {{2, KB_BW_LOAD, KB_MEM_DRAM, p.measured_at + 60, 77e9},
                        {3, KB_BW_LOAD, KB_MEM_DRAM, p.measured_at + 60, 77e9}};
    assert_int_equal(kb_peaks_cache_add(path, "k", r, 2), KB_OK);
    bool found = false;
    assert_int_equal(kb_peaks_cache_read(path, "k", &back, &found), KB_OK);
    assert_true(found);
    const kb_peak_history *h = &back.sets[1].bandwidth[KB_BW_LOAD][KB_MEM_DRAM].history;
    assert_int_equal(h->count, 4);
    assert_true(h->samples[3].value == 77e9);
    assert_int_equal(back.sets[0].bandwidth[KB_BW_LOAD][KB_MEM_DRAM].history.count, 3);
    assert_int_equal(kb_peaks_cache_add(absent, "k", r, 2), KB_OK);
    FILE *f = fopen(absent, "r");
    assert_null(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_names_what_peaks_depend_on),
        cmocka_unit_test(path_follows_the_environment),
        cmocka_unit_test(file_round_trip),
        cmocka_unit_test(json_round_trip),
        cmocka_unit_test(damaged_files_are_errors),
        cmocka_unit_test(read_peaks_write_back),
        cmocka_unit_test(version_1_reads_as_one_measurement),
        cmocka_unit_test(version_2_reads_the_load_curve),
        cmocka_unit_test(cache_add_records),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
