/* Server-sent events, incrementally.  The line splitter keeps the partial line across calls
 * and remembers a trailing CR so that a CRLF split between two chunks counts once. */
#include "model/sse.h"

#include <stdlib.h>
#include <string.h>

#include "shcard.h"

struct shc_sse {
    size_t max;
    char *line; /* the current, unterminated line (owned) */
    size_t line_len, line_cap;
    char *data; /* the data of the event being built (owned) */
    size_t data_len, data_cap;
    bool has_data;  /* a data: field was seen since the last dispatch */
    bool after_cr;  /* the previous byte ended a line with CR: skip one LF */
    bool broken;    /* over the limit: refuse further input */
    bool any_field; /* a non-comment line was seen since the last dispatch */
    char event[64]; /* event type; empty = "message" */
    size_t events;
};

shc_sse *shc_sse_new(size_t max_event)
{
    shc_sse *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->max = max_event ? max_event : SHC_SSE_MAX_EVENT_DEFAULT;
    return s;
}

void shc_sse_free(shc_sse *s)
{
    if (!s)
        return;
    free(s->line);
    free(s->data);
    free(s);
}

bool shc_sse_pending(const shc_sse *s)
{
    return s && (s->line_len > 0 || s->has_data || s->any_field);
}

size_t shc_sse_events(const shc_sse *s)
{
    return s ? s->events : 0;
}

static int grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    char *p = realloc(*buf, n);
    if (!p)
        return SHC_E_NOMEM;
    *buf = p;
    *cap = n;
    return 0;
}

static int dispatch(shc_sse *s, shc_sse_event_fn fn, void *payload)
{
    int rc = 0;
    if (s->has_data) {
        /* data is kept NUL-terminated by append_data */
        s->events++;
        rc = fn(payload, s->event[0] ? s->event : "message", s->data, s->data_len);
    }
    s->data_len = 0;
    if (s->data)
        s->data[0] = '\0';
    s->has_data = false;
    s->any_field = false;
    s->event[0] = '\0';
    return rc;
}

static int append_data(shc_sse *s, const char *v, size_t n)
{
    size_t extra = (s->has_data ? 1 : 0) + n;
    if (s->data_len + extra + 1 > s->max)
        return SHC_E_LIMIT;
    int rc = grow(&s->data, &s->data_cap, s->data_len + extra + 1);
    if (rc)
        return rc;
    if (s->has_data)
        s->data[s->data_len++] = '\n';
    memcpy(s->data + s->data_len, v, n);
    s->data_len += n;
    s->data[s->data_len] = '\0';
    s->has_data = true;
    return 0;
}

/* One complete line (without its terminator). */
static int process_line(shc_sse *s, const char *l, size_t n, shc_sse_event_fn fn, void *payload)
{
    if (n == 0)
        return dispatch(s, fn, payload);
    if (l[0] == ':')
        return 0; /* comment: keep-alive */
    s->any_field = true;
    const char *colon = memchr(l, ':', n);
    size_t fn_len = colon ? (size_t)(colon - l) : n;
    const char *v = colon ? colon + 1 : l + n;
    size_t vn = colon ? n - fn_len - 1 : 0;
    if (vn > 0 && v[0] == ' ') {
        v++;
        vn--;
    }
    if (fn_len == 4 && !memcmp(l, "data", 4))
        return append_data(s, v, vn);
    if (fn_len == 5 && !memcmp(l, "event", 5)) {
        size_t k = vn < sizeof s->event - 1 ? vn : sizeof s->event - 1;
        memcpy(s->event, v, k);
        s->event[k] = '\0';
    }
    return 0; /* id, retry and unknown fields: nothing we use */
}

int shc_sse_feed(shc_sse *s, const char *buf, size_t len, shc_sse_event_fn fn, void *payload)
{
    if (s->broken)
        return SHC_E_LIMIT;
    size_t i = 0;
    while (i < len) {
        if (s->after_cr) {
            s->after_cr = false;
            if (buf[i] == '\n') {
                i++;
                continue;
            }
        }
        /* find the end of the line in this chunk */
        size_t j = i;
        while (j < len && buf[j] != '\n' && buf[j] != '\r')
            j++;
        const char *line;
        size_t n;
        if (j == len) { /* no terminator yet: keep the partial line */
            if (s->line_len + (j - i) + 1 > s->max) {
                s->broken = true;
                return SHC_E_LIMIT;
            }
            int rc = grow(&s->line, &s->line_cap, s->line_len + (j - i) + 1);
            if (rc)
                return rc;
            memcpy(s->line + s->line_len, buf + i, j - i);
            s->line_len += j - i;
            return 0;
        }
        if (s->line_len > 0) { /* join the kept part with this one */
            if (s->line_len + (j - i) + 1 > s->max) {
                s->broken = true;
                return SHC_E_LIMIT;
            }
            int rc = grow(&s->line, &s->line_cap, s->line_len + (j - i) + 1);
            if (rc)
                return rc;
            memcpy(s->line + s->line_len, buf + i, j - i);
            s->line_len += j - i;
            line = s->line;
            n = s->line_len;
        } else { /* the same limit as a line kept across reads: chunking must not matter */
            if ((j - i) + 1 > s->max) {
                s->broken = true;
                return SHC_E_LIMIT;
            }
            line = buf + i;
            n = j - i;
        }
        if (buf[j] == '\r')
            s->after_cr = true;
        i = j + 1;
        int rc = process_line(s, line, n, fn, payload);
        s->line_len = 0;
        if (rc == SHC_E_LIMIT)
            s->broken = true;
        if (rc)
            return rc;
    }
    return 0;
}
