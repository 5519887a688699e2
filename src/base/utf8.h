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

/* s[0..n) as valid UTF-8 of at most max bytes, written to dst (room for max + 1; NUL-terminated):
 * each maximal invalid subpart (and a NUL byte) one U+FFFD, cut at a character boundary so that
 * no character is split.  Returns the bytes written (without the NUL); dst NULL only counts.  For text from outside
 * (a server's names, messages, stderr) before it enters a text that must be valid UTF-8. */
size_t shc_utf8_cut(char *dst, const char *s, size_t n, size_t max);
/* The same into a new string (malloc), or NULL out of memory; s NULL is "". */
char *shc_utf8_dup(const char *s, size_t n, size_t max);

#endif
