/* The progress line of a running benchmark. */
#include <stdio.h>
#include <unistd.h>

#include "kbench/results.h"
#include "app/run_display.h"
#include "util/strings.h"

void kb_run_display_init(kb_run_display *d, const char *program, bool table, bool progress,
                         int name_width) {
    d->program = program;
    d->out = stdout;
    d->err = stderr;
    d->table = table;
    d->progress = progress;
    d->tty = isatty(fileno(stderr)) != 0;
    d->line_open = false;
    d->name_width = name_width;
}

static void clear_line(kb_run_display *d) {
    if (d->line_open) {
        fputs("\r\033[K", d->err);
        fflush(d->err);
        d->line_open = false;
    }
}

/* "42 s", "3:07", "1:02:03" */
static void clock_text(char *buf, size_t size, double s) {
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(buf, size, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
    else
        snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

static void run_started(void *arg, const kb_bench_context *c, int ncases) {
    kb_run_display *d = arg;
    if (d->progress) {
        for (int i = 0; i < c->env.count; i++)
            fprintf(d->err, "%s: warning: %s (%s)\n", d->program, c->env.warnings[i].message,
                    kb_env_code_name(c->env.warnings[i].code));
    } else if (c->env.count > 0) {
        /* -q: the conditions in one line, by code; `kbench info` words each one. */
        fprintf(d->err, "%s: warning: %d condition%s may make timings unreliable:", d->program,
                c->env.count, kb_plural(c->env.count));
        for (int i = 0; i < c->env.count; i++)
            fprintf(d->err, "%s %s", i ? "," : "", kb_env_code_name(c->env.warnings[i].code));
        fprintf(d->err, " (kbench info describes them)\n");
    }
    if (d->progress) {
        char target[32];
        kb_format_duration(target, sizeof target, (double)c->sample_target_ns);
        fprintf(d->err,
                "%s: %d case%s; timer resolution %.0f ns, samples of about %s, %g s per case\n",
                d->program, ncases, kb_plural(ncases), c->timer.resolution_ns, target,
                c->settings.min_time);
    }
    fflush(d->err);
    if (d->table) {
        kb_results_table_header(d->out, d->name_width);
        fflush(d->out);
    }
}

/* "[10-18/40] 3 s elapsed, about 9 s left: GROUP": the results the group adds, of all the run
 * will have; no estimate before a group has finished to make it from. */
static void group_started(void *arg, const kb_bench_progress *p) {
    kb_run_display *d = arg;
    if (!d->progress)
        return;
    char range[32], elapsed[32], left[64] = "";
    if (p->group_size > 1)
        snprintf(range, sizeof range, "%d-%d", p->done + 1, p->done + p->group_size);
    else
        snprintf(range, sizeof range, "%d", p->done + 1);
    clock_text(elapsed, sizeof elapsed, p->elapsed_s);
    if (p->remaining_s >= 0) {
        char estimate[32];
        clock_text(estimate, sizeof estimate, p->remaining_s);
        snprintf(left, sizeof left, ", about %s left", estimate);
    }
    clear_line(d);
    fprintf(d->err, "[%s/%d] %s elapsed%s: %s", range, p->total, elapsed, left, p->current);
    if (d->tty) {
        d->line_open = true;
    } else {
        fputc('\n', d->err);
    }
    fflush(d->err);
}

static void case_finished(void *arg, const kb_bench_result *r, const kb_bench_progress *p) {
    kb_run_display *d = arg;
    if (!d->table)
        return;
    clear_line(d);
    kb_results_table_row(d->out, r, d->name_width);
    fflush(d->out);
}

void kb_run_display_observer(kb_run_display *d, kb_bench_observer *observer) {
    observer->arg = d;
    observer->run_started = run_started;
    observer->group_started = group_started;
    observer->case_finished = case_finished;
}

void kb_run_display_finish(kb_run_display *d) {
    clear_line(d);
}
