/* Plans: how definitions expand into named cases with their parameters and groups, how --filter
 * selects, and that --shard partitions a plan exactly, keeps groups whole and balances cost. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/shard.h"
#include "kbench/bench.h"
#include "kbench/threads.h"

static void nothing(kb_bench_case *c, int64_t calls) {}

static const char *const sizes[] = {"10", "20", NULL};
static const char *const dtypes[] = {"f32", "f64", NULL};
static const char *const impls[] = {"naive", "fast", NULL};

/* The implementation axis comes first in the names on purpose: groups must still be
 * adjacent in the plan. */
static const kb_bench_axis axes[] = {
    {"impl", impls, KB_BENCH_AXIS_IMPLEMENTATION},
    {"dtype", dtypes, KB_BENCH_AXIS_BARE},
    {"n", sizes, 0},
    {NULL, NULL, 0},
};

static kb_bench_plan *plan_of(const kb_bench_def *def) {
    kb_bench_plan *p;
    assert_int_equal(kb_bench_plan_new(&p), KB_OK);
    assert_int_equal(kb_bench_plan_add(p, def), KB_OK);
    return p;
}

static void names_and_groups(void **state) {
    kb_bench_def def = {.name = "lib/op", .axes = axes, .run = nothing};
    kb_bench_plan *p = plan_of(&def);
    assert_int_equal(kb_bench_plan_size(p), 8);
    static const char *const expected[] = {
        "lib/op/impl=naive/f32/n=10", "lib/op/impl=fast/f32/n=10",  "lib/op/impl=naive/f32/n=20",
        "lib/op/impl=fast/f32/n=20",  "lib/op/impl=naive/f64/n=10", "lib/op/impl=fast/f64/n=10",
        "lib/op/impl=naive/f64/n=20", "lib/op/impl=fast/f64/n=20",
    };
    for (int i = 0; i < 8; i++) {
        assert_string_equal(kb_bench_plan_case_name(p, i), expected[i]);
        assert_true(kb_bench_plan_case_cost(p, i) == 1);
    }
    assert_string_equal(kb_bench_plan_case_group(p, 0), "lib/op/f32/n=10");
    assert_string_equal(kb_bench_plan_case_group(p, 1), "lib/op/f32/n=10");
    assert_string_equal(kb_bench_plan_case_group(p, 7), "lib/op/f64/n=20");
    /* The parameters in the order of the name, bare ones with their axis's name. */
    static const struct {
        const char *name, *value;
        bool implementation;
    } params[] = {{"impl", "fast", true}, {"dtype", "f32", false}, {"n", "10", false}};
    assert_int_equal(kb_bench_plan_case_nparams(p, 1), 3);
    const char *name = NULL, *value = NULL;
    bool implementation = false;
    for (int j = 0; j < 3; j++) {
        assert_true(kb_bench_plan_case_param(p, 1, j, &name, &value, &implementation));
        assert_string_equal(name, params[j].name);
        assert_string_equal(value, params[j].value);
        assert_int_equal(implementation, params[j].implementation);
    }
    assert_false(kb_bench_plan_case_param(p, 1, 3, &name, &value, &implementation));
    assert_false(kb_bench_plan_case_param(p, 1, -1, &name, &value, &implementation));
    assert_false(kb_bench_plan_case_param(p, 8, 0, &name, &value, &implementation));
    assert_int_equal(kb_bench_plan_case_nparams(p, 8), 0);
    assert_string_equal(name, "n"); /* untouched by the calls out of range */
    kb_bench_plan_free(p);
}

static void harness_axes_expand(void **state) {
    static const char *const simd[] = {"all", NULL};
    static const char *const threads[] = {"1", "all", NULL};
    static const kb_bench_axis ax[] = {{"simd", simd, 0}, {"threads", threads, 0}, {NULL, NULL, 0}};
    kb_bench_def def = {.name = "x", .axes = ax, .run = nothing};
    kb_bench_plan *p = plan_of(&def);
    int levels = 2; /* scalar and auto */
    for (int l = 1; l < KB_SIMD_LEVEL_COUNT; l++)
        levels += kb_simd_available((kb_simd_level)l);
    int cores = kb_usable_cores();
    assert_int_equal(kb_bench_plan_size(p), levels * (cores > 1 ? 2 : 1));
    assert_string_equal(kb_bench_plan_case_name(p, 0), "x/simd=scalar/threads=1");
    char last[64];
    snprintf(last, sizeof last, "x/simd=auto/threads=%d", cores);
    assert_string_equal(kb_bench_plan_case_name(p, kb_bench_plan_size(p) - 1), last);
    /* simd and threads are implementation axes: one group. */
    for (int i = 0; i < kb_bench_plan_size(p); i++) {
        assert_string_equal(kb_bench_plan_case_group(p, i), "x");
        const char *name, *value;
        bool implementation;
        for (int j = 0; j < 2; j++) {
            assert_true(kb_bench_plan_case_param(p, i, j, &name, &value, &implementation));
            assert_true(implementation);
        }
    }
    kb_bench_plan_free(p);

    /* A level this machine cannot run is left out, not failed. */
    static const char *const foreign[] = {"scalar", "neon", "avx2", NULL};
    static const kb_bench_axis ax2[] = {{"simd", foreign, 0}, {NULL, NULL, 0}};
    kb_bench_def def2 = {.name = "y", .axes = ax2, .run = nothing};
    p = plan_of(&def2);
    assert_int_equal(kb_bench_plan_size(p),
                     1 + kb_simd_available(KB_SIMD_NEON) + kb_simd_available(KB_SIMD_AVX2));
    kb_bench_plan_free(p);
}

static void rejects_bad_definitions(void **state) {
    kb_bench_plan *p;
    assert_int_equal(kb_bench_plan_new(&p), KB_OK);
    kb_bench_def no_run = {.name = "a"};
    assert_int_equal(kb_bench_plan_add(p, &no_run), KB_EINVAL);
    kb_bench_def spaced = {.name = "a b", .run = nothing};
    assert_int_equal(kb_bench_plan_add(p, &spaced), KB_EINVAL);
    static const char *const slash[] = {"a/b", NULL};
    static const kb_bench_axis bad_value[] = {{"v", slash, 0}, {NULL, NULL, 0}};
    kb_bench_def d1 = {.name = "a", .axes = bad_value, .run = nothing};
    assert_int_equal(kb_bench_plan_add(p, &d1), KB_EINVAL);
    static const kb_bench_axis bad_name[] = {{"v-w", sizes, 0}, {NULL, NULL, 0}};
    kb_bench_def d2 = {.name = "a", .axes = bad_name, .run = nothing};
    assert_int_equal(kb_bench_plan_add(p, &d2), KB_EINVAL);
    static const char *const threads[] = {"two", NULL};
    static const kb_bench_axis bad_threads[] = {{"threads", threads, 0}, {NULL, NULL, 0}};
    kb_bench_def d3 = {.name = "a", .axes = bad_threads, .run = nothing};
    assert_int_equal(kb_bench_plan_add(p, &d3), KB_EINVAL);
    assert_int_equal(kb_bench_plan_size(p), 0);
    /* The same case twice: refused, and the plan is left as it was. */
    kb_bench_def ok = {.name = "a", .run = nothing};
    assert_int_equal(kb_bench_plan_add(p, &ok), KB_OK);
    assert_int_equal(kb_bench_plan_add(p, &ok), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "two cases are named 'a'"));
    assert_int_equal(kb_bench_plan_size(p), 1);
    assert_int_equal(kb_bench_plan_add_suite(p, "nope"), KB_EINVAL);
    kb_bench_plan_free(p);
}

static int filtered(const char *const *patterns, int n, const char **first) {
    kb_bench_def def = {.name = "lib/op", .axes = axes, .run = nothing};
    kb_bench_plan *p = plan_of(&def);
    assert_int_equal(kb_bench_plan_filter(p, patterns, n), KB_OK);
    int size = kb_bench_plan_size(p);
    static char name[64];
    snprintf(name, sizeof name, "%s", size ? kb_bench_plan_case_name(p, 0) : "");
    *first = name;
    kb_bench_plan_free(p);
    return size;
}

static void filter_semantics(void **state) {
    const char *first;
    const char *none[] = {NULL};
    assert_int_equal(filtered(none, 0, &first), 8);
    const char *f32[] = {"/f32/"};
    assert_int_equal(filtered(f32, 1, &first), 4);
    const char *anchored[] = {"^lib/op/impl=fast/f64/n=20$"};
    assert_int_equal(filtered(anchored, 1, &first), 1);
    assert_string_equal(first, "lib/op/impl=fast/f64/n=20");
    /* Includes add up; excludes take away from what they leave. */
    const char *union_of[] = {"n=10", "f64"};
    assert_int_equal(filtered(union_of, 2, &first), 6);
    const char *exclude_only[] = {"-naive"};
    assert_int_equal(filtered(exclude_only, 1, &first), 4);
    assert_string_equal(first, "lib/op/impl=fast/f32/n=10");
    const char *both[] = {"f32", "-n=20", "-naive"};
    assert_int_equal(filtered(both, 3, &first), 1);
    assert_string_equal(first, "lib/op/impl=fast/f32/n=10");
    const char *nothing_left[] = {"-."};
    assert_int_equal(filtered(nothing_left, 1, &first), 0);
    const char *extended[] = {"f(32|64)/n=(10|20)$"};
    assert_int_equal(filtered(extended, 1, &first), 8);

    kb_bench_def def = {.name = "lib/op", .axes = axes, .run = nothing};
    kb_bench_plan *p = plan_of(&def);
    const char *bad[] = {"n=(10"};
    assert_int_equal(kb_bench_plan_filter(p, bad, 1), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "bad filter 'n=(10'"));
    assert_int_equal(kb_bench_plan_size(p), 8);
    kb_bench_plan_free(p);
}

static void assign_by_hand(void **state) {
    /* Costliest first to the lightest part: 5->0, 4->1, 3->2, 3->2, 2->1, 2->0, then 1 to
     * part 1, the lower of the two parts at 6. */
    double costs[] = {5, 4, 3, 3, 2, 2, 1};
    int part[7], expected[] = {0, 1, 2, 2, 1, 0, 1};
    kb_shard_assign(costs, 7, 3, part);
    for (int i = 0; i < 7; i++)
        assert_int_equal(part[i], expected[i]);
}

/* Every case of the reduce suite in exactly one of N shards, groups whole, costs balanced
 * within the largest group's cost. */
static void shards_partition_reduce(void **state) {
    kb_bench_plan *full;
    assert_int_equal(kb_bench_plan_new(&full), KB_OK);
    assert_int_equal(kb_bench_plan_add_suite(full, "reduce"), KB_OK);
    int n = kb_bench_plan_size(full);
    assert_true(n > 1000);
    double total = 0, largest_group = 0, group = 0;
    for (int i = 0; i < n; i++) {
        total += kb_bench_plan_case_cost(full, i);
        if (i > 0 &&
            strcmp(kb_bench_plan_case_group(full, i), kb_bench_plan_case_group(full, i - 1)))
            group = 0;
        group += kb_bench_plan_case_cost(full, i);
        if (group > largest_group)
            largest_group = group;
    }
    int *seen = calloc((size_t)n, sizeof *seen);
    static const int counts[] = {1, 3, 9};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int count = counts[c];
        memset(seen, 0, (size_t)n * sizeof *seen);
        for (int k = 1; k <= count; k++) {
            kb_bench_plan *p;
            assert_int_equal(kb_bench_plan_new(&p), KB_OK);
            assert_int_equal(kb_bench_plan_add_suite(p, "reduce"), KB_OK);
            assert_int_equal(kb_bench_plan_shard(p, k, count), KB_OK);
            double cost = 0;
            int j = 0; /* the shard keeps the plan's order: walk both together */
            for (int i = 0; i < kb_bench_plan_size(p); i++) {
                const char *name = kb_bench_plan_case_name(p, i);
                while (j < n && strcmp(kb_bench_plan_case_name(full, j), name) != 0)
                    j++;
                assert_true(j < n);
                seen[j]++;
                cost += kb_bench_plan_case_cost(p, i);
            }
            assert_true(cost <= total / count + largest_group + 1e-9);
            kb_bench_plan_free(p);
        }
        for (int i = 0; i < n; i++)
            assert_int_equal(seen[i], 1);
        /* Groups whole: a case and its group's neighbours always share a shard, which the
         * in-order walk above would break otherwise; check it directly for one count. */
    }
    for (int k = 1; k <= 3; k++) {
        kb_bench_plan *p;
        assert_int_equal(kb_bench_plan_new(&p), KB_OK);
        assert_int_equal(kb_bench_plan_add_suite(p, "reduce"), KB_OK);
        assert_int_equal(kb_bench_plan_shard(p, k, 3), KB_OK);
        for (int i = 0; i < kb_bench_plan_size(p); i++) {
            int members_here = 0, members_all = 0;
            const char *g = kb_bench_plan_case_group(p, i);
            for (int q = 0; q < kb_bench_plan_size(p); q++)
                members_here += strcmp(kb_bench_plan_case_group(p, q), g) == 0;
            for (int q = 0; q < n; q++)
                members_all += strcmp(kb_bench_plan_case_group(full, q), g) == 0;
            assert_int_equal(members_here, members_all);
            i += members_here - 1;
        }
        kb_bench_plan_free(p);
    }
    free(seen);
    kb_bench_plan_free(full);

    kb_bench_plan *p;
    assert_int_equal(kb_bench_plan_new(&p), KB_OK);
    assert_int_equal(kb_bench_plan_shard(p, 3, 2), KB_EINVAL);
    assert_int_equal(kb_bench_plan_shard(p, 0, 2), KB_EINVAL);
    kb_bench_plan_free(p);
}

static void reduce_suite_names(void **state) {
    kb_bench_plan *p;
    assert_int_equal(kb_bench_plan_new(&p), KB_OK);
    assert_int_equal(kb_bench_plan_add_suite(p, "reduce"), KB_OK);
    const char *want = "reduce/mean/f32/4096x4096/axis=0/simd=scalar/threads=1";
    bool found = false;
    for (int i = 0; i < kb_bench_plan_size(p) && !found; i++)
        found = strcmp(kb_bench_plan_case_name(p, i), want) == 0;
    assert_true(found);
    /* The quick selection is a subset, with the same names. */
    kb_bench_plan *q;
    assert_int_equal(kb_bench_plan_new(&q), KB_OK);
    assert_int_equal(kb_bench_plan_add_suite(q, "quick"), KB_OK);
    assert_true(kb_bench_plan_size(q) < kb_bench_plan_size(p) / 3);
    for (int i = 0; i < kb_bench_plan_size(q); i++) {
        bool in_reduce = false;
        for (int j = 0; j < kb_bench_plan_size(p) && !in_reduce; j++)
            in_reduce = strcmp(kb_bench_plan_case_name(p, j), kb_bench_plan_case_name(q, i)) == 0;
        assert_true(in_reduce);
    }
    kb_bench_plan_free(q);
    kb_bench_plan_free(p);
}

/* mean_axis0: mean along axis 0 of nine shapes in four dtypes, at scalar, the best level and
 * auto, at one thread and all cores; named as the reduce suite names the same case. */
static void mean_axis0_suite(void **state) {
    kb_bench_plan *p;
    assert_int_equal(kb_bench_plan_new(&p), KB_OK);
    assert_int_equal(kb_bench_plan_add_suite(p, "mean_axis0"), KB_OK);
    int levels = kb_simd_best() == KB_SIMD_SCALAR ? 2 : 3;
    int threads = kb_usable_cores() > 1 ? 2 : 1;
    assert_int_equal(kb_bench_plan_size(p), 4 * 9 * levels * threads);
    for (int i = 0; i < kb_bench_plan_size(p); i++) {
        const char *name = kb_bench_plan_case_name(p, i);
        assert_true(strncmp(name, "reduce/mean/", 12) == 0 && strstr(name, "/axis=0/"));
    }
    const char *want[] = {"reduce/mean/int32/4096x4096/axis=0/simd=auto/threads=1",
                          "reduce/mean/f16/4x1000000/axis=0/simd=scalar/threads=1",
                          "reduce/mean/f64/8192x1024/axis=0/simd=auto/threads=1"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        bool found = false;
        for (int i = 0; i < kb_bench_plan_size(p) && !found; i++)
            found = strcmp(kb_bench_plan_case_name(p, i), want[w]) == 0;
        if (!found)
            fail_msg("mean_axis0 lacks %s", want[w]);
    }
    kb_bench_plan_free(p);
}

/* Names of a plan's cases, each once; and whether every group's cases are adjacent. */
static int count_distinct(const kb_bench_plan *p, bool *groups_adjacent) {
    int distinct = 0;
    *groups_adjacent = true;
    for (int i = 0; i < kb_bench_plan_size(p); i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(kb_bench_plan_case_name(p, i), kb_bench_plan_case_name(p, j)) == 0;
        distinct += !seen;
        const char *g = kb_bench_plan_case_group(p, i);
        for (int j = 0; j + 1 < i; j++)
            if (strcmp(kb_bench_plan_case_group(p, j), g) == 0 &&
                strcmp(kb_bench_plan_case_group(p, i - 1), g) != 0)
                *groups_adjacent = false;
    }
    return distinct;
}

/* A case two suites both select is one case, in either order (issue 12, bug 4): quick and
 * mean_axis0 share float32 and float64 means along axis 0 of 1024x1024 and 4096x4096. */
static void suites_share_cases(void **state) {
    kb_bench_plan *q, *m;
    assert_int_equal(kb_bench_plan_new(&q), KB_OK);
    assert_int_equal(kb_bench_plan_add_suite(q, "quick"), KB_OK);
    assert_int_equal(kb_bench_plan_new(&m), KB_OK);
    assert_int_equal(kb_bench_plan_add_suite(m, "mean_axis0"), KB_OK);
    int shared = 0;
    for (int i = 0; i < kb_bench_plan_size(m); i++)
        for (int j = 0; j < kb_bench_plan_size(q); j++)
            shared += strcmp(kb_bench_plan_case_name(m, i), kb_bench_plan_case_name(q, j)) == 0;
    assert_true(shared > 0);
    static const char *const orders[2][2] = {{"quick", "mean_axis0"}, {"mean_axis0", "quick"}};
    for (int o = 0; o < 2; o++) {
        kb_bench_plan *p;
        assert_int_equal(kb_bench_plan_new(&p), KB_OK);
        assert_int_equal(kb_bench_plan_add_suite(p, orders[o][0]), KB_OK);
        assert_int_equal(kb_bench_plan_add_suite(p, orders[o][1]), KB_OK);
        int want = kb_bench_plan_size(q) + kb_bench_plan_size(m) - shared;
        assert_int_equal(kb_bench_plan_size(p), want);
        bool adjacent;
        assert_int_equal(count_distinct(p, &adjacent), want);
        assert_true(adjacent);
        kb_bench_plan_free(p);
    }
    kb_bench_plan_free(q);
    kb_bench_plan_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_and_groups),        cmocka_unit_test(harness_axes_expand),
        cmocka_unit_test(rejects_bad_definitions), cmocka_unit_test(filter_semantics),
        cmocka_unit_test(assign_by_hand),          cmocka_unit_test(shards_partition_reduce),
        cmocka_unit_test(reduce_suite_names),      cmocka_unit_test(mean_axis0_suite),
        cmocka_unit_test(suites_share_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
