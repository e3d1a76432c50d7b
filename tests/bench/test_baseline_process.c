/* The baseline runner's two ends: the real runner (baselines/runner.py) computing sums with
 * NumPy, numexpr, PyTorch and JAX on inputs written by kbench, checked against a long double
 * reference, with a case PyTorch cannot compute reported as unsupported and a missing PyTorch
 * or JAX named with the command that installs it;
 * and the client against runners that misbehave (missing, dying, answering garbage or too
 * little, never answering, closing their stdin, ignoring quit), which must each give a
 * status and a clear message, never a hang or a crash (SIGPIPE included). Scripts and .npy
 * files live in a fresh directory from mkdtemp, removed at the end. No timing is asserted. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench/baseline_process.h"
#include "kbench/npy.h"
#include "test_util.h"

static test_dir dir;

static int make_temp_dir(void **state) {
    /* Scripts here are imported as modules by no one but the fake-NumPy test; no caches. */
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    return test_dir_create(&dir);
}

static int remove_temp_dir(void **state) {
    return test_dir_destroy(&dir);
}

static void write_script(const char *name, const char *text, char *path, size_t size) {
    test_write_text(test_dir_path(&dir, name, path, size), text);
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Values of both signs and many magnitudes, so that a sum in the wrong precision or order
 * shows beyond the tolerance. */
static double value_at(int64_t i) {
    return (double)(i % 1000) * 0.001 - 0.3 + 1.0 / (double)(i + 1);
}

static void write_input(const char *path, kb_dtype dtype, int ndim, const int64_t *shape) {
    kb_array a;
    assert_int_equal(kb_array_new(&a, dtype, ndim, shape, KB_ORDER_C), KB_OK);
    int64_t n = kb_array_size(&a);
    for (int64_t i = 0; i < n; i++) {
        if (dtype == KB_F32)
            ((float *)a.data)[i] = (float)value_at(i);
        else
            ((double *)a.data)[i] = value_at(i);
    }
    assert_int_equal(kb_npy_write(path, &a, KB_ORDER_C, 0), KB_OK);
    kb_array_free(&a);
}

/* The sum of elements [start, start + count) as the input holds them (rounded to the dtype
 * first), in long double, and the sum of their magnitudes for the tolerance. */
static void reference_sum(kb_dtype dtype, int64_t start, int64_t count, long double *sum,
                          long double *magnitude) {
    *sum = 0;
    *magnitude = 0;
    for (int64_t i = start; i < start + count; i++) {
        long double v = dtype == KB_F32 ? (long double)(float)value_at(i) : value_at(i);
        *sum += v;
        *magnitude += fabsl(v);
    }
}

static double output_value(const kb_array *out, int64_t i) {
    return out->dtype == KB_F32 ? ((const float *)out->data)[i] : ((const double *)out->data)[i];
}

typedef struct fixture {
    kb_baseline_process *p;
    json_t *info;
} fixture;

static fixture real; /* one real runner for the tests that use NumPy */

static int start_real_runner(void **state) {
    if (make_temp_dir(state) != 0)
        return -1;
    if (kb_baseline_start(NULL, NULL, &real.p) != KB_OK) {
        fprintf(stderr, "cannot start the baseline runner: %s\n", kb_last_error());
        return -1;
    }
    if (kb_baseline_hello(real.p, &real.info) != KB_OK) {
        fprintf(stderr, "baseline runner hello failed: %s\n", kb_last_error());
        return -1;
    }
    return 0;
}

static int stop_real_runner(void **state) {
    /* The misbehaving runners start many interpreters: the one found already, directly,
     * skips a launcher such as pyenv's shim (a quarter of a second a start). */
    const char *executable = json_string_value(json_object_get(real.info, "executable"));
    if (executable && !getenv("KB_PYTHON"))
        setenv("KB_PYTHON", executable, 1);
    json_decref(real.info);
    kb_status s = kb_baseline_stop(real.p);
    if (s != KB_OK)
        fprintf(stderr, "baseline runner stop failed: %s\n", kb_last_error());
    return remove_temp_dir(state) != 0 || s != KB_OK ? -1 : 0;
}

static void hello_describes_python_and_numpy(void **state) {
    json_t *info = real.info;
    assert_true(json_is_string(json_object_get(info, "python")));
    assert_null(json_object_get(info, "ok"));
    json_t *numpy = json_object_get(json_object_get(info, "libraries"), "numpy");
    assert_true(json_is_string(json_object_get(numpy, "version")));
    json_t *simd = json_object_get(json_object_get(numpy, "config"), "simd");
    assert_true(json_is_array(json_object_get(simd, "baseline")));
    assert_true(json_is_object(json_object_get(info, "threads")));
    assert_true(json_object_get(json_object_get(info, "threads"), "OMP_NUM_THREADS") != NULL);
    json_t *timer = json_object_get(info, "timer");
    assert_string_equal(json_string_value(json_object_get(timer, "clock")), "CLOCK_MONOTONIC_RAW");
    assert_true(json_integer_value(json_object_get(timer, "resolution_ns")) > 0);
}

/* Sets up library's sum over axis (has_axis false: all) of input, runs it, and compares the
 * saved result with the reference: per row of a 2-d input summed over axis 1, else whole. */
static void check_sum(const char *library, const char *input, kb_dtype dtype, int ndim,
                      const int64_t *shape, bool has_axis, int axis, const char *result_dtype) {
    char output[1024];
    test_dir_path(&dir, "out.npy", output, sizeof output);
    unlink(output);
    json_t *spec = kb_baseline_reduce_case("sum", has_axis, axis);
    bool unsupported = true;
    json_t *reply;
    kb_status s = kb_baseline_setup(real.p, library, spec, input, output, 1, &unsupported, &reply);
    json_decref(spec);
    if (s != KB_OK)
        fail_msg("setup %s: %s", library, kb_last_error());
    assert_false(unsupported);
    assert_string_equal(json_string_value(json_object_get(reply, "result_dtype")), result_dtype);
    assert_string_equal(json_string_value(json_object_get(reply, "library")), library);
    json_decref(reply);

    int64_t samples[3] = {-1, -1, -1};
    assert_int_equal(kb_baseline_run(real.p, library, 4, 3, samples), KB_OK);
    for (int i = 0; i < 3; i++)
        assert_true(samples[i] > 0);

    kb_array out;
    assert_int_equal(kb_npy_read(output, &out, NULL), KB_OK);
    assert_int_equal(out.dtype, dtype);
    int64_t rows = has_axis ? shape[0] : 1;
    int64_t per_row = 1;
    for (int d = has_axis ? 1 : 0; d < ndim; d++)
        per_row *= shape[d];
    assert_int_equal(kb_array_size(&out), rows);
    /* Pairwise or blocked summation in the input's precision: error grows like log(n) eps. */
    double eps = dtype == KB_F32 ? 1e-6 : 1e-15;
    for (int64_t r = 0; r < rows; r++) {
        long double sum, magnitude;
        reference_sum(dtype, r * per_row, per_row, &sum, &magnitude);
        double got = output_value(&out, r);
        double tolerance = 20 * eps * (double)magnitude;
        if (fabs(got - (double)sum) > tolerance)
            fail_msg("%s row %lld: %.17g, reference %.17Lg", library, (long long)r, got, sum);
    }
    kb_array_free(&out);
    assert_int_equal(kb_baseline_teardown(real.p), KB_OK);
}

/* library's sum of a whole float64 input, and its row sums of a float32 one (through axis -1
 * too when negative_axis). */
static void sums_match_reference(const char *library, bool negative_axis) {
    char input[1024];
    test_dir_path(&dir, "in_f64.npy", input, sizeof input);
    int64_t n[1] = {10007};
    write_input(input, KB_F64, 1, n);
    check_sum(library, input, KB_F64, 1, n, false, 0, "float64");

    test_dir_path(&dir, "in_f32.npy", input, sizeof input);
    int64_t shape[2] = {7, 1003};
    write_input(input, KB_F32, 2, shape);
    check_sum(library, input, KB_F32, 2, shape, true, 1, "float32");
    if (negative_axis)
        check_sum(library, input, KB_F32, 2, shape, true, -1, "float32");
}

static void numpy_sums_match_reference(void **state) {
    sums_match_reference("numpy", true);
}

static bool have_numexpr(void) {
    json_t *ne = json_object_get(json_object_get(real.info, "libraries"), "numexpr");
    if (!json_is_object(ne)) {
        fprintf(stderr, "numexpr is not installed (scripts/install-deps installs it): "
                        "skipping its tests\n");
        return false;
    }
    return true;
}

static void numexpr_sums_match_reference(void **state) {
    if (!have_numexpr())
        skip();
    sums_match_reference("numexpr", false);
}

/* Both libraries hold a case of one group at once, so that their rounds interleave. */
static void numpy_and_numexpr_interleave(void **state) {
    if (!have_numexpr())
        skip();
    char input[1024], outputs[2][1024];
    const char *libraries[2] = {"numpy", "numexpr"};
    test_dir_path(&dir, "in_shared.npy", input, sizeof input);
    int64_t n[1] = {5000};
    write_input(input, KB_F64, 1, n);
    json_t *spec = kb_baseline_reduce_case("sum", false, 0);
    for (int i = 0; i < 2; i++) {
        test_dir_path(&dir, libraries[i], outputs[i], sizeof outputs[i]);
        if (kb_baseline_setup(real.p, libraries[i], spec, input, outputs[i], 1, NULL, NULL) !=
            KB_OK)
            fail_msg("setup %s: %s", libraries[i], kb_last_error());
    }
    json_decref(spec);
    int64_t sample;
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 2; i++)
            assert_int_equal(kb_baseline_run(real.p, libraries[i], 2, 1, &sample), KB_OK);
    /* Two libraries have a case: run must say which. */
    assert_int_equal(kb_baseline_run(real.p, NULL, 1, 1, &sample), KB_EINVAL);
    long double sum, magnitude;
    reference_sum(KB_F64, 0, n[0], &sum, &magnitude);
    for (int i = 0; i < 2; i++) {
        kb_array out;
        assert_int_equal(kb_npy_read(outputs[i], &out, NULL), KB_OK);
        assert_true(fabs(output_value(&out, 0) - (double)sum) < 1e-13 * (double)magnitude);
        kb_array_free(&out);
    }
    assert_int_equal(kb_baseline_teardown(real.p), KB_OK);
    assert_int_equal(kb_baseline_run(real.p, "numpy", 1, 1, &sample), KB_EINVAL);
}

/* Whether the runner can import library (scripts/install-deps installs it); else says so. */
static bool have_peer(const char *library) {
    json_t *about;
    if (kb_baseline_require(real.p, library, &about) != KB_OK) {
        fprintf(stderr, "%s (scripts/install-deps installs it): skipping its tests\n",
                kb_last_error());
        return false;
    }
    assert_true(json_is_string(json_object_get(about, "version")));
    json_decref(about);
    return true;
}

static void peer_sums_match_reference(void **state) {
    const char *peers[] = {"torch", "jax"};
    int ran = 0;
    for (int k = 0; k < 2; k++) {
        if (!have_peer(peers[k]))
            continue;
        char input[1024];
        test_dir_path(&dir, "in_f64.npy", input, sizeof input);
        int64_t n[1] = {10007};
        write_input(input, KB_F64, 1, n);
        check_sum(peers[k], input, KB_F64, 1, n, false, 0, "float64");

        test_dir_path(&dir, "in_f32.npy", input, sizeof input);
        int64_t shape[2] = {7, 1003};
        write_input(input, KB_F32, 2, shape);
        check_sum(peers[k], input, KB_F32, 2, shape, true, 1, "float32");
        ran++;
    }
    if (ran == 0)
        skip();
}

/* PyTorch at two thread counts in one group, told apart by their ids; runs with an untimed
 * call first and with a flush before every sample. */
static void torch_at_two_thread_counts(void **state) {
    if (!have_peer("torch"))
        skip();
    char input[1024], outputs[2][1024];
    const char *ids[2] = {"torch/threads=1", "torch/threads=2"};
    test_dir_path(&dir, "in_threads.npy", input, sizeof input);
    int64_t n[1] = {5000};
    write_input(input, KB_F64, 1, n);
    json_t *spec = kb_baseline_reduce_case("sum", false, 0);
    for (int i = 0; i < 2; i++) {
        test_dir_path(&dir, i ? "torch2.npy" : "torch1.npy", outputs[i], sizeof outputs[i]);
        json_t *reply;
        if (kb_baseline_setup_id(real.p, ids[i], "torch", spec, input, outputs[i], i + 1, NULL,
                                 &reply) != KB_OK)
            fail_msg("setup %s: %s", ids[i], kb_last_error());
        assert_int_equal(json_integer_value(json_object_get(reply, "threads")), i + 1);
        assert_string_equal(json_string_value(json_object_get(reply, "id")), ids[i]);
        json_decref(reply);
    }
    json_decref(spec);
    int64_t samples[2];
    for (int i = 0; i < 2; i++) {
        kb_baseline_block hot = {.id = ids[i], .calls = 2, .warmup = 1};
        kb_baseline_block cold = {.id = ids[i], .calls = 1, .flush_bytes = 1 << 16};
        assert_int_equal(kb_baseline_run_block(real.p, &hot, 2, samples), KB_OK);
        assert_true(samples[0] > 0 && samples[1] > 0);
        assert_int_equal(kb_baseline_run_block(real.p, &cold, 2, samples), KB_OK);
        assert_true(samples[0] > 0 && samples[1] > 0);
    }
    assert_int_equal(kb_baseline_run(real.p, NULL, 1, 1, samples), KB_EINVAL);
    kb_baseline_block bad = {.id = ids[0], .calls = 1, .warmup = -1};
    assert_int_equal(kb_baseline_run_block(real.p, &bad, 1, samples), KB_EINVAL);
    assert_int_equal(kb_baseline_teardown(real.p), KB_OK);
}

static void torch_integer_mean_is_unsupported(void **state) {
    if (!have_peer("torch"))
        skip();
    char input[1024], output[1024];
    test_dir_path(&dir, "in_i32.npy", input, sizeof input);
    test_dir_path(&dir, "out_i32.npy", output, sizeof output);
    kb_array a;
    int64_t n = 100;
    assert_int_equal(kb_array_new(&a, KB_INT32, 1, &n, KB_ORDER_C), KB_OK);
    for (int64_t i = 0; i < n; i++)
        ((int32_t *)a.data)[i] = (int32_t)i - 50;
    assert_int_equal(kb_npy_write(input, &a, KB_ORDER_C, 0), KB_OK);
    kb_array_free(&a);
    json_t *spec = kb_baseline_reduce_case("mean", false, 0);
    bool unsupported = false;
    assert_int_equal(kb_baseline_setup(real.p, "torch", spec, input, output, 1, &unsupported, NULL),
                     KB_EUNSUPPORTED);
    json_decref(spec);
    assert_true(unsupported);
    assert_non_null(strstr(kb_last_error(), "PyTorch has no mean of int32"));
    assert_int_equal(kb_baseline_teardown(real.p), KB_OK);
}

static void unsupported_and_failed_setups_leave_runner_usable(void **state) {
    char input[1024], output[1024];
    test_dir_path(&dir, "in_small.npy", input, sizeof input);
    test_dir_path(&dir, "out_small.npy", output, sizeof output);
    int64_t n[1] = {100};
    write_input(input, KB_F64, 1, n);
    bool unsupported = false;

    if (have_numexpr()) {
        json_t *spec = kb_baseline_reduce_case("argmax", false, 0);
        assert_int_equal(
            kb_baseline_setup(real.p, "numexpr", spec, input, output, 1, &unsupported, NULL),
            KB_EUNSUPPORTED);
        json_decref(spec);
        assert_true(unsupported);
        assert_non_null(strstr(kb_last_error(), "numexpr cannot compute argmax"));
    }

    json_t *spec = kb_baseline_reduce_case("mean", true, 0);
    char missing[1024];
    test_dir_path(&dir, "no_such_input.npy", missing, sizeof missing);
    assert_int_equal(
        kb_baseline_setup(real.p, "numpy", spec, missing, output, 0, &unsupported, NULL),
        KB_EINVAL);
    assert_false(unsupported);
    assert_non_null(strstr(kb_last_error(), "no_such_input.npy"));

    /* A failed setup leaves no case behind. */
    int64_t sample;
    assert_int_equal(kb_baseline_run(real.p, NULL, 1, 1, &sample), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "before setup"));

    json_t *bad_axis = kb_baseline_reduce_case("sum", true, 3);
    assert_int_equal(
        kb_baseline_setup(real.p, "numpy", bad_axis, input, output, 0, &unsupported, NULL),
        KB_EINVAL);
    json_decref(bad_axis);
    assert_non_null(strstr(kb_last_error(), "out of range"));

    assert_int_equal(kb_baseline_run(real.p, NULL, 0, 1, &sample), KB_EINVAL);

    /* Still answering. */
    json_t *reply;
    assert_int_equal(kb_baseline_setup(real.p, "numpy", spec, input, output, 0, NULL, &reply),
                     KB_OK);
    assert_string_equal(json_string_value(json_object_get(reply, "result_dtype")), "float64");
    json_decref(reply);
    json_decref(spec);
    assert_int_equal(kb_baseline_run(real.p, NULL, 1, 1, &sample), KB_OK);
    assert_int_equal(kb_baseline_teardown(real.p), KB_OK);
}

/* ---- the client against runners that misbehave ---- */

static void runner_path_from_environment(void **state) {
    char path[4096];
    unsetenv("KB_BASELINE_RUNNER");
    assert_int_equal(kb_baseline_runner_path(path, sizeof path), KB_OK);
    assert_non_null(strstr(path, "baselines/runner.py"));
    assert_int_equal(access(path, R_OK), 0);

    setenv("KB_BASELINE_RUNNER", "/nonexistent/runner.py", 1);
    assert_int_equal(kb_baseline_runner_path(path, sizeof path), KB_EIO);
    assert_non_null(strstr(kb_last_error(), "KB_BASELINE_RUNNER=/nonexistent/runner.py"));
    kb_baseline_process *p = (kb_baseline_process *)1;
    assert_int_equal(kb_baseline_start(NULL, NULL, &p), KB_EIO);
    assert_null(p);
    unsetenv("KB_BASELINE_RUNNER");

    char small[8];
    assert_int_equal(kb_baseline_runner_path(small, sizeof small), KB_EINVAL);
}

static void missing_runner_or_python(void **state) {
    kb_baseline_process *p;
    assert_int_equal(kb_baseline_start(NULL, "/nonexistent/runner.py", &p), KB_EIO);
    assert_null(p);
    assert_non_null(strstr(kb_last_error(), "/nonexistent/runner.py"));

    char runner[4096];
    assert_int_equal(kb_baseline_runner_path(runner, sizeof runner), KB_OK);
    /* glibc's posix_spawn reports the failed exec; under qemu-user it cannot, and the
     * child exits with 127 instead, which the first request reports. */
    kb_status s = kb_baseline_start("/nonexistent/python3", runner, &p);
    if (s == KB_OK) {
        json_t *info;
        assert_int_equal(kb_baseline_hello(p, &info), KB_EIO);
        assert_non_null(strstr(kb_last_error(), "status 127"));
        assert_non_null(strstr(kb_last_error(), "/nonexistent/python3"));
        assert_non_null(strstr(kb_last_error(), "KB_PYTHON"));
        kb_baseline_stop(p);
    } else {
        assert_int_equal(s, KB_EUNSUPPORTED);
        assert_null(p);
        assert_non_null(strstr(kb_last_error(), "/nonexistent/python3"));
        assert_non_null(strstr(kb_last_error(), "KB_PYTHON"));
    }
    assert_int_equal(kb_baseline_stop(NULL), KB_OK);
}

/* The runner started with the temporary directory first on its PYTHONPATH, so that the fake
 * modules written there stand in for the real ones; this process's PYTHONPATH is restored. */
static kb_baseline_process *start_with_fakes(void) {
    char runner[4096];
    assert_int_equal(kb_baseline_runner_path(runner, sizeof runner), KB_OK);
    const char *saved = getenv("PYTHONPATH");
    char *saved_copy = saved ? strdup(saved) : NULL;
    setenv("PYTHONPATH", dir.root, 1);
    kb_baseline_process *p;
    kb_status s = kb_baseline_start(NULL, runner, &p);
    if (saved_copy)
        setenv("PYTHONPATH", saved_copy, 1);
    else
        unsetenv("PYTHONPATH");
    free(saved_copy);
    assert_int_equal(s, KB_OK);
    return p;
}

static void missing_numpy_says_how_to_install(void **state) {
    char fake[1024];
    write_script("numpy.py", "raise ImportError('no numpy here')\n", fake, sizeof fake);
    kb_baseline_process *p = start_with_fakes();
    json_t *info;
    assert_int_equal(kb_baseline_hello(p, &info), KB_EUNSUPPORTED);
    unlink(fake); /* only now: the runner imports it on its first request */
    assert_null(info);
    assert_non_null(strstr(kb_last_error(), "NumPy is not installed"));
    assert_non_null(strstr(kb_last_error(), "scripts/install-deps"));
    assert_int_equal(kb_baseline_stop(p), KB_OK);
}

static void missing_peers_say_how_to_install(void **state) {
    char fake[1024];
    write_script("torch.py", "raise ImportError('no torch here')\n", fake, sizeof fake);
    write_script("jax.py", "raise ImportError('no jax here')\n", fake, sizeof fake);
    kb_baseline_process *p = start_with_fakes();
    json_t *info;
    assert_int_equal(kb_baseline_require(p, "numpy", &info), KB_OK);
    assert_true(json_is_string(json_object_get(info, "version")));
    json_decref(info);
    assert_int_equal(kb_baseline_require(p, "torch", &info), KB_EUNSUPPORTED);
    assert_null(info);
    assert_non_null(strstr(kb_last_error(), "PyTorch is not installed"));
    assert_non_null(strstr(kb_last_error(), "scripts/install-deps (or pip install torch)"));
    assert_int_equal(kb_baseline_require(p, "jax", NULL), KB_EUNSUPPORTED);
    assert_non_null(strstr(kb_last_error(), "JAX is not installed"));
    assert_non_null(strstr(kb_last_error(), "scripts/install-deps (or pip install jax)"));
    assert_int_equal(kb_baseline_require(p, "pandas", NULL), KB_EUNSUPPORTED);
    assert_non_null(strstr(kb_last_error(), "unknown baseline library"));
    assert_int_equal(kb_baseline_stop(p), KB_OK);
    test_dir_path(&dir, "torch.py", fake, sizeof fake);
    unlink(fake);
    test_dir_path(&dir, "jax.py", fake, sizeof fake);
    unlink(fake);
}

static kb_baseline_process *start_script(const char *name, const char *text) {
    char path[1024];
    write_script(name, text, path, sizeof path);
    kb_baseline_process *p;
    assert_int_equal(kb_baseline_start(NULL, path, &p), KB_OK);
    return p;
}

/* The runner's OpenMP workers stop spinning soon after a region (baseline_process.c's
 * KB_BASELINE_SPINCOUNT), unless the environment already says how long: the runner sees
 * GOMP_SPINCOUNT=10000, or the value kbench was started with. */
static const char *runner_spincount(char *buf, size_t size) {
    kb_baseline_process *p =
        start_script("spin.py", "import json, os, sys\n"
                                "sys.stdin.readline()\n"
                                "print(json.dumps({'ok': True, 'spin': "
                                "os.environ.get('GOMP_SPINCOUNT')}), flush=True)\n"
                                "sys.stdin.readline()\n");
    json_t *info;
    assert_int_equal(kb_baseline_hello(p, &info), KB_OK);
    const char *spin = json_string_value(json_object_get(info, "spin"));
    snprintf(buf, size, "%s", spin ? spin : "(unset)");
    json_decref(info);
    kb_baseline_stop(p);
    return buf;
}

static void runner_workers_spin_briefly(void **state) {
    char buf[64];
    unsetenv("GOMP_SPINCOUNT");
    assert_string_equal(runner_spincount(buf, sizeof buf), "10000");
    setenv("GOMP_SPINCOUNT", "123", 1);
    assert_string_equal(runner_spincount(buf, sizeof buf), "123");
    unsetenv("GOMP_SPINCOUNT");
}

static void runner_that_dies(void **state) {
    kb_baseline_process *p =
        start_script("dies.py", "import sys\n"
                                "sys.stdin.readline()\n"
                                "sys.stderr.write('Traceback (most recent call last):\\n')\n"
                                "sys.stderr.write('RuntimeError: boom\\n')\n"
                                "sys.exit(3)\n");
    json_t *info;
    assert_int_equal(kb_baseline_hello(p, &info), KB_EIO);
    assert_null(info);
    assert_non_null(strstr(kb_last_error(), "exited with status 3 during hello"));
    assert_non_null(strstr(kb_last_error(), "RuntimeError: boom"));
    assert_non_null(strstr(kb_baseline_stderr(p), "Traceback"));
    /* Every later call fails at once with the same cause. */
    int64_t sample;
    assert_int_equal(kb_baseline_run(p, NULL, 1, 1, &sample), KB_EIO);
    assert_non_null(strstr(kb_last_error(), "RuntimeError: boom"));
    assert_int_equal(kb_baseline_stop(p), KB_EIO);
}

static void runner_that_closes_stdin(void **state) {
    /* Answers one request, closes its stdin, and lingers a moment: the next request's
     * write meets a pipe without a reader, which raises SIGPIPE in this thread. */
    kb_baseline_process *p = start_script("closes.py", "import os, sys, time\n"
                                                       "sys.stdin.readline()\n"
                                                       "os.close(0)\n"
                                                       "print('{\"ok\": true}', flush=True)\n"
                                                       "time.sleep(0.2)\n");
    assert_int_equal(kb_baseline_teardown(p), KB_OK);
    json_t *info;
    assert_int_equal(kb_baseline_hello(p, &info), KB_EIO);
    assert_non_null(strstr(kb_last_error(), "during hello"));
    sigset_t pending, mask;
    sigpending(&pending);
    assert_false(sigismember(&pending, SIGPIPE));
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    assert_false(sigismember(&mask, SIGPIPE));
    kb_baseline_stop(p);
}

static void malformed_replies(void **state) {
    kb_baseline_process *p =
        start_script("garbage.py", "import sys\n"
                                   "for line in sys.stdin:\n"
                                   "    print('this is not json', flush=True)\n");
    json_t *info;
    assert_int_equal(kb_baseline_hello(p, &info), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "malformed reply to hello"));
    assert_non_null(strstr(kb_last_error(), "this is not json"));
    assert_int_equal(kb_baseline_stop(p), KB_EFORMAT);

    p = start_script("no_ok.py", "import sys\n"
                                 "for line in sys.stdin:\n"
                                 "    print('{\"sample_ns\": [1]}', flush=True)\n");
    int64_t samples[3];
    assert_int_equal(kb_baseline_run(p, NULL, 1, 1, samples), KB_EFORMAT);
    kb_baseline_stop(p);

    p = start_script("short.py", "import sys\n"
                                 "for line in sys.stdin:\n"
                                 "    print('{\"ok\": true, \"sample_ns\": [1, 2]}', "
                                 "flush=True)\n");
    assert_int_equal(kb_baseline_run(p, NULL, 1, 3, samples), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "expected 3 samples"));
    kb_baseline_stop(p);

    p = start_script("negative.py", "import sys\n"
                                    "for line in sys.stdin:\n"
                                    "    print('{\"ok\": true, \"sample_ns\": [1, -2, 3]}', "
                                    "flush=True)\n");
    assert_int_equal(kb_baseline_run(p, NULL, 1, 3, samples), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "sample 1"));
    kb_baseline_stop(p);
}

static void chatty_stderr_does_not_block(void **state) {
    /* More than a pipe holds, before the reply: the client must read stderr meanwhile. */
    kb_baseline_process *p =
        start_script("chatty.py", "import sys\n"
                                  "for line in sys.stdin:\n"
                                  "    sys.stderr.write('x' * 300000 + '\\nlast words\\n')\n"
                                  "    sys.stderr.flush()\n"
                                  "    print('{\"ok\": true}', flush=True)\n");
    assert_int_equal(kb_baseline_teardown(p), KB_OK);
    const char *err = kb_baseline_stderr(p);
    assert_true(strlen(err) > 1000);
    assert_string_equal(err + strlen(err) - 11, "last words\n");
    assert_int_equal(kb_baseline_stop(p), KB_OK);
}

static void silent_runner_times_out(void **state) {
    kb_baseline_process *p = start_script("silent.py", "import sys\n"
                                                       "for line in sys.stdin:\n"
                                                       "    pass\n");
    kb_baseline_set_timeout(p, 0.3);
    double t0 = seconds_now();
    json_t *info;
    assert_int_equal(kb_baseline_hello(p, &info), KB_EIO);
    assert_non_null(strstr(kb_last_error(), "did not reply to hello within 0.3 s"));
    assert_true(seconds_now() - t0 < 5);
    kb_baseline_stop(p);
}

static void runner_that_ignores_quit_is_killed(void **state) {
    kb_baseline_process *p = start_script("stays.py", "import sys, time\n"
                                                      "for line in sys.stdin:\n"
                                                      "    print('{\"ok\": true}', flush=True)\n"
                                                      "time.sleep(60)\n");
    /* Running first, however long Python takes to start on a busy machine: the short timeout
     * is for the exit after quit, not for the start (under qemu and a load of 7, the quit's
     * reply once came later than 0.3 s). */
    json_t *info;
    assert_int_equal(kb_baseline_hello(p, &info), KB_OK);
    json_decref(info);
    kb_baseline_set_timeout(p, 0.3);
    double t0 = seconds_now();
    assert_int_equal(kb_baseline_stop(p), KB_EIO);
    assert_non_null(strstr(kb_last_error(), "did not exit after quit"));
    assert_true(seconds_now() - t0 < 5);
}

int main(void) {
    const struct CMUnitTest real_runner[] = {
        cmocka_unit_test(hello_describes_python_and_numpy),
        cmocka_unit_test(runner_workers_spin_briefly),
        cmocka_unit_test(numpy_sums_match_reference),
        cmocka_unit_test(numexpr_sums_match_reference),
        cmocka_unit_test(numpy_and_numexpr_interleave),
        cmocka_unit_test(peer_sums_match_reference),
        cmocka_unit_test(torch_at_two_thread_counts),
        cmocka_unit_test(torch_integer_mean_is_unsupported),
        cmocka_unit_test(unsupported_and_failed_setups_leave_runner_usable),
    };
    const struct CMUnitTest misbehaving[] = {
        cmocka_unit_test(runner_path_from_environment),
        cmocka_unit_test(missing_runner_or_python),
        cmocka_unit_test(missing_numpy_says_how_to_install),
        cmocka_unit_test(missing_peers_say_how_to_install),
        cmocka_unit_test(runner_that_dies),
        cmocka_unit_test(runner_that_closes_stdin),
        cmocka_unit_test(malformed_replies),
        cmocka_unit_test(chatty_stderr_does_not_block),
        cmocka_unit_test(silent_runner_times_out),
        cmocka_unit_test(runner_that_ignores_quit_is_killed),
    };
    int failed = cmocka_run_group_tests_name("real runner", real_runner, start_real_runner,
                                             stop_real_runner);
    failed += cmocka_run_group_tests_name("misbehaving runners", misbehaving, make_temp_dir,
                                          remove_temp_dir);
    return failed;
}
