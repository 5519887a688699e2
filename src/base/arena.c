#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>

#define CHUNK_MIN 4096u
#define FIRST_CAP 4096u

typedef struct shc_arena_chunk {
    struct shc_arena_chunk *next;
    size_t cap;
    _Alignas(16) unsigned char data[];
} chunk;

#define HDR ((sizeof(shc_arena) + SHC_ARENA_ALIGN - 1) & ~(size_t)(SHC_ARENA_ALIGN - 1))

/* Sets up a, whose first chunk (of cap bytes) follows its header in the same storage (no first
 * chunk when cap is 0: the debug mode). */
static shc_arena *init(shc_arena *a, size_t cap, size_t max_bytes, int in_caller)
{
    a->max = max_bytes;
    a->left = max_bytes ? max_bytes : SIZE_MAX;
    a->total = 0;
    a->hit_cap = 0;
    a->in_caller = in_caller;
    a->head = a->first = NULL;
    a->cur = a->end = NULL;
    if (cap) {
        a->first = (chunk *)(void *)((unsigned char *)a + HDR);
        a->first->next = NULL;
        a->first->cap = cap;
        a->head = a->first;
        a->cur = a->first->data;
        a->end = a->first->data + cap;
    }
    return a;
}

shc_arena *shc_arena_new(size_t max_bytes)
{
#ifdef SHC_ARENA_DEBUG
    shc_arena *a = calloc(1, sizeof *a);
    return a ? init(a, 0, max_bytes, 0) : NULL;
#else
    shc_arena *a = malloc(HDR + sizeof(chunk) + FIRST_CAP);
    return a ? init(a, FIRST_CAP, max_bytes, 0) : NULL;
#endif
}

shc_arena *shc_arena_in(shc_arena_buf *buf, size_t max_bytes)
{
#ifdef SHC_ARENA_DEBUG
    (void)buf;
    return shc_arena_new(max_bytes);
#else
    if (!buf)
        return shc_arena_new(max_bytes);
    return init((shc_arena *)(void *)buf->bytes, sizeof buf->bytes - HDR - sizeof(chunk),
                 max_bytes, 1);
#endif
}

void shc_arena_free(shc_arena *a)
{
    if (!a)
        return;
    chunk *c = a->head;
    while (c && c != a->first) {
        chunk *n = c->next;
        free(c);
        c = n;
    }
    if (!a->in_caller)
        free(a);
}

void *shc__arena_alloc_slow(shc_arena *a, size_t n)
{
    if (n == 0)
        n = 1;
    size_t need = (n + SHC_ARENA_ALIGN - 1) & ~(size_t)(SHC_ARENA_ALIGN - 1);
    if (need < n || need > a->left) {
        a->hit_cap = 1;
        return NULL;
    }
#ifdef SHC_ARENA_DEBUG
    chunk *c = malloc(sizeof *c + n);
    if (!c)
        return NULL;
    c->cap = n;
    c->next = a->head;
    a->head = c;
    a->left -= need;
    a->total += need;
    return c->data;
#else
    if (need > (size_t)(a->end - a->cur)) {
        size_t cap = need > CHUNK_MIN ? need : CHUNK_MIN;
        size_t prev = a->head ? a->head->cap : 0;
        if (prev * 2 > cap && prev < 65536u)
            cap = prev * 2;
        chunk *c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->cap = cap;
        c->next = a->head;
        a->head = c;
        a->cur = c->data;
        a->end = c->data + cap;
    }
    void *p = a->cur;
    a->cur += need;
    a->left -= need;
    a->total += need;
    return p;
#endif
}

char *shc_arena_strndup(shc_arena *a, const char *s, size_t n)
{
    char *p = shc_arena_alloc_raw(a, n + 1);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

size_t shc_arena_used(const shc_arena *a)
{
    return a->total;
}

int shc_arena_hit_cap(const shc_arena *a)
{
    return a->hit_cap;
}
