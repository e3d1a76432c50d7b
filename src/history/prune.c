/* `history prune`: old runs removed with everything that hangs off them. */
#include "core/internal.h"
#include "history/backend.h"

/* In the order the references between the tables allow; each takes the time as its one
 * parameter, but the last three, which sweep what no run refers to any more. */
static const char *const deletes[] = {
    "DELETE FROM samples WHERE run_id IN (SELECT id FROM runs WHERE started_at < ?)",
    "DELETE FROM cases WHERE run_id IN (SELECT id FROM runs WHERE started_at < ?)",
    "DELETE FROM runs WHERE started_at < ?",
    "DELETE FROM series WHERE NOT EXISTS (SELECT 1 FROM cases c WHERE c.series_id = series.id)",
    "DELETE FROM machines WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.machine_id = machines.id)"
    " AND NOT EXISTS (SELECT 1 FROM series s WHERE s.machine_id = machines.id)",
    "DELETE FROM builds WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.build_id = builds.id)"
    " AND NOT EXISTS (SELECT 1 FROM series s WHERE s.build_id = builds.id)",
};
enum { ndeletes = sizeof deletes / sizeof deletes[0], ntimed = 3 };

static kb_status run(kb_history *h, const char *sql, int64_t before, bool timed, int64_t *first) {
    kb_stmt *s;
    kb_status st = h->b->prepare(h->db, sql, &s);
    if (st != KB_OK)
        return st;
    bool row;
    if (!timed || (st = h->b->bind_int(s, 1, before)) == KB_OK)
        st = h->b->step(s, &row);
    if (st == KB_OK && first)
        *first = row ? h->b->column_int(s, 0) : 0;
    h->b->finalize(s);
    return st;
}

kb_status kb_history_prune(kb_history *h, int64_t before, int64_t *removed) {
    *removed = 0;
    kb_status st = h->b->begin(h->db, false);
    if (st != KB_OK)
        return st;
    st = run(h, "SELECT COUNT(*) FROM runs WHERE started_at < ?", before, true, removed);
    for (int i = 0; i < ndeletes && st == KB_OK; i++)
        st = run(h, deletes[i], before, i < ntimed, NULL);
    if (st == KB_OK)
        st = h->b->commit(h->db);
    if (st != KB_OK)
        h->b->rollback(h->db);
    return st;
}
