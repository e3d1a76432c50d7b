#ifndef KB_BENCH_SHARD_H
#define KB_BENCH_SHARD_H

/* Deals n items with the given costs to count parts, costliest first (ties: the earlier
 * item), each to the part with the least cost so far (ties: the lower part): the "longest
 * processing time first" rule, whose largest part exceeds the mean by at most the largest
 * item. Writes each item's part (0-based) to part. */
void kb_shard_assign(const double *costs, int n, int count, int *part);

#endif
