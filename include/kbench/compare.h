#ifndef KBENCH_COMPARE_H
#define KBENCH_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kbench/bench.h"
#include "kbench/error.h"
#include "kbench/results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Two runs side by side: `kbench compare BASE NEW`, as a library. Cases are matched by name
 * (which holds every parameter); each matched pair gets the ratio of its medians with a
 * bootstrap confidence interval, a Mann-Whitney p-value on the raw times per call, and a
 * verdict. docs/compare.md explains the rule and how its defaults were measured. */

/* A change counts when the ratio of medians is beyond 1 + threshold (or below 1 / (1 +
 * threshold)) and the test says it is significant at alpha. Both from A/A runs on the
 * development machine: docs/compare.md. */
#define KB_COMPARE_DEFAULT_THRESHOLD 0.05
#define KB_COMPARE_DEFAULT_ALPHA 0.01
#define KB_COMPARE_LEVEL 0.95

typedef enum kb_verdict {
    KB_VERDICT_REGRESSED, /* slower beyond the threshold, significantly */
    KB_VERDICT_IMPROVED,  /* faster beyond the threshold, significantly */
    KB_VERDICT_NOISY,     /* beyond the threshold, not significant */
    KB_VERDICT_UNCHANGED, /* within the threshold */
    KB_VERDICT_NEW,       /* only in NEW */
    KB_VERDICT_MISSING,   /* only in BASE */
    KB_VERDICT_FAILED,    /* failed on either side */
    KB_VERDICT_COUNT
} kb_verdict;

/* "regressed", "improved", ...; "?" for an invalid value. */
const char *kb_verdict_name(kb_verdict verdict);

/* How significance was decided for a case. */
typedef enum kb_compare_test {
    KB_COMPARE_TEST_NONE,         /* no pair to test (new, missing, failed) */
    KB_COMPARE_TEST_MANN_WHITNEY, /* p < alpha */
    /* A side has so few samples that the smallest p-value the test can give exceeds alpha:
     * significant when the 95% confidence intervals of the two medians do not overlap. */
    KB_COMPARE_TEST_CI_OVERLAP,
} kb_compare_test;

/* "none", "mann-whitney", "ci-overlap". */
const char *kb_compare_test_name(kb_compare_test test);

typedef struct kb_compare_options {
    double threshold; /* > 0; KB_COMPARE_DEFAULT_THRESHOLD */
    double alpha;     /* in (0, 1); KB_COMPARE_DEFAULT_ALPHA */
    /* Case names to keep, as `kbench run --filter` (regular expressions, '-' excludes). */
    const char *const *filters;
    int nfilters;
    /* Compare files from different machines or builds (otherwise KB_EINVAL). */
    bool allow_different_machines;
} kb_compare_options;

void kb_compare_options_default(kb_compare_options *options);

/* One side of a case: times per call in nanoseconds. */
typedef struct kb_compare_side {
    int64_t n;
    double median, ci_low, ci_high; /* the median and its 95% order-statistic interval */
} kb_compare_side;

typedef struct kb_compare_case {
    char *name;
    char *op; /* the "op" parameter, else the first part of the name */
    kb_verdict verdict;
    bool in_base, in_new;
    kb_compare_side base, head; /* head: the NEW side; n == 0 when absent or failed */
    /* NEW / BASE time ratio (above 1: slower), its 95% bootstrap interval; 0 without a pair. */
    double ratio, ratio_low, ratio_high;
    kb_compare_test test;
    double p;     /* Mann-Whitney two-sided p-value (also computed under CI_OVERLAP); NaN
                     without a pair */
    double p_min; /* the smallest p-value possible at these sample counts */
    char *error;  /* why it failed ("base: ...", "new: ..."); NULL otherwise */
} kb_compare_case;

/* Geometric mean of the ratios of a set of paired cases. */
typedef struct kb_compare_mean {
    char *op; /* NULL for the overall mean */
    int ncases;
    double geomean;
    int counts[KB_VERDICT_COUNT];
} kb_compare_mean;

/* A difference between the two files' machines or builds. */
typedef struct kb_compare_difference {
    char what[32]; /* "CPU model", "compiler", ... */
    char base[128], head[128];
    bool build; /* a build setting rather than the machine */
} kb_compare_difference;

#define KB_COMPARE_MAX_DIFFERENCES 16

/* A side whose results file records the `load` environment warning: other work competed for
 * the machine, so its timings shift between runs and a regression may be a false alarm. The
 * `bandwidth_changed` warning (the run's bandwidth probes before and after its cases
 * disagree: the machine changed under it) is treated alike. */
typedef struct kb_compare_load {
    bool under_load;
    double load_average; /* 1-minute; NaN when the file does not record it (older files) */
    int cores;           /* usable cores; 0 when the file does not record them */
    char message[192];   /* the warning's message, as recorded */
    bool bandwidth_changed;
    char bandwidth_message[192]; /* that warning's message, as recorded */
} kb_compare_load;

typedef struct kb_comparison {
    double threshold, alpha;
    int nfilters;
    char **filters;
    char *base_label, *head_label; /* the paths, or labels given */
    char format[24];               /* "kbench" or "google-benchmark" */
    int ndifferences;              /* allowed only with allow_different_machines */
    kb_compare_difference differences[KB_COMPARE_MAX_DIFFERENCES];
    kb_compare_load base_load, head_load; /* kbench files only: Google Benchmark has no warning */
    int ncases;                           /* BASE's order, then the cases only in NEW */
    kb_compare_case *cases;
    int counts[KB_VERDICT_COUNT];
    kb_compare_mean overall;
    int nops; /* per op, the largest effect (|log geomean|) first */
    kb_compare_mean *ops;
} kb_comparison;

/* Reads two files, each a kbench results file or Google Benchmark JSON output (both of one
 * kind), and compares them. KB_EIO when a file cannot be read; KB_EFORMAT naming the file and
 * the field when one is neither; KB_EINVAL for bad options, a filter that does not compile or
 * selects nothing, files of different kinds, or files from different machines or builds
 * without allow_different_machines. */
kb_status kb_compare_files(const char *base_path, const char *new_path,
                           const kb_compare_options *options, kb_comparison *out);

/* The A/B of one run (kbench run --baseline kbench=PATH): each case of the other build, the
 * base, against this build's simd=auto case at the same thread count, the new side, with the
 * same statistics and verdicts. KB_EINVAL when the file holds no such pair. */
kb_status kb_compare_ab(const char *path, const kb_compare_options *options, kb_comparison *out);

/* The same for results in memory; labels name them in messages and output. */
kb_status kb_compare_results(const kb_results *base, const char *base_label, const kb_results *head,
                             const char *head_label, const kb_compare_options *options,
                             kb_comparison *out);

void kb_comparison_free(kb_comparison *comparison);

/* True when some case regressed. */
bool kb_comparison_regressed(const kb_comparison *comparison);

/* For a side measured under load (head: NEW, else BASE), the sentence that says so: "LABEL was
 * measured under load (1-minute load average X on N cores): timings shift between runs and
 * regressions may be false alarms"; for a side whose bandwidth changed, "LABEL's memory
 * bandwidth changed during the run (MESSAGE): ..." (both, joined with "and", when both). False,
 * and buf empty, for a side that was neither, and for NEW when its note would repeat BASE's
 * word for word (a file compared with itself). */
bool kb_comparison_load_note(const kb_comparison *comparison, bool head, char *buf, size_t size);

/* Writes the comparison as a terminal table (colour: ANSI colours for verdicts), markdown for
 * a pull-request comment, or JSON (docs/compare.md); KB_EUNSUPPORTED for CSV. */
kb_status kb_comparison_print(const kb_comparison *comparison, kb_results_format format,
                              bool colour, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
