#ifndef KBENCH_GPUS_H
#define KBENCH_GPUS_H

#include <stddef.h>

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The theoretical peaks of known GPUs, from the vendors' datasheets: the data file
 * data/gpus.csv, compiled into the library and installed as share/kbench/gpus.csv;
 * KB_GPUS=FILE replaces it with another file of the same format at run time. The format and
 * every column are described at the top of the file and in docs/traces.md. */

/* The dense peak figures of a row, in the order of the table's columns. */
typedef enum kb_gpu_peak {
    KB_GPU_FP64,        /* float64, vector units */
    KB_GPU_FP64_TENSOR, /* float64, tensor or matrix cores */
    KB_GPU_FP32,        /* float32, vector units */
    KB_GPU_TF32_TENSOR, /* TF32, tensor or matrix cores */
    KB_GPU_FP16_TENSOR, /* float16 and bfloat16, tensor or matrix cores */
    KB_GPU_FP16,        /* float16, vector units */
    KB_GPU_FP8_TENSOR,  /* FP8, tensor or matrix cores */
    KB_GPU_INT8_TENSOR, /* int8 (operations, not FLOPs), tensor or matrix cores */
    KB_GPU_PEAK_COUNT
} kb_gpu_peak;

typedef struct kb_gpu_row {
    char id[32];       /* "h100-sxm" */
    char name[96];     /* "NVIDIA H100 SXM5 80GB" */
    char match[128];   /* "H100 HBM3": words a device name must hold; !WORD must not */
    double boost_mhz;  /* the clock the peaks assume */
    double memory_gbs; /* GB/s */
    double memory_gib;
    double tflops[KB_GPU_PEAK_COUNT]; /* dense TFLOP/s (TOPS for int8); 0 when unknown */
    char source[480];
} kb_gpu_row;

typedef struct kb_gpus {
    kb_gpu_row *rows;
    int count;
} kb_gpus;

/* Parses a GPU table (the CSV format of data/gpus.csv). name is used in error messages
 * ("gpus.csv line 12: column fp32: 'x' is not a number from 0 to 100000"). KB_EFORMAT for
 * malformed text, KB_ENOMEM; out is empty on failure. Free with kb_gpus_free. */
kb_status kb_gpus_parse(const char *text, size_t length, const char *name, kb_gpus *out);

/* The table in force: the file named by KB_GPUS, else the one built in. */
kb_status kb_gpus_load(kb_gpus *out);

/* The table built into this library, as text. */
const char *kb_gpus_builtin(size_t *length);

void kb_gpus_free(kb_gpus *gpus);

/* The row that describes a device name ("NVIDIA H100 80GB HBM3", "AMD Instinct MI300X"), or
 * NULL: every match word of the row appears in the name as a whole word, case ignored, and
 * none of its !WORDs does. Among rows that match, the longest match words in total win, then
 * the first in the table. */
const kb_gpu_row *kb_gpus_match(const kb_gpus *gpus, const char *device_name);

/* The row whose id is text, else the row kb_gpus_match finds for it as a device name; NULL
 * when neither. */
const kb_gpu_row *kb_gpus_find(const kb_gpus *gpus, const char *text);

/* The ids of the table, comma-separated ("a100-sxm4-80gb, h100-sxm, ..."), into buf; for the
 * message that names the GPUs kbench knows. */
void kb_gpus_ids(const kb_gpus *gpus, char *buf, size_t size);

/* A peak in FLOP/s (operations/s for int8) at a clock: the datasheet figure scaled by
 * mhz / boost_mhz, or the figure itself when mhz is 0. 0 when the row does not give it. */
double kb_gpu_flops(const kb_gpu_row *row, kb_gpu_peak peak, double mhz);

/* The memory bandwidth in bytes/s; 0 when unknown. */
double kb_gpu_bandwidth(const kb_gpu_row *row);

/* "fp64", "fp64_tensor", ...: the table's column names; "?" for anything else. */
const char *kb_gpu_peak_name(kb_gpu_peak peak);

#ifdef __cplusplus
}
#endif

#endif
