/* Output products of one PTY byte stream (executor-and-performance.md §1.9 items 10-12):
 *   - shc_utf8: a stateful sanitizer that turns raw bytes into valid UTF-8 (an incomplete
 *     trailing sequence waits for the next feed, invalid bytes become U+FFFD);
 *   - shc_ring: a tail ring keeping the last N bytes, read back from a character boundary;
 *   - shc_model: model text (CR overwrite, erase-line, CRLF -> LF, CSI/OSC/DCS stripped) kept
 *     in a head+tail buffer of fixed size with a "… N bytes omitted …" marker.
 * All state is in the structs the caller owns; memory is bounded by the capacities given. */
#ifndef SHC_OUTPUT_H
#define SHC_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; p is owned (free with shc_outbuf_free). */
typedef struct shc_outbuf {
    char *p;
    size_t len, cap;
} shc_outbuf;

int shc_outbuf_reserve(shc_outbuf *b, size_t extra); /* 0 or SHC_E_NOMEM */
int shc_outbuf_append(shc_outbuf *b, const void *data, size_t n);
void shc_outbuf_consume(shc_outbuf *b, size_t n); /* drop the first n bytes */
void shc_outbuf_free(shc_outbuf *b);              /* NULL-safe; leaves it empty */

/* ---------------------------------------------------------------- UTF-8 sanitizer */

typedef struct shc_utf8 {
    unsigned char pend[4]; /* an incomplete trailing sequence from the last feed */
    size_t npend;
} shc_utf8;

/* Appends the valid UTF-8 form of in[0..n) to out.  Each maximal invalid subpart becomes one
 * U+FFFD.  0 or SHC_E_NOMEM. */
int shc_utf8_feed(shc_utf8 *u, shc_outbuf *out, const void *in, size_t n);
/* End of stream: a pending incomplete sequence becomes one U+FFFD. */
int shc_utf8_finish(shc_utf8 *u, shc_outbuf *out);
/* The longest prefix of s[0..n) that ends on a character boundary (s is valid UTF-8). */
size_t shc_utf8_boundary(const char *s, size_t n);

/* ---------------------------------------------------------------- tail ring */

typedef struct shc_ring {
    unsigned char *p; /* owned; NULL when cap == 0 */
    size_t cap, start, len;
    uint64_t total; /* bytes ever pushed */
} shc_ring;

int shc_ring_init(shc_ring *r, size_t cap); /* 0 or SHC_E_NOMEM */
void shc_ring_fini(shc_ring *r);            /* NULL-safe */
void shc_ring_push(shc_ring *r, const void *data, size_t n);
/* Owned NUL-terminated copy of the kept bytes; when earlier bytes were dropped it starts at the
 * next character lead byte.  *truncated: whether anything pushed is missing from the copy.
 * *dropped (may be NULL): how many pushed bytes are missing.  NULL when out of memory. */
char *shc_ring_copy(const shc_ring *r, size_t *len, bool *truncated, uint64_t *dropped);

/* ---------------------------------------------------------------- model text */

typedef struct shc_model {
    /* head+tail: head keeps the first half of the capacity (closed on a character boundary),
     * the ring the last half */
    unsigned char *head; /* owned */
    size_t head_cap, head_len;
    bool head_closed;
    shc_ring tail;
    /* the line being written (not yet ended by \n): CR and erase-line act on it */
    unsigned char *line; /* owned */
    size_t line_len, line_cap, cursor;
    int state;          /* escape-sequence parser state */
    unsigned csi_param; /* first numeric CSI parameter */
    bool csi_private;
    bool csi_more; /* past the first parameter */
} shc_model;

int shc_model_init(shc_model *m, size_t cap); /* cap = head+tail bytes; 0 or SHC_E_NOMEM */
void shc_model_fini(shc_model *m);            /* NULL-safe */
/* Feeds valid UTF-8 (as produced by shc_utf8_feed).  0 or SHC_E_NOMEM. */
int shc_model_feed(shc_model *m, const char *s, size_t n);
/* Owned NUL-terminated rendering: head, marker if bytes were omitted, tail, then the current
 * unfinished line.  NULL when out of memory. */
char *shc_model_render(const shc_model *m, size_t *len);

#endif
