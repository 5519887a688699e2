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

shc_arena *shc_arena_new(size_t max_bytes)
{
#ifdef SHC_ARENA_DEBUG
    shc_arena *a = calloc(1, sizeof *a);
#else
    size_t hdr = (sizeof(shc_arena) + SHC_ARENA_ALIGN - 1) & ~(size_t)(SHC_ARENA_ALIGN - 1);
    shc_arena *a = malloc(hdr + sizeof(chunk) + FIRST_CAP);
#endif
    if (!a)
        return NULL;
    a->max = max_bytes;
    a->left = max_bytes ? max_bytes : SIZE_MAX;
    a->total = 0;
    a->hit_cap = 0;
    a->in_caller = 0;
    a->head = a->first = NULL;
    a->cur = a->end = NULL;
#ifndef SHC_ARENA_DEBUG
    a->first = (chunk *)(void *)((unsigned char *)a + hdr);
    a->first->next = NULL;
    a->first->cap = FIRST_CAP;
    a->head = a->first;
    a->cur = a->first->data;
    a->end = a->first->data + FIRST_CAP;
#endif
    return a;
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

shc_arena *shc_arena_in(shc_arena_buf *buf, size_t max_bytes)
{
#ifdef SHC_ARENA_DEBUG
    (void)buf;
    return shc_arena_new(max_bytes);
#else
    size_t hdr = (sizeof(shc_arena) + SHC_ARENA_ALIGN - 1) & ~(size_t)(SHC_ARENA_ALIGN - 1);
    if (!buf)
        return shc_arena_new(max_bytes);
    shc_arena *a = (shc_arena *)(void *)buf->bytes;
    a->max = max_bytes;
    a->left = max_bytes ? max_bytes : SIZE_MAX;
    a->total = 0;
    a->hit_cap = 0;
    a->in_caller = 1;
    a->first = (chunk *)(void *)(buf->bytes + hdr);
    a->first->next = NULL;
    a->first->cap = sizeof buf->bytes - hdr - sizeof(chunk);
    a->head = a->first;
    a->cur = a->first->data;
    a->end = a->first->data + a->first->cap;
    return a;
#endif
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
