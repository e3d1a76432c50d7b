/* float16 and bfloat16 conversions over all 65,536 bit patterns, against references built
 * from exact arithmetic (ldexp on doubles) rather than from the bit manipulation under test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/half.h"

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The value of a binary16 pattern, decoded from the definition. */
static double f16_value(uint16_t h) {
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return sign ? -v : v;
}

static double bf16_value(uint16_t b) {
    int sign = b >> 15, e = (b >> 7) & 255, m = b & 127;
    double v = e == 0 ? ldexp(m, -133) : ldexp(128 + m, e - 134);
    return sign ? -v : v;
}

static void f16_widens_exactly(void **state) {
    for (uint32_t h = 0; h < 65536; h++) {
        float f = kb_f16_to_f32((uint16_t)h);
        if (((h >> 10) & 31) == 31) {
            if (h & 1023) {
                assert_true(isnan(f));
                assert_int_equal(bits_of(f) >> 31, h >> 15);
                /* Payload kept in the top mantissa bits, quiet bit set. */
                assert_int_equal((bits_of(f) >> 13) & 0x1ff, h & 0x1ff);
                assert_true(bits_of(f) & 0x400000);
            } else {
                assert_true(isinf(f));
                assert_int_equal(signbit(f) != 0, (h >> 15) != 0);
            }
            continue;
        }
        assert_true((double)f == f16_value((uint16_t)h));
        assert_int_equal(signbit(f) != 0, (h >> 15) != 0);
    }
}

static void bf16_widens_exactly(void **state) {
    for (uint32_t b = 0; b < 65536; b++) {
        float f = kb_bf16_to_f32((uint16_t)b);
        if (((b >> 7) & 255) == 255) {
            assert_true((b & 127) ? isnan(f) : isinf(f));
            continue;
        }
        assert_true((double)f == bf16_value((uint16_t)b));
    }
}

/* Round-trip, and for every pair of neighbours the midpoint and values either side of it:
 * the midpoint must go to the even neighbour, anything off it to the nearer one. */
static void check_narrowing(uint16_t (*narrow)(float), double (*value)(uint16_t), int exp_mask,
                            int exp_shift) {
    for (uint32_t h = 0; h < 65536; h++) {
        uint16_t lo = (uint16_t)h;
        int e = (h >> exp_shift) & exp_mask;
        if (e == exp_mask)
            continue; /* inf and NaN: checked separately */
        float f = (float)value(lo);
        if (f == 0 && (h & 0x8000))
            f = -0.0f;
        assert_int_equal(narrow(f), lo);

        /* The next pattern away from zero; the largest finite one's neighbour is infinity. */
        uint16_t hi = (uint16_t)(h + 1);
        double vlo = value(lo), vhi;
        if (((hi >> exp_shift) & exp_mask) == exp_mask)
            vhi = 2 * vlo - value((uint16_t)(h - 1)); /* one more step of the same size */
        else
            vhi = value(hi);
        double mid = (vlo + vhi) / 2;
        uint16_t even = (lo & 1) ? hi : lo;
        assert_true((double)(float)mid == mid);
        assert_int_equal(narrow((float)mid), even);
        float below = nextafterf((float)mid, (float)vlo);
        float above = nextafterf((float)mid, (float)vhi * 2);
        assert_int_equal(narrow(below), lo);
        assert_int_equal(narrow(above), hi);
    }
}

static void f16_narrows_to_nearest_even(void **state) {
    check_narrowing(kb_f32_to_f16, f16_value, 31, 10);
    assert_int_equal(kb_f32_to_f16(INFINITY), 0x7c00);
    assert_int_equal(kb_f32_to_f16(-INFINITY), 0xfc00);
    assert_int_equal(kb_f32_to_f16(1e10f), 0x7c00);
    assert_int_equal(kb_f32_to_f16(1e-10f), 0);
    assert_int_equal(kb_f32_to_f16(-1e-10f), 0x8000);
    uint16_t n = kb_f32_to_f16(NAN);
    assert_true((n & 0x7c00) == 0x7c00 && (n & 0x3ff));
    /* A NaN whose payload lives only in low bits must not turn into infinity. */
    uint32_t low_nan = 0x7f800001;
    float f;
    memcpy(&f, &low_nan, sizeof f);
    assert_true((kb_f32_to_f16(f) & 0x3ff) != 0);
}

static void bf16_narrows_to_nearest_even(void **state) {
    check_narrowing(kb_f32_to_bf16, bf16_value, 255, 7);
    assert_int_equal(kb_f32_to_bf16(INFINITY), 0x7f80);
    assert_int_equal(kb_f32_to_bf16(3.4028235e38f), 0x7f80);
    uint32_t low_nan = 0x7f800001;
    float f;
    memcpy(&f, &low_nan, sizeof f);
    uint16_t b = kb_f32_to_bf16(f);
    assert_true((b & 0x7f80) == 0x7f80 && (b & 0x7f));
}

/* From double: every pattern round-trips, every midpoint goes to the even neighbour, and the
 * doubles next to a midpoint (which float would round onto it) to the nearer neighbour. */
static void check_double_narrowing(uint16_t (*narrow)(double), double (*value)(uint16_t),
                                   int exp_mask, int exp_shift) {
    for (uint32_t h = 0; h < 65536; h++) {
        uint16_t lo = (uint16_t)h;
        if (((h >> exp_shift) & exp_mask) == (uint32_t)exp_mask)
            continue;
        double vlo = value(lo);
        assert_int_equal(narrow(vlo == 0 && (h & 0x8000) ? -0.0 : vlo), lo);
        uint16_t hi = (uint16_t)(h + 1);
        double vhi = ((hi >> exp_shift) & exp_mask) == exp_mask ? 2 * vlo - value((uint16_t)(h - 1))
                                                                : value(hi);
        double mid = (vlo + vhi) / 2;
        assert_int_equal(narrow(mid), (lo & 1) ? hi : lo);
        assert_int_equal(narrow(nextafter(mid, vlo)), lo);
        assert_int_equal(narrow(nextafter(mid, 2 * vhi)), hi);
    }
}

static void f16_from_double_rounds_once(void **state) {
    check_double_narrowing(kb_f64_to_f16, f16_value, 31, 10);
    assert_int_equal(kb_f64_to_f16(1e300), 0x7c00);
    assert_int_equal(kb_f64_to_f16(-INFINITY), 0xfc00);
    assert_true((kb_f64_to_f16(NAN) & 0x7c00) == 0x7c00 && (kb_f64_to_f16(NAN) & 0x3ff));
}

static void bf16_from_double_rounds_once(void **state) {
    check_double_narrowing(kb_f64_to_bf16, bf16_value, 255, 7);
    assert_int_equal(kb_f64_to_bf16(1e300), 0x7f80);
    assert_true((kb_f64_to_bf16(NAN) & 0x7f80) == 0x7f80 && (kb_f64_to_bf16(NAN) & 0x7f));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f16_widens_exactly),
        cmocka_unit_test(bf16_widens_exactly),
        cmocka_unit_test(f16_narrows_to_nearest_even),
        cmocka_unit_test(bf16_narrows_to_nearest_even),
        cmocka_unit_test(f16_from_double_rounds_once),
        cmocka_unit_test(bf16_from_double_rounds_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
