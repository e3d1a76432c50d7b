#ifndef KB_HISTORY_BACKEND_H
#define KB_HISTORY_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kbench/error.h"
#include "kbench/history.h"

/* What the store asks of a database: statements with bound parameters, transactions, and the
 * few words its SQL dialect spells differently. Everything else (the schema, the migrations,
 * every query) is written once, in SQL both SQLite and PostgreSQL speak, with '?' for each
 * parameter in order. Every failure is KB_EIO with the database's message. */

typedef struct kb_stmt kb_stmt;

typedef struct kb_backend {
    const char *name; /* "sqlite", "postgresql" */
    /* The dialect: the type of a surrogate key that numbers itself, and of a byte string. */
    const char *id_type;
    const char *blob_type;
    kb_status (*open)(const char *target, void **db);
    void (*close)(void *db);
    /* Statements without parameters, separated by ';'. */
    kb_status (*exec)(void *db, const char *sql);
    /* A transaction that writes: it holds the right to write from its start (SQLite's
     * BEGIN IMMEDIATE waits for the other writers), so that it never fails half-way for a
     * lock. migration, for the one that migrates: it also waits for every other migration
     * (PostgreSQL's advisory lock), so that each runs once. */
    kb_status (*begin)(void *db, bool migration);
    kb_status (*commit)(void *db);
    void (*rollback)(void *db);
    /* Whether the last failure may succeed when the transaction is tried again: a conflict
     * with a concurrent transaction (deadlock, serialization failure, a unique key taken). */
    bool (*retryable)(void *db);
    kb_status (*prepare)(void *db, const char *sql, kb_stmt **stmt);
    /* Parameters are numbered from 1; text and blobs are copied. NULL text is SQL NULL. */
    kb_status (*bind_int)(kb_stmt *s, int i, int64_t v);
    kb_status (*bind_double)(kb_stmt *s, int i, double v); /* NAN is NULL */
    kb_status (*bind_text)(kb_stmt *s, int i, const char *v);
    kb_status (*bind_blob)(kb_stmt *s, int i, const void *v, size_t n);
    /* Runs the statement on the first call and moves to the next row of its result on each;
     * *row is false past the last. */
    kb_status (*step)(kb_stmt *s, bool *row);
    /* Columns of the current row, numbered from 0. NULL is 0, NAN and NULL respectively. */
    int64_t (*column_int)(kb_stmt *s, int i);
    double (*column_double)(kb_stmt *s, int i);
    const char *(*column_text)(kb_stmt *s, int i); /* valid until the next step or reset */
    /* Ready to bind and run again. */
    void (*reset)(kb_stmt *s);
    void (*finalize)(kb_stmt *s);
} kb_backend;

extern const kb_backend kb_sqlite_backend;
#ifdef KB_HAVE_POSTGRESQL
extern const kb_backend kb_postgres_backend;
#endif

struct kb_history {
    const kb_backend *b;
    void *db;
    kb_stmt *points; /* kb_history_points' statement, prepared when first needed */
};

#endif
