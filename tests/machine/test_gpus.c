/* The GPU datasheet: the built-in table parses and every row cites a source; real device
 * names (as torch and the profiler's deviceProperties give them) find the right rows, the
 * A100 40 and 80 GB SXM and 80 GB PCIe, the H100 SXM, PCIe and NVL, the H200 and H200 NVL, and
 * L4 and L40S apart; ids work as --device takes them; peaks scale with
 * the clock; malformed tables fail with a message naming the line; KB_GPUS replaces the
 * built-in table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kbench/gpus.h"
#include "test_util.h"

static const char *const header =
    "id,name,match,boost_mhz,memory_gbs,memory_gib,fp64,fp64_tensor,fp32,tf32_tensor,"
    "fp16_tensor,fp16,fp8_tensor,int8_tensor,source\n";

static void builtin_table_parses(void **state) {
    kb_gpus g;
    size_t n;
    const char *text = kb_gpus_builtin(&n);
    assert_true(n > 1000 && strlen(text) == n);
    assert_int_equal(kb_gpus_parse(text, n, "builtin", &g), KB_OK);
    assert_int_equal(g.count, 12);
    for (int i = 0; i < g.count; i++) {
        const kb_gpu_row *r = &g.rows[i];
        assert_true(strlen(r->source) > 40); /* every row says where it comes from */
        assert_true(strstr(r->source, "datasheet") != NULL);
        assert_true(r->boost_mhz > 0 && r->memory_gbs > 0 && r->memory_gib > 0);
        assert_true(r->tflops[KB_GPU_FP32] > 0 && r->tflops[KB_GPU_FP16_TENSOR] > 0);
        /* Dense tensor figures are above the vector ones, and not the sparsity figures
         * (which would be 16x the FP32 vector rate or more on every row here). */
        assert_true(r->tflops[KB_GPU_FP16_TENSOR] > r->tflops[KB_GPU_FP32]);
        assert_true(r->tflops[KB_GPU_FP16_TENSOR] < 17 * r->tflops[KB_GPU_FP32]);
    }
    kb_gpus_free(&g);
    assert_null(g.rows);
}

static const char *id_of(const kb_gpus *g, const char *name) {
    const kb_gpu_row *r = kb_gpus_match(g, name);
    return r ? r->id : "(none)";
}

static void device_names_find_their_rows(void **state) {
    kb_gpus g;
    assert_int_equal(kb_gpus_load(&g), KB_OK);
    /* The A100s differ in bandwidth: each name its row; the 40 GB PCIe card has none. */
    assert_string_equal(id_of(&g, "NVIDIA A100-SXM4-80GB"), "a100-sxm4-80gb");
    assert_string_equal(id_of(&g, "NVIDIA A100-SXM4-40GB"), "a100-sxm4-40gb");
    assert_string_equal(id_of(&g, "NVIDIA A100 80GB PCIe"), "a100-pcie-80gb");
    assert_string_equal(id_of(&g, "NVIDIA A100-PCIE-40GB"), "(none)");
    /* H100 SXM, PCIe and NVL: all say H100, only the SXM says HBM3. */
    assert_string_equal(id_of(&g, "NVIDIA H100 80GB HBM3"), "h100-sxm");
    assert_string_equal(id_of(&g, "NVIDIA H100 PCIe"), "h100-pcie");
    assert_string_equal(id_of(&g, "NVIDIA H100 NVL"), "h100-nvl");
    /* The H200 row refuses NVL, which has a row of its own. */
    assert_string_equal(id_of(&g, "NVIDIA H200"), "h200");
    assert_string_equal(id_of(&g, "NVIDIA H200 NVL"), "h200-nvl");
    /* L4 is a word of "NVIDIA L4", not of "NVIDIA L40S" or "NVIDIA L40". */
    assert_string_equal(id_of(&g, "NVIDIA L4"), "l4");
    assert_string_equal(id_of(&g, "NVIDIA L40S"), "l40s");
    assert_string_equal(id_of(&g, "NVIDIA L40"), "(none)");
    assert_string_equal(id_of(&g, "AMD Instinct MI250X / MI250"), "mi250x-gcd");
    assert_string_equal(id_of(&g, "AMD Instinct MI300X"), "mi300x");
    assert_string_equal(id_of(&g, "amd instinct mi300x"), "mi300x");
    assert_string_equal(id_of(&g, "AMD Instinct MI300A"), "(none)");
    assert_string_equal(id_of(&g, ""), "(none)");
    assert_null(kb_gpus_match(&g, NULL));

    /* --device takes an id or a name. */
    assert_string_equal(kb_gpus_find(&g, "h100-pcie")->id, "h100-pcie");
    assert_string_equal(kb_gpus_find(&g, "NVIDIA L40S")->id, "l40s");
    assert_null(kb_gpus_find(&g, "h100"));
    char ids[512];
    kb_gpus_ids(&g, ids, sizeof ids);
    assert_string_equal(ids, "a100-sxm4-40gb, a100-sxm4-80gb, a100-pcie-80gb, h100-sxm, h100-pcie, "
                             "h100-nvl, h200, h200-nvl, l4, l40s, mi250x-gcd, mi300x");
    kb_gpus_free(&g);
}

static void peaks_in_si_units(void **state) {
    kb_gpus g;
    assert_int_equal(kb_gpus_load(&g), KB_OK);
    const kb_gpu_row *h100 = kb_gpus_find(&g, "h100-sxm");
    assert_float_equal(kb_gpu_flops(h100, KB_GPU_FP16_TENSOR, 0), 989.5e12, 1e6);
    assert_float_equal(kb_gpu_flops(h100, KB_GPU_FP32, 0), 67e12, 1e6);
    /* At 990 MHz, half the 1980 MHz boost clock: half the peak. */
    assert_float_equal(kb_gpu_flops(h100, KB_GPU_FP32, 990), 33.5e12, 1e6);
    assert_float_equal(kb_gpu_bandwidth(h100), 3.35e12, 1);
    /* Unknown figures are 0: the A100 has no FP8, the L4 no FP64 figure. */
    assert_float_equal(kb_gpu_flops(kb_gpus_find(&g, "a100-sxm4-80gb"), KB_GPU_FP8_TENSOR, 0), 0,
                       0);
    assert_float_equal(kb_gpu_flops(kb_gpus_find(&g, "l4"), KB_GPU_FP64, 0), 0, 0);
    /* The new rows' figures, as the datasheets give them (the tensor ones without sparsity). */
    static const struct {
        const char *id;
        double fp64, fp64_tensor, fp32, tf32, fp16_tensor, fp8, int8, gbs, gib, mhz;
    } rows[] = {
        {"a100-sxm4-40gb", 9.7, 19.5, 19.5, 156, 312, 0, 624, 1555, 40, 1410},
        {"a100-pcie-80gb", 9.7, 19.5, 19.5, 156, 312, 0, 624, 1935, 80, 1410},
        {"h100-nvl", 30, 60, 60, 417.5, 835.5, 1670.5, 1670.5, 3900, 94, 1785},
        {"h200-nvl", 30, 60, 60, 417.5, 835.5, 1670.5, 1670.5, 4800, 141, 1785},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const kb_gpu_row *r = kb_gpus_find(&g, rows[i].id);
        assert_non_null(r);
        const double want[] = {rows[i].fp64,        rows[i].fp64_tensor, rows[i].fp32, rows[i].tf32,
                               rows[i].fp16_tensor, rows[i].fp8,         rows[i].int8};
        const kb_gpu_peak peak[] = {KB_GPU_FP64,        KB_GPU_FP64_TENSOR, KB_GPU_FP32,
                                    KB_GPU_TF32_TENSOR, KB_GPU_FP16_TENSOR, KB_GPU_FP8_TENSOR,
                                    KB_GPU_INT8_TENSOR};
        for (int k = 0; k < 7; k++)
            assert_float_equal(kb_gpu_flops(r, peak[k], 0), want[k] * 1e12, 1e6);
        assert_float_equal(kb_gpu_bandwidth(r), rows[i].gbs * 1e9, 1);
        assert_float_equal(r->memory_gib, rows[i].gib, 0);
        assert_float_equal(r->boost_mhz, rows[i].mhz, 0);
    }
    assert_float_equal(kb_gpu_flops(NULL, KB_GPU_FP32, 0), 0, 0);
    assert_string_equal(kb_gpu_peak_name(KB_GPU_TF32_TENSOR), "tf32_tensor");
    assert_string_equal(kb_gpu_peak_name(KB_GPU_PEAK_COUNT), "?");
    kb_gpus_free(&g);
}

static kb_status parse(const char *rows, kb_gpus *g) {
    char text[4096];
    snprintf(text, sizeof text, "# a comment\n\n%s%s", header, rows);
    return kb_gpus_parse(text, strlen(text), "t.csv", g);
}

static void assert_fails(const char *rows, const char *message) {
    kb_gpus g;
    assert_int_equal(parse(rows, &g), KB_EFORMAT);
    if (!strstr(kb_last_error(), message))
        fail_msg("'%s' does not hold '%s'", kb_last_error(), message);
    assert_non_null(strstr(kb_last_error(), "t.csv line "));
    assert_null(g.rows);
    assert_int_equal(g.count, 0);
}

static void malformed_tables_are_refused(void **state) {
    kb_gpus g;
    assert_int_equal(parse("x,X,\"X1 !Y2\",,,,,,1.5,,,,,,s\n", &g), KB_OK);
    assert_int_equal(g.count, 1);
    assert_float_equal(g.rows[0].tflops[KB_GPU_FP32], 1.5, 0);
    assert_float_equal(g.rows[0].tflops[KB_GPU_FP64], 0, 0);
    kb_gpus_free(&g);

    assert_fails("x,X,X1,,,,,,abc,,,,,,s\n", "line 4: column fp32: 'abc' is not a number");
    assert_fails("x,X,X1,,,,,,-1,,,,,,s\n", "column fp32");
    assert_fails("x,X,X1,50,,,,,,,,,,,s\n", "column boost_mhz");
    assert_fails("x,X,X1,,,,,,,,,,,,\n", "column source is empty");
    assert_fails("x,X,,,,,,,,,,,,,s\n", "column match is empty");
    assert_fails("x,X,!X1,,,,,,,,,,,,s\n", "names no word");
    assert_fails("x,X,X-1,,,,,,,,,,,,s\n", "other characters than letters and digits");
    assert_fails("x,X,X1 !,,,,,,,,,,,,s\n", "a lone '!'");
    assert_fails("x,X,X1,,,,,,,,\n", "11 fields, not 15");
    assert_fails("X!,X,X1,,,,,,,,,,,,s\n", "characters other than");
    assert_fails("x,X,X1,,,,,,,,,,,,s\nx,Y,Y1,,,,,,,,,,,,s\n", "line 5: id 'x' repeats");
    assert_fails("x,\"X,X1,,,,,,,,,,,,s\n", "unterminated quote");

    const char wrong_header[] = "id,name,match\nx,X,Y\n";
    assert_int_equal(kb_gpus_parse(wrong_header, strlen(wrong_header), "h.csv", &g), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "h.csv line 1: the header must name the columns"));
    assert_int_equal(kb_gpus_parse("# only comments\n", 16, "c.csv", &g), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "no header line"));
}

static void environment_replaces_the_table(void **state) {
    test_dir dir;
    assert_int_equal(test_dir_create(&dir), 0);
    char path[1024], text[2048];
    test_dir_path(&dir, "gpus.csv", path, sizeof path);
    snprintf(text, sizeof text, "%smine,My GPU,Mine,1000,100,8,,,2,,,,,,me\n", header);
    test_write_text(path, text);

    setenv("KB_GPUS", path, 1);
    kb_gpus g;
    assert_int_equal(kb_gpus_load(&g), KB_OK);
    assert_int_equal(g.count, 1);
    assert_string_equal(id_of(&g, "ACME Mine 2"), "mine");
    kb_gpus_free(&g);

    snprintf(text, sizeof text, "%smine,My GPU,Mine,fast,,,,,,,,,,,me\n", header);
    test_write_text(path, text);
    assert_int_equal(kb_gpus_load(&g), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "line 2: column boost_mhz: 'fast'"));
    assert_non_null(strstr(kb_last_error(), path));

    unlink(path);
    assert_int_equal(kb_gpus_load(&g), KB_EIO);
    assert_non_null(strstr(kb_last_error(), "KB_GPUS"));
    unsetenv("KB_GPUS");
    assert_int_equal(kb_gpus_load(&g), KB_OK);
    assert_int_equal(g.count, 12);
    kb_gpus_free(&g);
    test_dir_destroy(&dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_table_parses),
        cmocka_unit_test(device_names_find_their_rows),
        cmocka_unit_test(peaks_in_si_units),
        cmocka_unit_test(malformed_tables_are_refused),
        cmocka_unit_test(environment_replaces_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
