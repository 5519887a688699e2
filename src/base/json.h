/* Small jansson helpers shared by the JSON outputs. */
#ifndef SHC_BASE_JSON_H
#define SHC_BASE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A new JSON string from s[0..n): invalid UTF-8 becomes U+FFFD, and NUL bytes are kept as
 * \u0000.  Returns a new reference, or NULL on allocation failure. */
json_t *shc_json_str(const char *s, size_t n);
/* Like shc_json_str for a NUL-terminated string; json null for NULL. */
json_t *shc_json_cstr(const char *s);

/* Whether s[0..n) is valid UTF-8 (fast for ASCII). */
bool shc_utf8_valid(const char *s, size_t n);

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when it is invalid or incomplete. */
size_t shc_utf8_seq(const unsigned char *s, size_t n);

/* Writes j as compact JSON through put (which returns 0, or -1 to stop), in one pass: objects
 * in insertion order, strings escaped with a fast path for runs that need no escaping (the
 * bridge streams megabytes of terminal output through here).  Returns 0 or -1. */
typedef int (*shc_json_put_fn)(const char *buf, size_t n, void *ctx);
int shc_json_write(const json_t *j, shc_json_put_fn put, void *ctx);

/* Allocation failures inside jansson (json_set_alloc_funcs; call once, before any jansson
 * value exists).  Between begin and end, the first failed allocation makes every later one
 * fail at once; end says whether one failed - then whatever jansson returned is not to be
 * trusted (jansson may return a truncated string rather than fail). */
void shc_json_guard_install(void);
void shc_json_guard_begin(void);
bool shc_json_guard_end(void);
/* json_loadb inside such a window: NULL with *oom set when an allocation failed. */
json_t *shc_json_load_guarded(const char *buf, size_t len, size_t flags, json_error_t *jerr,
                              bool *oom);

#endif
