/* One command's output pipeline (stream.h). */
#include "exec/stream.h"

#include <stdio.h>
#include <string.h>

#include "shcard.h"

int shc__stream_init(shc_stream *s, shc_loop *loop, const shc_pty_opts *o, shc_stream_out_fn out,
                     void *ctx)
{
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->out = out;
    s->ctx = ctx;
    s->chunk_bytes = o->chunk_bytes ? o->chunk_bytes : 8192;
    if (s->chunk_bytes < 8)
        s->chunk_bytes = 8;
    s->chunk_ms = o->chunk_ms ? o->chunk_ms : 16;
    s->display_limit = o->display_limit ? o->display_limit : (size_t)80 << 20;
    if (shc_model_init(&s->model, o->model_cap ? o->model_cap : 1u << 20) ||
        shc_ring_init(&s->tail, o->has_tail_limit ? o->tail_limit : 1u << 20))
        return SHC_E_NOMEM;
    return 0;
}

static void deliver(shc_stream *s, const char *data, size_t n)
{
    if (s->shown + n > s->display_limit) {
        s->hidden += n; /* past the display cap: counted, not shown */
        return;
    }
    s->shown += n;
    s->events++;
    if (s->out)
        s->out(s->ctx, data, n);
}

static void flush_display(shc_stream *s, bool all)
{
    size_t off = 0;
    while (s->disp.len - off >= s->chunk_bytes || (all && off < s->disp.len)) {
        size_t take = s->disp.len - off;
        if (take > s->chunk_bytes)
            take = shc_utf8_boundary(s->disp.p + off, s->chunk_bytes);
        if (!take)
            take = s->disp.len - off < s->chunk_bytes ? s->disp.len - off : s->chunk_bytes;
        deliver(s, s->disp.p + off, take);
        off += take;
    }
    shc_outbuf_consume(&s->disp, off);
}

static void on_flush_timer(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_stream *s = payload;
    s->t_flush = 0;
    flush_display(s, true);
}

/* Sanitize once, then feed display, model text and tail from the same text. */
static void feed(shc_stream *s, const void *b, size_t n, bool final)
{
    size_t before = s->disp.len;
    int rc = final ? shc_utf8_finish(&s->u8, &s->disp) : shc_utf8_feed(&s->u8, &s->disp, b, n);
    if (rc) {
        fprintf(stderr, "shcard: out of memory buffering output (%zu bytes dropped)\n", n);
        return;
    }
    size_t flen = s->disp.len - before;
    if (flen) {
        const char *fresh = s->disp.p + before;
        if (shc_model_feed(&s->model, fresh, flen) != 0)
            fprintf(stderr, "shcard: out of memory in model text\n");
        shc_ring_push(&s->tail, fresh, flen);
    }
    if (s->disp.len >= s->chunk_bytes)
        flush_display(s, false);
    if (s->disp.len && !s->t_flush && !final)
        s->t_flush =
            shc_loop_timer(s->loop, s->events >= 10000 ? 500 : s->chunk_ms, on_flush_timer, s);
}

void shc__stream_take(shc_stream *s, const void *bytes, size_t n)
{
    feed(s, bytes, n, false);
}

void shc__stream_end(shc_stream *s, const char *note)
{
    feed(s, NULL, 0, true);
    shc__stream_quiet(s);
    flush_display(s, true);
    if (s->hidden && s->out) {
        char msg[96];
        int n = snprintf(msg, sizeof msg, "\r\n[shcard: %llu more bytes not shown]\r\n",
                         (unsigned long long)s->hidden);
        s->out(s->ctx, msg, (size_t)n);
    }
    if (note) {
        if (s->out)
            s->out(s->ctx, note, strlen(note));
        shc_model_feed(&s->model, note, strlen(note));
        shc_ring_push(&s->tail, note, strlen(note));
    }
}

void shc__stream_quiet(shc_stream *s)
{
    if (s->t_flush > 0)
        shc_loop_cancel_timer(s->loop, s->t_flush);
    s->t_flush = 0;
}

void shc__stream_fini(shc_stream *s)
{
    shc__stream_quiet(s);
    shc_outbuf_free(&s->disp);
    shc_model_fini(&s->model);
    shc_ring_fini(&s->tail);
}
