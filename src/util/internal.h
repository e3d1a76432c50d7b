#ifndef KB_UTIL_INTERNAL_H
#define KB_UTIL_INTERNAL_H

/* The util layer: infrastructure written once for every layer below it (JSON files and text,
 * JSON as kbench writes it, typed JSON reads, the CSV tables of data/ and CSV fields, the
 * monotonic clock, the random number generator, the FNV-1a hash, directories made with their
 * parents, sorting, strings, the C locale, time and size formatting). Other folders include this
 * header, never util's others. */

#include "util/c_locale.h"
#include "util/csv_field.h"
#include "util/csv_rows.h"
#include "util/csv_table.h"
#include "util/clock.h"
#include "util/format.h"
#include "util/hash.h"
#include "util/jfield.h"
#include "util/make_dirs.h"
#include "util/reserve.h"
#include "util/json_dump.h"
#include "util/json_file.h"
#include "util/json_lift.h"
#include "util/json_text.h"
#include "util/rng.h"
#include "util/sort.h"
#include "util/strings.h"

#endif
