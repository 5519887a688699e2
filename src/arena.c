#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_MIN 4096u
#define ALIGN 16u

typedef struct chunk {
    struct chunk *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
} chunk;

struct shc_arena {
    chunk *head;
    size_t max, total;
    int hit_cap;
    chunk *first; /* lives in the same allocation, right after this header */
};

#define FIRST_CAP 4096u

shc_arena *shc_arena_new(size_t max_bytes)
{
#ifdef SHC_ARENA_DEBUG
    shc_arena *a = calloc(1, sizeof *a);
#else
    size_t hdr = (sizeof(shc_arena) + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    shc_arena *a = malloc(hdr + sizeof(chunk) + FIRST_CAP);
#endif
    if (!a)
        return NULL;
    a->max = max_bytes;
    a->total = 0;
    a->hit_cap = 0;
    a->head = a->first = NULL;
#ifndef SHC_ARENA_DEBUG
    a->first = (chunk *)(void *)((unsigned char *)a + hdr);
    a->first->next = NULL;
    a->first->cap = FIRST_CAP;
    a->first->used = 0;
    a->head = a->first;
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
    free(a);
}

void *shc_arena_alloc(shc_arena *a, size_t n)
{
    if (n == 0)
        n = 1;
    size_t need = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (need < n || (a->max && (a->total + need > a->max || a->total + need < a->total))) {
        a->hit_cap = 1;
        return NULL;
    }
#ifdef SHC_ARENA_DEBUG
    chunk *c = malloc(sizeof *c + n);
    if (!c)
        return NULL;
    c->cap = c->used = n;
    c->next = a->head;
    a->head = c;
    a->total += need;
    memset(c->data, 0, n);
    return c->data;
#else
    chunk *c = a->head;
    if (!c || c->cap - c->used < need) {
        size_t cap = need > CHUNK_MIN ? need : CHUNK_MIN;
        if (c && c->cap * 2 > cap && c->cap < 65536u)
            cap = c->cap * 2;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += need;
    a->total += need;
    memset(p, 0, n);
    return p;
#endif
}

char *shc_arena_strndup(shc_arena *a, const char *s, size_t n)
{
    char *p = shc_arena_alloc(a, n + 1);
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
