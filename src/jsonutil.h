/* Small jansson helpers shared by the JSON outputs. */
#ifndef SHC_JSONUTIL_H
#define SHC_JSONUTIL_H

#include <jansson.h>
#include <stddef.h>

/* A new JSON string from s[0..n): invalid UTF-8 becomes U+FFFD, and NUL bytes are kept as
 * \u0000.  Returns a new reference, or NULL on allocation failure. */
json_t *shc_json_str(const char *s, size_t n);
/* Like shc_json_str for a NUL-terminated string; json null for NULL. */
json_t *shc_json_cstr(const char *s);

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when it is invalid or incomplete. */
size_t shc_utf8_seq(const unsigned char *s, size_t n);

#endif
