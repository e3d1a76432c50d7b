#ifndef KB_BENCH_PLAN_H
#define KB_BENCH_PLAN_H

#include <stdbool.h>

#include "kbench/bench.h"

/* One planned case: its name, parameters and cost, and the definition's callbacks. */
typedef struct kb_bench_spec {
    char *name;
    char *group;
    int nparams;
    char *param_names[KB_BENCH_MAX_PARAMS];
    char *param_values[KB_BENCH_MAX_PARAMS];
    bool param_impl[KB_BENCH_MAX_PARAMS];
    double cost;
    /* From the definition; its name and axes pointers are not kept. */
    kb_status (*setup)(kb_bench_case *c);
    void (*run)(kb_bench_case *c, int64_t calls);
    void (*teardown)(kb_bench_case *c);
    kb_status (*baseline_case)(const kb_bench_case *group, kb_bench_baseline_case *out);
    void (*counts)(kb_bench_case *c);
    double bytes_per_call, flops_per_call;
    kb_bw_kernel traffic;
    kb_flop_type flop_type;
    void *user;
} kb_bench_spec;

/* The cases of a group are adjacent, in the order their definition produced them: the
 * runner and --shard both take groups as runs of equal group names. */
struct kb_bench_plan {
    int count, capacity;
    kb_bench_spec *cases;
    int nsuites;
    char **suites;
    int nfilters;
    char **filters;
    int shard_index, shard_count;
};

/* Adds one case whose parameters are given explicitly (flags per parameter: BARE and
 * IMPLEMENTATION); the definition supplies the name prefix and the callbacks. cost <= 0
 * takes the definition's cost callback, or 1. */
kb_status kb_plan_add_case(kb_bench_plan *plan, const kb_bench_def *def, int nparams,
                           const char *const *names, const char *const *values,
                           const unsigned *flags, double cost);

/* kb_bench_plan_add without recording the definition's name as a suite, for the built-in
 * suites made of definitions. */
kb_status kb_plan_add_def(kb_bench_plan *plan, const kb_bench_def *def);

/* Records the name of a suite or definition the plan draws on (for the results' context). */
kb_status kb_plan_note_suite(kb_bench_plan *plan, const char *name);

/* Ends the adding of a built-in suite's cases (from index before on) with the checks
 * kb_bench_plan_add makes: unique names, adjacent groups. On failure, or when st is already
 * a failure, the suite's cases are removed again. */
kb_status kb_plan_finish_suite(kb_bench_plan *plan, int before, const char *suite, kb_status st);

/* Frees the strings of one spec. */
void kb_plan_spec_free(kb_bench_spec *spec);

/* Index one past the last case of the group that starts at i. */
int kb_plan_group_end(const kb_bench_plan *plan, int i);

#endif
