/* CSV fields as every CSV kbench writes them (RFC 4180). */
#include <string.h>

#include "util/csv_field.h"

void kb_csv_field(FILE *out, const char *s, bool last) {
    if (strpbrk(s, ",\"\r\n")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
    fputc(last ? '\n' : ',', out);
}
