/* Sharding: splits a plan's cases into N parts of similar cost for parallel CI runners. */
#include <stdlib.h>

#include "bench/plan.h"
#include "bench/shard.h"
#include "core/internal.h"

typedef struct item {
    double cost;
    int index;
} item;

static int costliest_first(const void *a, const void *b) {
    const item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return (x->index > y->index) - (x->index < y->index);
}

void kb_shard_assign(const double *costs, int n, int count, int *part) {
    item *items = malloc((size_t)n * sizeof *items);
    double *load = calloc((size_t)count, sizeof *load);
    if (!items || !load) {
        /* Still a partition, only not balanced: round robin. */
        for (int i = 0; i < n; i++)
            part[i] = i % count;
        free(items);
        free(load);
        return;
    }
    for (int i = 0; i < n; i++)
        items[i] = (item){costs[i], i};
    qsort(items, (size_t)n, sizeof *items, costliest_first);
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int p = 1; p < count; p++)
            if (load[p] < load[best])
                best = p;
        part[items[i].index] = best;
        load[best] += items[i].cost;
    }
    free(items);
    free(load);
}

kb_status kb_bench_plan_shard(kb_bench_plan *plan, int index, int count) {
    if (count < 1 || index < 1 || index > count)
        return kb_fail(KB_EINVAL, "shard %d/%d: expected K/N with 1 <= K <= N", index, count);
    /* Groups stay whole, so that their implementations are still interleaved. */
    int ngroups = 0;
    for (int i = 0; i < plan->count; i = kb_plan_group_end(plan, i))
        ngroups++;
    double *costs = malloc((size_t)(ngroups ? ngroups : 1) * sizeof *costs);
    int *part = malloc((size_t)(ngroups ? ngroups : 1) * sizeof *part);
    if (!costs || !part) {
        free(costs);
        free(part);
        return kb_fail(KB_ENOMEM, "out of memory");
    }
    int g = 0;
    for (int i = 0; i < plan->count; g++) {
        int end = kb_plan_group_end(plan, i);
        costs[g] = 0;
        for (; i < end; i++)
            costs[g] += plan->cases[i].cost;
    }
    kb_shard_assign(costs, ngroups, count, part);
    int kept = 0;
    g = 0;
    for (int i = 0; i < plan->count; g++) {
        int end = kb_plan_group_end(plan, i);
        for (; i < end; i++) {
            if (part[g] == index - 1)
                plan->cases[kept++] = plan->cases[i];
            else
                kb_plan_spec_free(&plan->cases[i]);
        }
    }
    plan->count = kept;
    plan->shard_index = index;
    plan->shard_count = count;
    free(costs);
    free(part);
    return KB_OK;
}
