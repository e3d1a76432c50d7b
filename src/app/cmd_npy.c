#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "app/commands.h"
#include "app/usage.h"
#include "kbench/npy.h"

static void print_help(FILE *out) {
    fprintf(out, "usage: kbench npy info FILE\n"
                 "       kbench npy copy IN OUT [--dtype D] [--order C|F] [--version 1|2|3]\n\n"
                 "Inspect and convert NumPy .npy files: format versions 1.0 to 3.0, bool,\n"
                 "int8..int64, uint8..uint64, float16, bfloat16, float32 and float64, either\n"
                 "byte order, C or Fortran order.\n\n"
                 "subcommands:\n"
                 "  info   print a file's format version, dtype, byte order, shape and order\n"
                 "  copy   rewrite a file, converting its dtype, order or format version\n\n"
                 "'kbench npy SUBCOMMAND --help' describes a subcommand.\n");
}

static void print_info_help(FILE *out) {
    fprintf(out, "usage: kbench npy info FILE\n\n"
                 "Checks FILE's header and length and prints one field per line:\n"
                 "  version: 1.0\n"
                 "  dtype: float32\n"
                 "  byteorder: little    (big; none for single-byte types)\n"
                 "  shape: (3, 4)\n"
                 "  order: C             (F for Fortran order)\n");
}

static void print_copy_help(FILE *out) {
    fprintf(out,
            "usage: kbench npy copy IN OUT [--dtype D] [--order C|F] [--version 1|2|3]\n\n"
            "Reads IN and writes its array to OUT, little-endian. OUT appears whole or not\n"
            "at all; on failure it is left as it was.\n\n"
            "options:\n"
            "  --dtype D        convert to D (float32, f4, bf16, int8, ...) as NumPy's astype\n"
            "                   does; NaN or out-of-range floats to integers are an error\n"
            "                   (default: IN's dtype)\n"
            "  --order C|F      element order of OUT (default: IN's)\n"
            "  --version 1|2|3  format version of OUT (default: the oldest that holds the\n"
            "                   header, which is 1.0)\n"
            "  -h, --help       show this help\n");
}

/* getopt reports nothing itself (opterr = 0) so that every usage error has kbench's form;
 * this names the argument it stopped at. */
static int bad_option(const char *command, char **argv, int c) {
    const char *arg = argv[optind - 1];
    if (c == ':')
        return kb_usage_error(command, "option '%s' needs a value", arg);
    /* A short option may sit inside a group ("-xy"), where argv does not point at it. */
    if (optopt != 0)
        return kb_usage_error(command, "unknown option '-%c'", optopt);
    return kb_usage_error(command, "unknown option '%s'", arg);
}

static void print_shape(const kb_npy_header *h) {
    printf("shape: (");
    for (int i = 0; i < h->ndim; i++)
        printf("%s%lld", i ? ", " : "", (long long)h->shape[i]);
    printf("%s)\n", h->ndim == 1 ? "," : "");
}

static int run_info(int argc, char **argv) {
    static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {0}};
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        if (c == 'h') {
            print_info_help(stdout);
            return KB_EXIT_OK;
        }
        return bad_option("npy info", argv, c);
    }
    if (argc - optind < 1)
        return kb_usage_error("npy info", "missing FILE");
    if (argc - optind > 1)
        return kb_usage_error("npy info", "expected one FILE, got %d", argc - optind);
    kb_npy_header h;
    if (kb_npy_read_header(argv[optind], &h) != KB_OK)
        return kb_report_failure("npy");
    printf("version: %d.%d\n", h.major, h.minor);
    printf("dtype: %s\n", kb_dtype_name(h.dtype));
    printf("byteorder: %s\n", h.byteorder == '<' ? "little" : h.byteorder == '>' ? "big" : "none");
    print_shape(&h);
    printf("order: %s\n", h.fortran_order ? "F" : "C");
    return KB_EXIT_OK;
}

static int run_copy(int argc, char **argv) {
    static const struct option options[] = {{"dtype", required_argument, NULL, 'd'},
                                            {"order", required_argument, NULL, 'o'},
                                            {"version", required_argument, NULL, 'v'},
                                            {"help", no_argument, NULL, 'h'},
                                            {0}};
    bool convert = false, reorder = false;
    kb_dtype dtype = KB_F32;
    kb_order order = KB_ORDER_C;
    int version = 0;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (c) {
            case 'h':
                print_copy_help(stdout);
                return KB_EXIT_OK;
            case 'd':
                if (kb_dtype_from_name(optarg, &dtype) != KB_OK)
                    return kb_usage_error("npy copy", "unknown dtype '%s'", optarg);
                convert = true;
                break;
            case 'o':
                if (strcmp(optarg, "C") != 0 && strcmp(optarg, "F") != 0 &&
                    strcmp(optarg, "c") != 0 && strcmp(optarg, "f") != 0)
                    return kb_usage_error("npy copy", "--order must be C or F, not '%s'", optarg);
                order = optarg[0] == 'F' || optarg[0] == 'f' ? KB_ORDER_F : KB_ORDER_C;
                reorder = true;
                break;
            case 'v':
                if (strcmp(optarg, "1") != 0 && strcmp(optarg, "2") != 0 &&
                    strcmp(optarg, "3") != 0)
                    return kb_usage_error("npy copy", "--version must be 1, 2 or 3, not '%s'",
                                          optarg);
                version = optarg[0] - '0';
                break;
            default:
                return bad_option("npy copy", argv, c);
        }
    }
    if (argc - optind < 2)
        return kb_usage_error("npy copy", "missing %s", argc - optind == 0 ? "IN and OUT" : "OUT");
    if (argc - optind > 2)
        return kb_usage_error("npy copy", "expected IN and OUT, got %d files", argc - optind);
    const char *in = argv[optind], *out = argv[optind + 1];

    kb_array src, converted = {0};
    kb_npy_header h;
    if (kb_npy_read(in, &src, &h) != KB_OK)
        return kb_report_failure("npy");
    if (!reorder)
        order = h.fortran_order ? KB_ORDER_F : KB_ORDER_C;
    const kb_array *result = &src;
    kb_status st = KB_OK;
    if (convert && dtype != src.dtype) {
        /* Converted in the output's order, so the writer sees contiguous rows. */
        st = kb_array_new(&converted, dtype, src.ndim, src.shape, order);
        if (st == KB_OK)
            st = kb_array_copy(&converted, &src);
        result = &converted;
    }
    if (st == KB_OK)
        st = kb_npy_write(out, result, order, version);
    int code = st == KB_OK ? KB_EXIT_OK : kb_report_failure("npy");
    kb_array_free(&converted);
    kb_array_free(&src);
    return code;
}

int kb_cmd_npy(int argc, char **argv) {
    static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {0}};
    /* '+' stops at the subcommand, whose own options are parsed by the subcommand. */
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
        if (c == 'h') {
            print_help(stdout);
            return KB_EXIT_OK;
        }
        return bad_option("npy", argv, c);
    }
    if (optind >= argc)
        return kb_usage_error("npy", "missing subcommand (info or copy)");
    const char *sub = argv[optind];
    int sub_argc = argc - optind;
    char **sub_argv = argv + optind;
    if (strcmp(sub, "info") == 0)
        return run_info(sub_argc, sub_argv);
    if (strcmp(sub, "copy") == 0)
        return run_copy(sub_argc, sub_argv);
    return kb_usage_error("npy", "unknown subcommand '%s'", sub);
}
