/* The built-in suites by name, and the `quick` selection of them. */
#include <string.h>

#include "bench/plan.h"
#include "bench/suites.h"
#include "core/internal.h"

static kb_status add_quick(kb_bench_plan *plan, const char *suite) {
    return kb_suite_reduce_add(plan, suite, 1);
}

static kb_status add_reduce(kb_bench_plan *plan, const char *suite) {
    return kb_suite_reduce_add(plan, suite, 0);
}

static const struct suite {
    const char *name;
    const char *summary;
    kb_status (*add)(kb_bench_plan *plan, const char *suite);
} suites[] = {
    {"quick", "a quick selection of the reduce suite (the default; a minute or two)", add_quick},
    {"reduce", "every reduction x shape x dtype x axis x SIMD level x thread count", add_reduce},
    {"mean_axis0", "mean along axis 0: square, tall, wide; f32, f64, int32, f16",
     kb_suite_mean_axis0_add},
    {"expr", "fused expressions and eager twins: softmax, GELU, ...; f32, f64", kb_suite_expr_add},
    {"ew", "single elementwise ops (add, exp, ...) into an output; f32, f64", kb_suite_ew_add},
    {"selftest", "the harness itself: an empty loop body and an empty function call",
     kb_suite_selftest_add},
    /* For kbench's own tests (tests/cli/test_run.py runs them to check how failures are
     * reported and that the roofline flags a kernel that does half its work): selected by
     * name like the others, but left out of the names, and so of `kbench run --help` and the
     * message for an unknown suite, which are for users. */
    {"failing", "cases that fail on purpose, to check how failures are reported",
     kb_suite_failing_add},
    {"plausibility", "a sum that claims twice the bytes it reads, which must be flagged",
     kb_suite_plausibility_add},
};

enum { nsuites = sizeof suites / sizeof suites[0] };

/* The table's names again but the last, as the NULL-terminated list callers iterate over. */
static const char *const names[] = {"quick", "reduce",   "mean_axis0", "expr",
                                    "ew",    "selftest", NULL};
_Static_assert(sizeof names / sizeof names[0] == nsuites - 1, "one name per suite for users");

const char *const *kb_bench_suite_names(void) {
    return names;
}

const char *kb_bench_suite_summary(const char *suite) {
    for (int i = 0; i < nsuites; i++)
        if (strcmp(suites[i].name, suite) == 0)
            return suites[i].summary;
    return NULL;
}

kb_status kb_bench_plan_add_suite(kb_bench_plan *plan, const char *suite) {
    for (int i = 0; i < plan->nsuites; i++)
        if (strcmp(plan->suites[i], suite) == 0)
            return KB_OK;
    for (int i = 0; i < nsuites; i++)
        if (strcmp(suites[i].name, suite) == 0)
            return suites[i].add(plan, suite);
    return kb_fail(KB_EINVAL,
                   "unknown suite '%s' (expected quick, reduce, mean_axis0, expr, ew or selftest)",
                   suite);
}
