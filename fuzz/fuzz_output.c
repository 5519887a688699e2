/* Fuzz target for the executor's output products (src/output.c).  The input is a PTY byte
 * stream; its first byte seeds how the stream is split into reads.  Invariants:
 *   - the sanitized display stream is valid UTF-8 and does not depend on how reads split it;
 *   - model text (small head+tail capacity, so the cuts are exercised) is valid UTF-8, bounded,
 *     and the same whether the sanitized text arrives whole or in pieces;
 *   - the tail ring's copy is valid UTF-8 and at most its capacity. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/output.h"

/* p + off, without offsetting a null pointer (an empty buffer has none yet) */
static const char *at(const char *p, size_t off)
{
    return off ? p + off : p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_output: invariant failed: %s\n", what);
        abort();
    }
}

static int valid(const char *s, size_t n)
{
    shc_utf8 u = {{0}, 0};
    shc_outbuf b = {0};
    int ok = shc_utf8_feed(&u, &b, s, n) == 0 && u.npend == 0 && b.len == n &&
             (n == 0 || memcmp(b.p, s, n) == 0);
    shc_outbuf_free(&b);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 16)
        return 0;
    unsigned seed = data[0];
    data++;
    size--;

    /* whole */
    shc_utf8 u1 = {{0}, 0};
    shc_outbuf whole = {0};
    check(shc_utf8_feed(&u1, &whole, data, size) == 0, "feed");
    check(shc_utf8_finish(&u1, &whole) == 0, "finish");

    /* split into reads of 1..16 bytes chosen from the seed; model and ring fed per read */
    shc_utf8 u2 = {{0}, 0};
    shc_outbuf split = {0};
    shc_model m_split, m_whole;
    shc_ring ring;
    size_t cap = 16 + seed % 64;
    check(shc_model_init(&m_split, cap) == 0, "model init");
    check(shc_model_init(&m_whole, cap) == 0, "model init");
    check(shc_ring_init(&ring, seed % 32) == 0, "ring init");
    size_t off = 0;
    unsigned r = seed * 2654435761u + 1;
    while (off < size) {
        r = r * 1103515245u + 12345u;
        size_t k = 1 + (r >> 16) % 16;
        if (k > size - off)
            k = size - off;
        size_t before = split.len;
        check(shc_utf8_feed(&u2, &split, data + off, k) == 0, "feed split");
        check(shc_model_feed(&m_split, at(split.p, before), split.len - before) == 0, "model");
        shc_ring_push(&ring, at(split.p, before), split.len - before);
        off += k;
    }
    size_t before = split.len;
    check(shc_utf8_finish(&u2, &split) == 0, "finish split");
    check(shc_model_feed(&m_split, at(split.p, before), split.len - before) == 0, "model");
    shc_ring_push(&ring, at(split.p, before), split.len - before);

    check(whole.len == split.len && (whole.len == 0 || !memcmp(whole.p, split.p, whole.len)),
          "display stream independent of read splits");
    check(valid(whole.p, whole.len), "display stream is valid UTF-8");

    check(shc_model_feed(&m_whole, whole.p, whole.len) == 0, "model whole");
    size_t la, lb;
    char *a = shc_model_render(&m_split, &la);
    char *b = shc_model_render(&m_whole, &lb);
    check(a && b, "render");
    check(la == lb && !memcmp(a, b, la), "model text independent of read splits");
    check(valid(a, la), "model text is valid UTF-8");
    check(la <= cap + 64 + 65536 + 4, "model text bounded");

    size_t lt;
    bool trunc;
    char *t = shc_ring_copy(&ring, &lt, &trunc, NULL);
    check(t != NULL, "ring copy");
    check(lt <= ring.cap, "ring bounded");
    check(valid(t, lt), "tail is valid UTF-8");
    check(trunc == (ring.total > lt), "truncated flag");

    free(a);
    free(b);
    free(t);
    shc_model_fini(&m_split);
    shc_model_fini(&m_whole);
    shc_ring_fini(&ring);
    shc_outbuf_free(&whole);
    shc_outbuf_free(&split);
    return 0;
}
