/* The "C" locale, made once for every thread that reads or writes numbers as text. */
#include <pthread.h>

#include "util/c_locale.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void) {
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t kb_c_locale(void) {
    pthread_once(&once, make_c_locale);
    return c_locale;
}
