#ifndef KB_HISTORY_MIGRATIONS_H
#define KB_HISTORY_MIGRATIONS_H

#include "history/backend.h"

/* The schema version this kbench brings a store to: the number of its migrations. */
int kb_history_latest_version(void);

/* Brings the store to the latest version, running each missing migration once, in one
 * transaction; concurrent callers wait for each other. KB_EUNSUPPORTED for a store newer than
 * this kbench. */
kb_status kb_history_migrate(kb_history *h);

#endif
