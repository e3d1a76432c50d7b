/* A trace file's bytes: mapped read-only when it is a regular file, so that a trace of
 * hundreds of megabytes costs no copy, else read whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "results/trace_scan.h"
#include "util/internal.h"

static kb_status read_stream(const char *path, FILE *f, kb_trace_text *out) {
    char *buf;
    kb_status st = kb_file_read_all(path, f, &buf, &out->length);
    if (st == KB_OK)
        out->text = out->buffer = buf;
    return st;
}

kb_status kb_trace_text_open(const char *path, kb_trace_text *out) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return kb_fail(KB_EIO, "%s: cannot read: %s", path, strerror(errno));
    struct stat sb;
    kb_status st = KB_OK;
    if (fstat(fileno(f), &sb) != 0)
        st = kb_fail(KB_EIO, "%s: cannot read: %s", path, strerror(errno));
    else if (S_ISDIR(sb.st_mode))
        st = kb_fail(KB_EIO, "%s: cannot read: is a directory", path);
    else if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
        if (m == MAP_FAILED)
            st = read_stream(path, f, out);
        else {
            out->mapping = m;
            out->text = m;
            out->length = (size_t)sb.st_size;
        }
    } else
        st = read_stream(path, f, out);
    fclose(f);
    return st;
}

void kb_trace_text_close(kb_trace_text *t) {
    if (t->mapping)
        munmap(t->mapping, t->length);
    free(t->buffer);
    memset(t, 0, sizeof *t);
}
