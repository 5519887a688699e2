/* vsnprintf for the classifier's reasons ("%s: not allowed"), without stdio on the hot path:
 * formats made only of %s, %c, %d and %% are written directly; any other format goes to
 * vsnprintf.  Same result as vsnprintf(buf, cap, fmt, ap) (tests/test_fmt.c compares them). */
#ifndef SHC_BASE_FMT_H
#define SHC_BASE_FMT_H

#include <stdarg.h>
#include <stddef.h>

void shc_vformat(char *buf, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
