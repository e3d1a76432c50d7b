/* `kbench merge`: the shards of one sharded run combined into one results file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "core/internal.h"
#include "util/strings.h"
#include "kbench/bench.h"
#include "kbench/results.h"
#include "kbench/version.h"

static const char *const command = "kbench merge";

/* Whether every case the shard's selection plans is in it: the plan is made again from the
 * shard's suites, filters and shard, as kbench run made it. Only this build's plan is known,
 * so shards from another commit, or from a program's own benchmarks (no suites), are not
 * checked; *checked says so. */
static kb_status check_planned(const kb_results *shard, const char *label, bool *checked) {
    const kb_bench_context *c = &shard->context;
    *checked = false;
    if (c->nsuites == 0 || strcmp(c->build.git_commit, kb_build_info_get()->git_commit) != 0)
        return KB_OK;
    kb_bench_plan *plan;
    kb_status st = kb_bench_plan_new(&plan);
    for (int i = 0; i < c->nsuites && st == KB_OK; i++)
        st = kb_bench_plan_add_suite(plan, c->suites[i]);
    if (st == KB_OK)
        st = kb_bench_plan_filter(plan, (const char *const *)c->filters, c->nfilters);
    if (st == KB_OK && c->shard_count > 1)
        st = kb_bench_plan_shard(plan, c->shard_index, c->shard_count);
    for (int i = 0; st == KB_OK && i < kb_bench_plan_size(plan); i++) {
        const char *name = kb_bench_plan_case_name(plan, i);
        bool found = false;
        for (int k = 0; k < shard->ncases && !found; k++)
            found = strcmp(shard->cases[k].name, name) == 0;
        if (!found)
            st = kb_fail(KB_EINVAL, "%s: case %s of shard %d of %d is missing", label, name,
                         c->shard_index, c->shard_count);
    }
    kb_bench_plan_free(plan);
    *checked = st == KB_OK;
    return st;
}

static int merge(const kb_arg_list *paths, const char *output) {
    int n = paths->count;
    kb_results *shards = calloc((size_t)n, sizeof *shards);
    if (!shards)
        return kb_usage_error(command, "out of memory");
    int status = KB_EXIT_OK, unchecked = 0;
    for (int i = 0; i < n && status == KB_EXIT_OK; i++) {
        bool checked = false;
        if (kb_results_load(paths->items[i], &shards[i]) != KB_OK ||
            check_planned(&shards[i], paths->items[i], &checked) != KB_OK)
            status = kb_report_failure(command);
        unchecked += !checked;
    }
    kb_results merged;
    if (status == KB_EXIT_OK &&
        kb_results_merge(shards, (const char *const *)paths->items, n, &merged) != KB_OK)
        status = kb_report_failure(command);
    if (status == KB_EXIT_OK) {
        if (unchecked > 0)
            fprintf(stderr,
                    "%s: warning: %d shard%s not checked for missing cases: only this build's "
                    "suites are known (kbench %s, %s)\n",
                    command, unchecked, kb_plural(unchecked), kb_build_info_get()->version,
                    kb_build_info_get()->git_commit);
        if (kb_results_save(&merged, KB_RESULTS_JSON, output) != KB_OK)
            status = kb_report_failure(command);
        else
            fprintf(stderr, "%s: %d case%s from %d shard%s into %s\n", command, merged.ncases,
                    kb_plural(merged.ncases), n, kb_plural(n), output);
        kb_results_free(&merged);
    }
    for (int i = 0; i < n; i++)
        kb_results_free(&shards[i]);
    free(shards);
    return status;
}

static kb_status check_output(const char *name, const char *path, void *target) {
    kb_results_format format;
    kb_status st = kb_results_format_of_path(path, &format);
    if (st == KB_OK && format != KB_RESULTS_JSON)
        return kb_option_bad(name, path, "a .json file");
    if (st == KB_OK && strcmp(path, "-") != 0)
        st = kb_atomic_write_possible(path);
    if (st == KB_OK)
        *(const char **)target = path;
    return st;
}

int kb_cmd_merge(int argc, char **argv) {
    const char *output = NULL;
    const kb_option table[] = {
        {KB_OPTION_STRING, 'o', "output", "FILE", &output, check_output,
         .help = "the merged results file (.json); required"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = command,
        .synopsis = "usage: kbench merge SHARD.json... -o ALL.json\n\n"
                    "Combines the results files of the shards of one run (kbench run --shard\n"
                    "K/N, every K from 1 to N once) into one, as if it had not been sharded.\n"
                    "The shards must come from one commit and build, one kind of machine, and\n"
                    "one selection and settings; no case may be in two shards and, for this\n"
                    "build's suites, none may be missing. Each refusal names the shard and the\n"
                    "case.\n\n",
        .options = table,
        .epilogue = "exit status: 0 merged, 1 shards that cannot be read or are not one run\n"
                    "(nothing is written), 2 bad arguments.\n",
    };
    kb_arg_list paths = {0};
    int status;
    if (kb_program_parse(&program, argc, argv, &paths, &status)) {
        if (paths.count == 0)
            status = kb_usage_error(command, "expected the shards' results files");
        else if (!output)
            status = kb_usage_error(command, "expected -o ALL.json");
        else
            status = merge(&paths, output);
    }
    kb_arg_list_free(&paths);
    return status;
}
