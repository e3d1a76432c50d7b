/* HTML escaping: every string from a results file goes through here into the report. */
#include "report/html.h"

void kb_html_text(FILE *out, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
            case '&':
                fputs("&amp;", out);
                break;
            case '<':
                fputs("&lt;", out);
                break;
            case '>':
                fputs("&gt;", out);
                break;
            case '"':
                fputs("&quot;", out);
                break;
            case '\'':
                fputs("&#39;", out);
                break;
            default:
                fputc(*s, out);
        }
    }
}

void kb_html_case_row(FILE *out, const char *name) {
    fputs("<tr data-case=\"", out);
    kb_html_text(out, name);
    fputs("\"><td>", out);
    kb_html_text(out, name);
    fputs("</td>", out);
}
