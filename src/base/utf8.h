/* One UTF-8 decoder for every module that cleans bytes into valid UTF-8 (JSON strings, display
 * chunks, console blocks).  Follows the Unicode "maximal subpart" practice: each maximal invalid
 * subpart becomes one U+FFFD. */
#ifndef SHC_UTF8_H
#define SHC_UTF8_H

#include <stddef.h>

enum { SHC_UTF8_OK = 1, SHC_UTF8_SHORT = 0, SHC_UTF8_BAD = -1 };

/* Decodes one character at s[0..n), n >= 1.  *adv is its length (OK), the bytes seen so far
 * (SHORT: the input ended inside a valid prefix), or the maximal invalid subpart (BAD, >= 1). */
int shc_utf8_dec(const unsigned char *s, size_t n, size_t *adv);

#endif
