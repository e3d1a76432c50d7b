#ifndef KBENCH_DATASHEET_H
#define KBENCH_DATASHEET_H

#include <stddef.h>

#include "kbench/error.h"
#include "kbench/machine.h"
#include "kbench/peaks.h"
#include "kbench/simd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The theoretical peaks of known CPUs, from the vendors' datasheets. The table is the data
 * file data/datasheet.csv, compiled into the library (so that kbench and its tests need no
 * installed file) and installed as share/kbench/datasheet.csv; KB_DATASHEET=FILE replaces it
 * with another file of the same format at run time. The format and every column are described
 * at the top of the file and in docs/roofline.md. */

#define KB_DATASHEET_MAX_IDS 8

typedef struct kb_datasheet_row {
    char id[32];   /* "genoa", "graviton3", ... */
    char name[96]; /* "AMD EPYC 9004 (Genoa, Zen 4)" */
    /* How the row is recognized; every criterion given must hold, and a row gives at least
     * one. brand: a substring of kb_machine.cpu_model; x86: CPUID family and one of the
     * models; arm: MIDR implementer and one of the parts. -1 and 0 entries mean "not given". */
    char brand[64];
    int x86_family;
    int x86_models[KB_DATASHEET_MAX_IDS];
    int x86_model_count;
    int arm_implementer;
    int arm_parts[KB_DATASHEET_MAX_IDS];
    int arm_part_count;
    /* The figures; 0 when the datasheet does not say. */
    int cores;           /* per socket (performance cores on hybrid chips) */
    double base_mhz;     /* rated base clock */
    double boost_mhz;    /* highest rated boost clock */
    int fma_units;       /* FMA pipes per core */
    int vector_bits;     /* width of one FMA pipe */
    int memory_channels; /* 64-bit memory channels per socket */
    double memory_mts;   /* transfer rate of each, MT/s */
    char source[480];    /* where the figures come from */
} kb_datasheet_row;

typedef struct kb_datasheet {
    kb_datasheet_row *rows;
    int count;
} kb_datasheet;

/* Parses a datasheet table (the CSV format of data/datasheet.csv). name is used in error
 * messages ("datasheet.csv line 12: column cores: 'x' is not a whole number"). KB_EFORMAT for
 * malformed text, KB_ENOMEM; out is empty on failure. Free with kb_datasheet_free. */
kb_status kb_datasheet_parse(const char *text, size_t length, const char *name, kb_datasheet *out);

/* The table in force: the file named by KB_DATASHEET, else the one built in. */
kb_status kb_datasheet_load(kb_datasheet *out);

/* The table built into this library, as text. */
const char *kb_datasheet_builtin(size_t *length);

void kb_datasheet_free(kb_datasheet *datasheet);

/* The row that describes a CPU, or NULL. A row naming the brand string wins over one that
 * only matches the CPUID family/model or the Arm part (a generation); among equals, the first
 * in the table. */
const kb_datasheet_row *kb_datasheet_match(const kb_datasheet *datasheet, const char *cpu_model,
                                           const kb_cpu_signature *signature);

/* Theoretical FLOP/s of one core at a clock (MHz): FMA pipes x lanes x 2 FLOPs x clock, with
 * lanes the SIMD level's vector width (capped at the pipe width) over the type's size. 0 for
 * the scalar level, which portable C does not pin to one instruction width, for a level wider
 * than nothing (sve without a vector length), or when the row lacks the pipes. */
double kb_datasheet_core_flops(const kb_datasheet_row *row, kb_flop_type type, kb_simd_level level,
                               double mhz);

/* Theoretical memory bandwidth of one socket in bytes/s: channels x 8 bytes x MT/s; 0 when
 * the row lacks either. */
double kb_datasheet_memory_bandwidth(const kb_datasheet_row *row);

#ifdef __cplusplus
}
#endif

#endif
