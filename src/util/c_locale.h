#ifndef KB_UTIL_C_LOCALE_H
#define KB_UTIL_C_LOCALE_H

#include <locale.h>

/* The "C" locale, made once, for reading and writing numbers with a dot whatever locale a
 * program embedding kbench has set (strtod and printf follow LC_NUMERIC, which may use a
 * comma); pass it to strtod_l or uselocale. (locale_t)0 when it cannot be made, and then the
 * process's locale is all there is. */
locale_t kb_c_locale(void);

#endif
