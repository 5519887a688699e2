/* Incremental server-sent-events parser (the WHATWG event-stream format).
 *
 * Feed it bytes as they arrive, split anywhere (even inside a CRLF); it calls back once per
 * dispatched event with the event's data (the `data:` lines joined by '\n').  Comment lines
 * (keep-alives starting with ':'), `id:`, `retry:` and unknown fields are skipped.  An event
 * larger than the limit is an error.  No I/O, no globals.
 *
 * Ownership: the parser is owned by the caller (shc_sse_free).  Strings passed to the callback
 * are borrowed for the duration of the call. */
#ifndef SHC_SSE_H
#define SHC_SSE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct shc_sse shc_sse;

/* One event.  event is the `event:` field ("message" when absent); data is NUL-terminated.
 * Return 0 to go on, or a negative value to stop: shc_sse_feed then returns that value. */
typedef int (*shc_sse_event_fn)(void *payload, const char *event, const char *data, size_t len);

#define SHC_SSE_MAX_EVENT_DEFAULT (8u * 1024u * 1024u)

/* max_event: the largest event (data plus one line) accepted; 0 = the default.  NULL on OOM. */
shc_sse *shc_sse_new(size_t max_event);
void shc_sse_free(shc_sse *s);

/* Parse len bytes.  Returns 0, SHC_E_LIMIT (event too large; the parser is then unusable),
 * SHC_E_NOMEM, or the callback's negative value. */
int shc_sse_feed(shc_sse *s, const char *buf, size_t len, shc_sse_event_fn fn, void *payload);

/* True when bytes of an event that was never dispatched are buffered (a stream cut mid-event). */
bool shc_sse_pending(const shc_sse *s);

/* Total events dispatched so far. */
size_t shc_sse_events(const shc_sse *s);

#endif
