/* One command's output pipeline (internal to the executor; pty.c owns one per command): raw
 * PTY bytes in, sanitized once into valid UTF-8, then three products from the same text -
 * display chunks (coalesced by size and delay, capped per command), model text (head+tail) and
 * a tail ring (see output.h and pty.h for their rules). */
#ifndef SHC_STREAM_H
#define SHC_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/loop.h"
#include "exec/output.h"
#include "exec/pty.h"

typedef void (*shc_stream_out_fn)(void *ctx, const char *data, size_t len);

typedef struct shc_stream {
    shc_loop *loop;   /* borrowed */
    shc_utf8 u8;
    shc_outbuf disp;  /* sanitized display bytes not yet delivered */
    shc_model model;
    shc_ring tail;
    size_t chunk_bytes;
    uint32_t chunk_ms;
    size_t display_limit;
    uint64_t shown, hidden, events; /* display bytes delivered / withheld, chunks delivered */
    int t_flush;
    shc_stream_out_fn out; /* display chunks go here (may be NULL) */
    void *ctx;
} shc_stream;

/* Capacities and coalescing from o (their defaults as pty.h says).  0 or SHC_E_NOMEM; the
 * stream is safe to fini either way. */
int shc__stream_init(shc_stream *s, shc_loop *loop, const shc_pty_opts *o, shc_stream_out_fn out,
                     void *ctx);
void shc__stream_take(shc_stream *s, const void *bytes, size_t n);
/* End of the byte stream: a pending incomplete character becomes U+FFFD, every chunk is
 * delivered, then the "N more bytes not shown" notice if the display cap was hit, then note
 * (may be NULL), which also ends the model text. */
void shc__stream_end(shc_stream *s, const char *note);
/* No more deliveries (the coalescing timer is cancelled). */
void shc__stream_quiet(shc_stream *s);
void shc__stream_fini(shc_stream *s);

#endif
