/* kb_alias_place: the place it picks lies in the buffer's spare page, on a cache line, and
 * KB_ALIAS_BEHIND bytes below the array modulo 4 KiB (less than a line more when the array
 * starts inside a line), for every offset of buffer and array (worked out by hand for three of
 * them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/alias.h"

static void below_the_array_within_the_spare_page(void **state) {
    (void)state;
    static char buf[3 * KB_ALIAS_PAGE], array[2 * KB_ALIAS_PAGE];
    for (uintptr_t b = 0; b < KB_ALIAS_PAGE; b += 8)
        for (uintptr_t a = 0; a < KB_ALIAS_PAGE; a += 24) {
            char *room = buf + b, *x = array + a;
            char *p = kb_alias_place(room, x);
            assert_true(p >= room && p < room + KB_ALIAS_PAGE);
            assert_int_equal((uintptr_t)p % KB_ALIAS_ALIGN, 0);
            uintptr_t distance = ((uintptr_t)x - (uintptr_t)p) % KB_ALIAS_PAGE;
            assert_true(distance >= KB_ALIAS_BEHIND && distance < KB_ALIAS_BEHIND + KB_ALIAS_ALIGN);
        }
}

static void worked_by_hand(void **state) {
    (void)state;
    /* room at 0x10010, array at 0x7000: the place is at 0x6f00 modulo 4 KiB, 0x10f00 */
    assert_ptr_equal(kb_alias_place((void *)0x10010, (const void *)0x7000), (void *)0x10f00);
    /* array at 0x7100: 0x7000 modulo 4 KiB, so the room's own page start 0x11000 */
    assert_ptr_equal(kb_alias_place((void *)0x10010, (const void *)0x7100), (void *)0x11000);
    /* array at 0x7122 (a view from an odd element): 0x7022 rounds down to 0x7000 */
    assert_ptr_equal(kb_alias_place((void *)0x10010, (const void *)0x7122), (void *)0x11000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(below_the_array_within_the_spare_page),
        cmocka_unit_test(worked_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
