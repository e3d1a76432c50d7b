/* The history store: which backend a URL names, opening it migrated, and its default place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "history/backend.h"
#include "history/migrations.h"
#include "util/internal.h"

kb_status kb_history_default_url(char *buf, size_t size) {
    const char *url = getenv("KB_HISTORY_DB");
    const char *data = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (url && *url)
        n = snprintf(buf, size, "%s", url);
    else if (data && data[0] == '/')
        n = snprintf(buf, size, "%s/kbench/history.sqlite", data);
    else if (home && *home)
        n = snprintf(buf, size, "%s/.local/share/kbench/history.sqlite", home);
    else
        return kb_fail(KB_EINVAL, "no default history: set KB_HISTORY_DB, XDG_DATA_HOME or HOME");
    if (n < 0 || (size_t)n >= size)
        return kb_fail(KB_EINVAL, "the history's path is too long");
    return KB_OK;
}

/* The directory of a SQLite file, made when missing, so that a first `history add` works. */
static kb_status make_parent(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return KB_OK;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    return kb_make_dirs(dir);
}

kb_status kb_history_open(const char *url, kb_history **out) {
    *out = NULL;
    const kb_backend *b = &kb_sqlite_backend;
    const char *target = url;
    if (strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0) {
#ifdef KB_HAVE_POSTGRESQL
        b = &kb_postgres_backend;
#else
        return kb_fail(KB_EUNSUPPORTED, "this kbench was built without PostgreSQL (libpq)");
#endif
    } else if (strncmp(url, "sqlite:", 7) == 0) {
        target = url + 7;
    } else if (strstr(url, "://")) {
        return kb_fail(KB_EINVAL,
                       "unknown kind of history '%s' (expected a path, sqlite:PATH or "
                       "postgresql://...)",
                       url);
    }
    if (!*target)
        return kb_fail(KB_EINVAL, "empty history path");
    kb_status st = b == &kb_sqlite_backend ? make_parent(target) : KB_OK;
    kb_history *h = calloc(1, sizeof *h);
    if (st == KB_OK && !h)
        st = kb_fail(KB_ENOMEM, "out of memory");
    if (st == KB_OK) {
        h->b = b;
        st = b->open(target, &h->db);
    }
    if (st == KB_OK && (st = kb_history_migrate(h)) != KB_OK) {
        b->close(h->db);
        kb_fail_prefix(st, "migrating the history");
    }
    if (st != KB_OK) {
        free(h);
        return st;
    }
    *out = h;
    return KB_OK;
}

void kb_history_close(kb_history *h) {
    if (h) {
        if (h->points)
            h->b->finalize(h->points);
        h->b->close(h->db);
        free(h);
    }
}

const char *kb_history_backend_name(const kb_history *h) {
    return h->b->name;
}

kb_status kb_history_schema_version(kb_history *h, int *version) {
    kb_stmt *s;
    kb_status st = h->b->prepare(h->db, "SELECT MAX(version) FROM schema_version", &s);
    if (st != KB_OK)
        return st;
    bool row;
    if ((st = h->b->step(s, &row)) == KB_OK)
        *version = row ? (int)h->b->column_int(s, 0) : 0;
    h->b->finalize(s);
    return st;
}
