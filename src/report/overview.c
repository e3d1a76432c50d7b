/* The report's run overview: where, when and how the run was made, its warnings, and how many
 * results carry each flag. */
#include <string.h>

#include "kbench/roofline.h"
#include "report/html.h"

static void row(FILE *out, const char *name, const char *value) {
    fprintf(out, "<tr><th>%s</th><td>", name);
    kb_html_text(out, value);
    fputs("</td></tr>\n", out);
}

void kb_report_overview(FILE *out, const kb_results *run, const kb_speedup_report *speedups) {
    const kb_bench_context *c = &run->context;
    char buf[1024];
    fputs("<h3>Overview</h3>\n<table class=\"facts\">\n", out);
    row(out, "date", c->date);
    if (c->command)
        row(out, "command", c->command);
    snprintf(buf, sizeof buf, "%s (%s), %d logical CPUs%s%s, %s", c->machine.cpu_model,
             c->machine.arch, c->machine.logical_cpus, c->machine.hypervisor[0] ? ", under " : "",
             c->machine.hypervisor, c->machine.os);
    row(out, "machine", buf);
    row(out, "host", c->machine.hostname);
    snprintf(buf, sizeof buf, "kbench %s (%s), %s, %s, %s", c->build.version, c->build.git_commit,
             c->build.build_type, c->build.compiler, c->build.c_flags);
    row(out, "build", buf);
    snprintf(buf, sizeof buf, "%s selected; %s", kb_simd_name(c->simd_selected),
             c->instruction_sets);
    row(out, "SIMD", buf);
    snprintf(buf, sizeof buf,
             "min time %g s, %d repetition%s, %s cache, %spinned, %d thread%s in force",
             c->settings.min_time, c->settings.repetitions, c->settings.repetitions == 1 ? "" : "s",
             kb_bench_cache_name(c->settings.cache), c->pinned_cpus[0] ? "" : "not ", c->threads,
             c->threads == 1 ? "" : "s");
    row(out, "settings", buf);
    if (c->has_peaks)
        row(out, "peaks", c->peaks_origin ? c->peaks_origin : "given");
    fputs("</table>\n", out);

    int impossible = 0, high = 0, low = 0, unstable = 0, contended = 0, failed = 0;
    for (int i = 0; i < run->ncases; i++) {
        const kb_bench_result *r = &run->cases[i];
        unsigned f = r->has_roofline ? r->roofline.flags : 0;
        impossible += (f & KB_ROOFLINE_IMPOSSIBLE) != 0;
        high += (f & KB_ROOFLINE_SUSPICIOUS_HIGH) != 0;
        low += (f & KB_ROOFLINE_SUSPICIOUS_LOW) != 0;
        unstable += !r->failed && r->stats.unstable;
        contended += r->contended;
        failed += r->failed;
    }
    int below = 0;
    for (int i = 0; i < speedups->neager; i++)
        below += speedups->eager[i].below_traffic;
    fprintf(out,
            "<ul class=\"flags\"><li><b>%d</b> cases</li><li class=\"%s\"><b>%d</b> "
            "impossible</li><li><b>%d</b> suspicious-high</li><li><b>%d</b> "
            "suspicious-low</li><li><b>%d</b> unstable</li><li><b>%d</b> "
            "contended</li><li class=\"%s\"><b>%d</b> failed</li>",
            run->ncases, impossible ? "bad" : "", impossible, high, low, unstable, contended,
            failed ? "bad" : "", failed);
    if (speedups->neager > 0)
        fprintf(out, "<li class=\"%s\"><b>%d</b> below-traffic</li>", below ? "bad" : "", below);
    fputs("</ul>\n", out);
    if (c->env.count > 0) {
        fputs("<h4>Warnings</h4>\n<ul class=\"warnings\">\n", out);
        for (int i = 0; i < c->env.count; i++) {
            fprintf(out, "<li><b>%s</b>: ", kb_env_code_name(c->env.warnings[i].code));
            kb_html_text(out, c->env.warnings[i].message);
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
    }
}
