/* `kbench npy`: inspect (info) and convert (copy) NumPy .npy files. */
#include <stdio.h>
#include <string.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "core/internal.h"
#include "kbench/npy.h"

static void print_shape(const kb_npy_header *h) {
    printf("shape: (");
    for (int i = 0; i < h->ndim; i++)
        printf("%s%lld", i ? ", " : "", (long long)h->shape[i]);
    printf("%s)\n", h->ndim == 1 ? "," : "");
}

static int print_info(const char *program, const char *path, kb_dtype as) {
    kb_npy_header h;
    if (kb_npy_read_header_as(path, as, &h) != KB_OK)
        return kb_report_failure(program);
    printf("version: %d.%d\n", h.major, h.minor);
    printf("dtype: %s\n", kb_dtype_name(h.dtype));
    printf("byteorder: %s\n", h.byteorder == '<' ? "little" : h.byteorder == '>' ? "big" : "none");
    print_shape(&h);
    printf("order: %s\n", h.fortran_order ? "F" : "C");
    return KB_EXIT_OK;
}

#define NPY_EXIT_STATUS                                                                            \
    "exit status: 0 success, 1 failure (a file that cannot be read, is malformed or\n"             \
    "unsupported, or cannot be written), 2 bad arguments.\n"

/* The --as option of both subcommands. */
#define AS_OPTION(target)                                                                          \
    {                                                                                              \
        KB_OPTION_STRING, 0, "as", "D", target, kb_option_as_dtype,                                \
            .help = "read a void dtype (untyped items, descr such as '<V2') as D, whose size its " \
                    "items "                                                                       \
                    "have: bfloat16 saved by NumPy without ml_dtypes is '<V2'"                     \
    }

static int run_info(int argc, char **argv) {
    kb_dtype as = KB_DTYPE_COUNT;
    const kb_option options[] = {AS_OPTION(&as), {.kind = KB_OPTION_END}};
    const kb_program program = {
        .name = "kbench npy info",
        .synopsis = "usage: kbench npy info FILE [--as D]\n\n"
                    "Checks FILE's header and length and prints one field per line:\n"
                    "  version: 1.0\n"
                    "  dtype: float32\n"
                    "  byteorder: little    (big; none for single-byte types)\n"
                    "  shape: (3, 4)\n"
                    "  order: C             (F for Fortran order)\n\n",
        .options = options,
        .epilogue = NPY_EXIT_STATUS,
    };
    static const char *const names[] = {"FILE"};
    kb_arg_list files = {0};
    int status;
    if (kb_program_parse_exactly(&program, argc, argv, names, 1, &files, &status))
        status = print_info(program.name, files.items[0], as);
    kb_arg_list_free(&files);
    return status;
}

typedef struct copy_options {
    bool convert, reorder;
    kb_dtype dtype;
    kb_dtype as; /* KB_DTYPE_COUNT: none */
    kb_order order;
    int version; /* 0: the oldest that holds the header */
} copy_options;

static kb_status parse_dtype(const char *name, const char *value, void *target) {
    copy_options *o = target;
    if (kb_dtype_from_name(value, &o->dtype) != KB_OK)
        return kb_option_bad(name, value, "a dtype: float32, f4, bf16, int8, ...");
    o->convert = true;
    return KB_OK;
}

static kb_status parse_order(const char *name, const char *value, void *target) {
    copy_options *o = target;
    if (strcmp(value, "C") != 0 && strcmp(value, "F") != 0 && strcmp(value, "c") != 0 &&
        strcmp(value, "f") != 0)
        return kb_option_bad(name, value, "C or F");
    o->order = value[0] == 'F' || value[0] == 'f' ? KB_ORDER_F : KB_ORDER_C;
    o->reorder = true;
    return KB_OK;
}

static int copy(const char *program, const char *in, const char *out, copy_options *o) {
    kb_array src, converted = {0};
    kb_npy_header h;
    if (kb_npy_read_as(in, o->as, &src, &h) != KB_OK)
        return kb_report_failure(program);
    if (!o->reorder)
        o->order = h.fortran_order ? KB_ORDER_F : KB_ORDER_C;
    const kb_array *result = &src;
    kb_status st = KB_OK;
    if (o->convert && o->dtype != src.dtype) {
        /* Converted in the output's order, so the writer sees contiguous rows. */
        st = kb_array_new(&converted, o->dtype, src.ndim, src.shape, o->order);
        /* The copy names the element that cannot be converted; the file is named here. */
        if (st == KB_OK && (st = kb_array_copy(&converted, &src)) != KB_OK)
            kb_fail_prefix(st, in);
        result = &converted;
    }
    if (st == KB_OK)
        st = kb_npy_write(out, result, o->order, o->version);
    int code = st == KB_OK ? KB_EXIT_OK : kb_report_failure(program);
    kb_array_free(&converted);
    kb_array_free(&src);
    return code;
}

static int run_copy(int argc, char **argv) {
    copy_options o = {.dtype = KB_F32, .as = KB_DTYPE_COUNT, .order = KB_ORDER_C};
    const kb_option options[] = {
        {KB_OPTION_STRING, 0, "dtype", "D", &o, parse_dtype,
         .help = "convert to D (float32, f4, bf16, int8, ...) as NumPy's astype does; NaN or "
                 "out-of-range floats to integers are an error (default: IN's dtype)"},
        {KB_OPTION_STRING, 0, "order", "C|F", &o, parse_order,
         .help = "element order of OUT (default: IN's)"},
        {KB_OPTION_INT, 0, "version", "1|2|3", &o.version, .min = 1, .max = 3,
         .expected = "1, 2 or 3",
         .help = "format version of OUT (default: the oldest that holds the header, which is "
                 "1.0)"},
        AS_OPTION(&o.as),
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench npy copy",
        .synopsis =
            "usage: kbench npy copy IN OUT [--dtype D] [--order C|F] [--version 1|2|3]\n"
            "                           [--as D]\n\n"
            "Reads IN and writes its array to OUT, little-endian. OUT appears whole or not\n"
            "at all; on failure it is left as it was.\n\n",
        .options = options,
        .epilogue = NPY_EXIT_STATUS,
    };
    static const char *const names[] = {"IN", "OUT"};
    kb_arg_list files = {0};
    int status;
    if (kb_program_parse_exactly(&program, argc, argv, names, 2, &files, &status))
        status = copy(program.name, files.items[0], files.items[1], &o);
    kb_arg_list_free(&files);
    return status;
}

int kb_cmd_npy(int argc, char **argv) {
    const kb_option options[] = {{.kind = KB_OPTION_END}};
    const kb_program program = {
        .name = "kbench npy",
        .synopsis = "usage: kbench npy info FILE [--as D]\n"
                    "       kbench npy copy IN OUT [--dtype D] [--order C|F] [--version 1|2|3]\n"
                    "                           [--as D]\n\n"
                    "Inspect and convert NumPy .npy files: format versions 1.0 to 3.0, bool,\n"
                    "int8..int64, uint8..uint64, float16, bfloat16, float32 and float64, either\n"
                    "byte order, C or Fortran order.\n\n"
                    "subcommands:\n"
                    "  info   print a file's format version, dtype, byte order, shape and order\n"
                    "  copy   rewrite a file, converting its dtype, order or format version\n\n",
        .options = options,
        .epilogue = "'kbench npy SUBCOMMAND --help' describes a subcommand.\n" NPY_EXIT_STATUS,
        .flags = KB_OPTIONS_STOP_AT_ARGUMENT,
    };
    static const kb_subcommand subcommands[] = {
        {"info", run_info}, {"copy", run_copy}, {NULL, NULL}};
    return kb_program_run_subcommand(&program, argc, argv, subcommands);
}
