/* The datasheet table: the built-in table parses and every row cites a source; lookups by
 * brand, CPUID family/model and Arm part pick the right row; theoretical peaks against hand
 * computation; malformed tables fail with a message naming the line and the problem; and
 * KB_DATASHEET replaces the built-in table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kbench/datasheet.h"
#include "test_util.h"

static const char *const header =
    "id,name,brand,x86_family,x86_models,arm_implementer,arm_parts,cores,base_mhz,boost_mhz,"
    "fma_units,vector_bits,memory_channels,memory_mts,source\n";

static kb_cpu_signature x86(int family, int model) {
    return (kb_cpu_signature){family, model, -1, -1};
}

static kb_cpu_signature arm(int implementer, int part) {
    return (kb_cpu_signature){-1, -1, implementer, part};
}

static void builtin_table_parses(void **state) {
    kb_datasheet d;
    size_t n;
    const char *text = kb_datasheet_builtin(&n);
    assert_true(n > 1000 && strlen(text) == n);
    assert_int_equal(kb_datasheet_parse(text, n, "builtin", &d), KB_OK);
    assert_true(d.count >= 12);
    for (int i = 0; i < d.count; i++) {
        const kb_datasheet_row *r = &d.rows[i];
        assert_true(strlen(r->source) > 20); /* every row says where it comes from */
        assert_true(r->fma_units > 0 && r->vector_bits >= 128);
        assert_true(r->memory_channels > 0 && r->memory_mts > 0);
        assert_true(r->cores > 0 && r->base_mhz > 0);
    }
    kb_datasheet_free(&d);
    assert_null(d.rows);
}

static const kb_datasheet_row *lookup(const kb_datasheet *d, const char *model,
                                      kb_cpu_signature s) {
    return kb_datasheet_match(d, model, &s);
}

static void known_machines_are_found(void **state) {
    kb_datasheet d;
    assert_int_equal(kb_datasheet_load(&d), KB_OK);
    /* This project's machine: an EPYC that KVM names only "AMD EPYC", family 25 model 17. */
    const kb_datasheet_row *r = lookup(&d, "AMD EPYC", x86(25, 17));
    assert_non_null(r);
    assert_string_equal(r->id, "genoa");
    assert_string_equal(lookup(&d, "AMD EPYC 7763 64-Core Processor", x86(25, 1))->id, "milan");
    /* AWS Graviton3 and Graviton4 by their Neoverse parts. */
    assert_string_equal(lookup(&d, "Neoverse V1", arm(0x41, 0xd40))->id, "graviton3");
    assert_string_equal(lookup(&d, "Neoverse V2", arm(0x41, 0xd4f))->id, "graviton4");
    /* Intel generations; a brand string beats the generation. */
    assert_string_equal(lookup(&d, "Intel(R) Xeon(R) Platinum 8480+", x86(6, 0x8f))->id,
                        "sapphire-rapids");
    assert_string_equal(
        lookup(&d, "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", x86(6, 0x6a))->id,
        "icelake-8375c");
    assert_string_equal(lookup(&d, "Intel(R) Xeon(R) Gold 6338", x86(6, 0x6a))->id, "icelake-sp");
    assert_string_equal(lookup(&d, "", x86(6, 0xcf))->id, "emerald-rapids");
    assert_string_equal(lookup(&d, "", x86(6, 0xad))->id, "granite-rapids");
    /* Apple M1 by either core type (cpu0 is an efficiency core); M3 by brand. */
    assert_string_equal(lookup(&d, "MIDR 0x611f0220", arm(0x61, 0x022))->id, "apple-m1");
    assert_string_equal(lookup(&d, "Apple M3", arm(-1, -1))->id, "apple-m3");
    /* AMD generations from Zen 1 (the EPYC that KVM names only "AMD EPYC", family 23 model 1)
     * to Zen 5; Skylake-SP and Cascade Lake share a model, the brand tells them apart. */
    assert_string_equal(lookup(&d, "AMD EPYC", x86(23, 1))->id, "naples");
    assert_string_equal(lookup(&d, "AMD EPYC 7742 64-Core Processor", x86(23, 0x31))->id, "rome");
    assert_string_equal(lookup(&d, "AMD EPYC 9754 128-Core Processor", x86(25, 0xa0))->id,
                        "bergamo");
    assert_string_equal(lookup(&d, "AMD EPYC", x86(26, 2))->id, "turin");
    assert_string_equal(
        lookup(&d, "Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz", x86(6, 0x55))->id, "skylake-sp");
    assert_string_equal(
        lookup(&d, "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz", x86(6, 0x55))->id,
        "cascade-lake-8259cl");
    /* Neoverse N1: Graviton2 by the part, Altra by its brand over the part; AmpereOne. */
    assert_string_equal(lookup(&d, "Neoverse N1", arm(0x41, 0xd0c))->id, "graviton2");
    assert_string_equal(lookup(&d, "Ampere(R) Altra(R) Processor", arm(0x41, 0xd0c))->id,
                        "ampere-altra");
    assert_string_equal(lookup(&d, "", arm(0xc0, 0xac3))->id, "ampereone");
    /* Unknown: another family or model, another Arm part, the brand of a row whose family
     * differs. */
    assert_null(lookup(&d, "AMD EPYC", x86(23, 0x71)));
    assert_null(lookup(&d, "Cortex-A76", arm(0x41, 0xd0b)));
    /* A brand row holds only with its family too; the generation row still fits. */
    assert_string_equal(lookup(&d, "AMD EPYC 9755 128-Core Processor", x86(26, 2))->id,
                        "turin-9755");
    assert_string_equal(lookup(&d, "AMD EPYC 9755 128-Core Processor", x86(25, 17))->id, "genoa");
    assert_null(kb_datasheet_match(&d, NULL, NULL));
    kb_datasheet_free(&d);
}

static void theoretical_peaks(void **state) {
    kb_datasheet d;
    assert_int_equal(kb_datasheet_load(&d), KB_OK);
    const kb_datasheet_row *genoa = lookup(&d, "AMD EPYC", x86(25, 17));
    /* Zen 4 at 3000 MHz: 2 pipes x 256 bits. float64: 2 x 4 lanes x 2 x 3e9 = 48 GFLOP/s,
     * float32 96; AVX-512 is split over the same pipes, so the same. */
    assert_true(kb_datasheet_core_flops(genoa, KB_FLOP_F64, KB_SIMD_AVX2, 3000) == 48e9);
    assert_true(kb_datasheet_core_flops(genoa, KB_FLOP_F64, KB_SIMD_AVX512, 3000) == 48e9);
    assert_true(kb_datasheet_core_flops(genoa, KB_FLOP_F32, KB_SIMD_AVX512, 3000) == 96e9);
    assert_true(kb_datasheet_core_flops(genoa, KB_FLOP_F32, KB_SIMD_SCALAR, 3000) == 0);
    /* 12 channels x 8 bytes x 4800 MT/s = 460.8 GB/s. */
    assert_true(fabs(kb_datasheet_memory_bandwidth(genoa) - 460.8e9) < 1);

    /* Sapphire Rapids at 2000 MHz: 2 x 512 bits: float64 AVX-512 2 x 8 x 2 x 2e9 = 64 GFLOP/s,
     * AVX2 half of it. 8 x 8 x 4800 = 307.2 GB/s. */
    const kb_datasheet_row *spr = lookup(&d, "", x86(6, 0x8f));
    assert_true(kb_datasheet_core_flops(spr, KB_FLOP_F64, KB_SIMD_AVX512, 2000) == 64e9);
    assert_true(kb_datasheet_core_flops(spr, KB_FLOP_F64, KB_SIMD_AVX2, 2000) == 32e9);
    assert_true(fabs(kb_datasheet_memory_bandwidth(spr) - 307.2e9) < 1);

    /* Zen 1 at 3000 MHz: 2 pipes x 128 bits; AVX2's 256-bit operations take two halves, so
     * float64 AVX2 2 x 2 lanes x 2 x 3e9 = 24 GFLOP/s. 8 x 8 x 2666 = 170.6 GB/s. */
    const kb_datasheet_row *naples = lookup(&d, "AMD EPYC", x86(23, 1));
    assert_true(kb_datasheet_core_flops(naples, KB_FLOP_F64, KB_SIMD_AVX2, 3000) == 24e9);
    assert_true(fabs(kb_datasheet_memory_bandwidth(naples) - 170.624e9) < 1);

    /* Graviton3 at 2600 MHz: 4 x 128 bits; float32 NEON 4 x 4 x 2 x 2.6e9 = 83.2 GFLOP/s. */
    const kb_datasheet_row *g3 = lookup(&d, "", arm(0x41, 0xd40));
    assert_true(fabs(kb_datasheet_core_flops(g3, KB_FLOP_F32, KB_SIMD_NEON, 2600) - 83.2e9) < 1);
    assert_true(kb_datasheet_core_flops(NULL, KB_FLOP_F32, KB_SIMD_NEON, 2600) == 0);
    assert_true(kb_datasheet_core_flops(g3, KB_FLOP_F32, KB_SIMD_NEON, 0) == 0);
    kb_datasheet_free(&d);
}

/* Parses header + rows and returns the status; the message is in kb_last_error(). */
static kb_status parse(const char *rows, kb_datasheet *d) {
    char text[4096];
    snprintf(text, sizeof text, "# a comment\n\n%s%s", header, rows);
    return kb_datasheet_parse(text, strlen(text), "test.csv", d);
}

static void assert_fails(const char *rows, const char *message) {
    kb_datasheet d;
    assert_int_equal(parse(rows, &d), KB_EFORMAT);
    assert_null(d.rows);
    assert_int_equal(d.count, 0);
    if (!strstr(kb_last_error(), message))
        fail_msg("error '%s' does not say '%s'", kb_last_error(), message);
}

static void a_minimal_table_parses(void **state) {
    kb_datasheet d;
    assert_int_equal(parse("x,\"X, with a \"\"comma\"\"\",,25,0x11 17,,,8,2000,,2,256,4,3200,"
                           "here\r\ny,Y,Brand Y,,,,,,,,,,,,there\n",
                           &d),
                     KB_OK);
    assert_int_equal(d.count, 2);
    assert_string_equal(d.rows[0].name, "X, with a \"comma\"");
    assert_int_equal(d.rows[0].x86_family, 25);
    assert_int_equal(d.rows[0].x86_model_count, 2);
    assert_int_equal(d.rows[0].x86_models[0], 17);
    assert_int_equal(d.rows[0].x86_models[1], 17);
    assert_int_equal(d.rows[0].arm_implementer, -1);
    assert_true(d.rows[0].boost_mhz == 0 && d.rows[0].base_mhz == 2000);
    assert_string_equal(d.rows[0].source, "here");
    assert_string_equal(d.rows[1].brand, "Brand Y");
    assert_int_equal(d.rows[1].cores, 0);
    kb_datasheet_free(&d);

    /* A header alone is an empty table. */
    assert_int_equal(parse("", &d), KB_OK);
    assert_int_equal(d.count, 0);
    kb_datasheet_free(&d);
}

static void malformed_tables_are_refused(void **state) {
    assert_fails("x,X,,abc,,,,,,,,,,,s\n",
                 "line 4: column x86_family: 'abc' is not a whole number");
    assert_fails("x,X,,25,,,,0,,,,,,,s\n", "column cores");
    assert_fails("x,X,,25,,,,,,,,,,,\n", "column source is empty");
    assert_fails("x,X,,25,,,,,,,\n", "11 fields, not 15");
    assert_fails("x,X,,25,,,,,,,,,,,s,extra\n", "more than 15 fields");
    assert_fails("x,X,,,,,,,,,,,,,s\n", "names no brand, x86_family or arm_implementer");
    assert_fails("x,X,,,0x11,,,,,,,,,,s\n", "x86_models needs x86_family");
    assert_fails("x,X,,,,,0xd40,,,,,,,,s\n", "arm_parts needs arm_implementer");
    assert_fails("x,X,,25,,0x41,,,,,,,,,s\n", "both an x86 family and an Arm implementer");
    assert_fails("x,X,,25,,,,,3000,2000,,,,,s\n", "below base_mhz");
    assert_fails("x,X,,25,,,,,,,,384,,,s\n", "not a power of two");
    assert_fails("x,X,,25,,,,,,,,,,-5,s\n", "column memory_mts");
    assert_fails("X!,X,,25,,,,,,,,,,,s\n", "characters other than");
    assert_fails("x,X,,25,,,,,,,,,,,s\nx,Y,,25,,,,,,,,,,,s\n", "line 5: id 'x' repeats");
    assert_fails("x,\"X,,25,,,,,,,,,,,s\n", "unterminated quote");
    assert_fails("x,\"X\"y,,25,,,,,,,,,,,s\n", "text after the closing quote");
    assert_fails("x,X\"y,,25,,,,,,,,,,,s\n", "a quote inside an unquoted field");
    assert_fails("x,X,,25,1 2 3 4 5 6 7 8 9,,,,,,,,,,s\n", "more than 8 values");

    kb_datasheet d;
    const char wrong_header[] = "id,name,brand\nx,X,Y\n";
    assert_int_equal(kb_datasheet_parse(wrong_header, strlen(wrong_header), "h.csv", &d),
                     KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "h.csv line 1: the header must name the columns"));
    assert_int_equal(kb_datasheet_parse("# only comments\n", 16, "c.csv", &d), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "no header line"));
    const char nul[] = "id\0name\n";
    assert_int_equal(kb_datasheet_parse(nul, sizeof nul - 1, "n.csv", &d), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "NUL"));
}

/* Whole numbers are decimal or 0x hex, as the file's comment says: leading zeros do not make
 * octal (strtol's base 0 read 010 as 8 and refused 09), and signs and spaces are refused. */
static void whole_numbers_are_decimal_or_hex(void **state) {
    kb_datasheet d;
    assert_int_equal(parse("x,X,,025,010 09 0x1A 0X1b,,,0016,,,,,,,s\n", &d), KB_OK);
    assert_int_equal(d.rows[0].x86_family, 25);
    assert_int_equal(d.rows[0].x86_model_count, 4);
    assert_int_equal(d.rows[0].x86_models[0], 10);
    assert_int_equal(d.rows[0].x86_models[1], 9);
    assert_int_equal(d.rows[0].x86_models[2], 0x1a);
    assert_int_equal(d.rows[0].x86_models[3], 0x1b);
    assert_int_equal(d.rows[0].cores, 16);
    kb_datasheet_free(&d);

    assert_fails("x,X,,+25,,,,,,,,,,,s\n", "column x86_family: '+25' is not a whole number");
    assert_fails("x,X,,-0,,,,,,,,,,,s\n", "column x86_family: '-0'");
    assert_fails("x,X,,25,\t0x6a,,,,,,,,,,s\n", "column x86_models");
    assert_fails("x,X,,25,0x,,,,,,,,,,s\n", "column x86_models: '0x'");
    assert_fails("x,X,,25,0x-5,,,,,,,,,,s\n", "column x86_models: '0x-5'");
    assert_fails("x,X,,25,,,,08x,,,,,,,s\n", "column cores: '08x'");
}

static void environment_replaces_the_table(void **state) {
    test_dir dir;
    assert_int_equal(test_dir_create(&dir), 0);
    char path[1024], text[2048];
    test_dir_path(&dir, "datasheet.csv", path, sizeof path);
    snprintf(text, sizeof text, "%smine,My CPU,My Brand,,,,,4,1000,,1,128,1,1000,me\n", header);
    test_write_text(path, text);

    setenv("KB_DATASHEET", path, 1);
    kb_datasheet d;
    assert_int_equal(kb_datasheet_load(&d), KB_OK);
    assert_int_equal(d.count, 1);
    assert_string_equal(lookup(&d, "a My Brand CPU", x86(-1, -1))->id, "mine");
    kb_datasheet_free(&d);

    snprintf(text, sizeof text, "%smine,My CPU,My Brand,,,,,four,,,,,,,me\n", header);
    test_write_text(path, text);
    assert_int_equal(kb_datasheet_load(&d), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "line 2: column cores: 'four'"));
    assert_non_null(strstr(kb_last_error(), path));

    unlink(path);
    assert_int_equal(kb_datasheet_load(&d), KB_EIO);
    assert_non_null(strstr(kb_last_error(), "KB_DATASHEET"));
    unsetenv("KB_DATASHEET");
    assert_int_equal(kb_datasheet_load(&d), KB_OK);
    assert_true(d.count > 1);
    kb_datasheet_free(&d);
    test_dir_destroy(&dir);
}

static void this_machine_is_described(void **state) {
    /* Whatever the machine, its signature is either x86's or Arm's (or unknown), never both. */
    kb_machine m;
    kb_machine_probe(&m);
    const kb_cpu_signature *s = &m.signature;
    assert_false(s->x86_family >= 0 && s->arm_implementer >= 0);
#if defined(__x86_64__)
    assert_true(s->x86_family >= 6 && s->x86_model >= 0);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_table_parses),
        cmocka_unit_test(known_machines_are_found),
        cmocka_unit_test(theoretical_peaks),
        cmocka_unit_test(a_minimal_table_parses),
        cmocka_unit_test(malformed_tables_are_refused),
        cmocka_unit_test(whole_numbers_are_decimal_or_hex),
        cmocka_unit_test(environment_replaces_the_table),
        cmocka_unit_test(this_machine_is_described),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
