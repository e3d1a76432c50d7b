/* The report's colours: Okabe and Ito's palette, told apart with every common colour-vision
 * deficiency (docs/report.md), for ops and for verdicts. */
#include <string.h>

#include "report/html.h"
#include "results/internal.h"
#include "util/internal.h"

/* Blue, vermillion, bluish green, orange, reddish purple, sky blue, yellow, black. */
static const char *const palette[KB_PALETTE_SIZE] = {"#0072B2", "#D55E00", "#009E73", "#E69F00",
                                                     "#CC79A7", "#56B4E9", "#F0E442", "#000000"};

const char *kb_palette_colour(int i) {
    return palette[(i % KB_PALETTE_SIZE + KB_PALETTE_SIZE) % KB_PALETTE_SIZE];
}

const char *kb_verdict_colour(kb_verdict verdict) {
    switch (verdict) {
        case KB_VERDICT_REGRESSED:
            return "#D55E00";
        case KB_VERDICT_IMPROVED:
            return "#009E73";
        case KB_VERDICT_NOISY:
            return "#E69F00";
        case KB_VERDICT_NEW:
            return "#0072B2";
        case KB_VERDICT_MISSING:
            return "#CC79A7";
        default:
            return "#777777";
    }
}

void kb_op_colours_make(const kb_results *run, kb_op_colours *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < run->ncases && out->count < KB_REPORT_MAX_OPS; i++) {
        char op[64];
        kb_report_op(&run->cases[i], op, sizeof op);
        bool seen = false;
        for (int k = 0; k < out->count && !seen; k++)
            seen = strcmp(out->ops[k], op) == 0;
        if (!seen)
            kb_copy_string(out->ops[out->count++], sizeof out->ops[0], op);
    }
}

const char *kb_op_colour(const kb_op_colours *colours, const kb_bench_result *r) {
    char op[64];
    kb_report_op(r, op, sizeof op);
    for (int k = 0; k < colours->count; k++)
        if (strcmp(colours->ops[k], op) == 0)
            return kb_palette_colour(k);
    return "#777777";
}
