/* Bump allocator: one arena per parse owns every node and string of that parse.
 * Freed at once by shc_arena_free.  With -DSHC_ARENA_DEBUG each allocation is its own
 * malloc, so AddressSanitizer sees overflows between objects. */
#ifndef SHC_ARENA_H
#define SHC_ARENA_H

#include <stddef.h>

#include "shc.h"

/* Returns an owned arena that refuses to grow past max_bytes (0 = no cap), or NULL. */
shc_arena *shc_arena_new(size_t max_bytes);
void shc_arena_free(shc_arena *a); /* NULL-safe */

/* Zeroed, aligned memory; NULL when the cap is reached or malloc fails. */
void *shc_arena_alloc(shc_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n). */
char *shc_arena_strndup(shc_arena *a, const char *s, size_t n);
/* Bytes handed out so far. */
size_t shc_arena_used(const shc_arena *a);
/* Whether an allocation failed because of the cap (as opposed to malloc). */
int shc_arena_hit_cap(const shc_arena *a);

#endif
