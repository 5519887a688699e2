/* src/base/ owns what every other folder leans on and that knows nothing of shells, cards,
 * ACP or models: the arena (one per parse), the growable string, the UTF-8 decoder, JSON
 * helpers (jansson values and the one-pass compact writer), stderr logging, signal names and
 * the event loop (one ppoll, fd watchers, timers, signalfd).  May use: libc and jansson only;
 * nothing under src/ (and the public header include/shcard.h, for error codes).
 *
 * This file: the bump allocator.  One arena per parse owns every node and string of that parse.
 * Freed at once by shc_arena_free.  With -DSHC_ARENA_DEBUG each allocation is its own
 * malloc, so AddressSanitizer sees overflows between objects. */
#ifndef SHC_ARENA_H
#define SHC_ARENA_H

#include <stddef.h>
#include <string.h>

#include "shcard.h"

#define SHC_ARENA_ALIGN 16u

/* Visible only so the allocation fast path can be inlined; use the functions. */
struct shc_arena {
    unsigned char *cur, *end; /* free space in the current chunk */
    size_t left;              /* bytes the cap still allows (SIZE_MAX without a cap) */
    size_t max, total;
    int hit_cap;
    int in_caller; /* the header and first chunk are the caller's buffer (shc_arena_in) */
    struct shc_arena_chunk *head, *first; /* first lives in the same allocation */
};

/* Returns an owned arena that refuses to grow past max_bytes (0 = no cap), or NULL. */
shc_arena *shc_arena_new(size_t max_bytes);
void shc_arena_free(shc_arena *a); /* NULL-safe */

/* Room for an arena's header and first chunk in the caller's storage, for a parse whose arena
 * dies before the caller returns (classify, batch): no malloc and no free for a command that
 * fits, which is most of them (a malloc/free pair of the first chunk was ~4% of a batch). */
typedef struct shc_arena_buf {
    _Alignas(SHC_ARENA_ALIGN) unsigned char bytes[4096];
} shc_arena_buf;

/* An arena like shc_arena_new's that lives in *buf until it outgrows it (buf must outlive
 * it; shc_arena_free still frees what it added).  NULL buf: a new one.  With
 * SHC_ARENA_DEBUG, buf is not used. */
shc_arena *shc_arena_in(shc_arena_buf *buf, size_t max_bytes);

/* The slow path of shc_arena_alloc_raw: a new chunk, the cap, or the debug mode. */
void *shc__arena_alloc_slow(shc_arena *a, size_t n);

/* Aligned memory, not zeroed: for memory the caller fills at once.  NULL when the cap is
 * reached or malloc fails. */
static inline void *shc_arena_alloc_raw(shc_arena *a, size_t n)
{
#ifndef SHC_ARENA_DEBUG
    size_t need = (n + SHC_ARENA_ALIGN - 1) & ~(size_t)(SHC_ARENA_ALIGN - 1);
    if (need - 1 < (size_t)(a->end - a->cur) && need <= a->left) {
        void *p = a->cur;
        a->cur += need;
        a->left -= need;
        a->total += need;
        return p;
    }
#endif
    return shc__arena_alloc_slow(a, n);
}

/* Zeroed, aligned memory; NULL when the cap is reached or malloc fails. */
static inline void *shc_arena_alloc(shc_arena *a, size_t n)
{
    void *p = shc_arena_alloc_raw(a, n);
    if (p)
        memset(p, 0, n);
    return p;
}

/* A NUL-terminated copy of s[0..n). */
char *shc_arena_strndup(shc_arena *a, const char *s, size_t n);
/* Bytes handed out so far. */
size_t shc_arena_used(const shc_arena *a);
/* Whether an allocation failed because of the cap (as opposed to malloc). */
int shc_arena_hit_cap(const shc_arena *a);

#endif
