/* HTTP POST requests with libcurl's multi interface, driven by an shc_loop: curl's sockets are
 * loop watchers and its timeout is a loop timer (CURLMOPT_SOCKETFUNCTION/TIMERFUNCTION and
 * curl_multi_socket_action).  No threads and no blocking call; bodies stream to a callback.
 *
 * Ownership: shc_http is owned by the caller and must outlive its requests.  Free it at any
 * time before shc_loop_free, also from a loop callback while the loop keeps running: it aborts
 * what is left and removes every loop timer and watcher it registered.  A request is owned by the module: it is freed right
 * after its done callback returns, or at once by shc_http_cancel (then done is never called).
 * Strings passed to callbacks are borrowed for the duration of the call. */
#ifndef SHC_HTTP_H
#define SHC_HTTP_H

#include <stddef.h>

#include "base/loop.h"

typedef struct shc_http shc_http;
typedef struct shc_http_req shc_http_req;

typedef struct shc_http_result {
    long status;       /* HTTP status, 0 when no response came */
    int failed;        /* 1 when the transfer failed (connection, timeout, cut); error says why */
    const char *error; /* NULL on success */
    long retry_after;  /* seconds from a Retry-After header, or -1 */
} shc_http_result;

typedef struct shc_http_cbs {
    /* Response body bytes as they arrive.  Return 0 to go on, nonzero to abort the transfer
     * (done then reports failed with error "aborted"). */
    int (*body)(void *payload, long status, const char *buf, size_t len);
    void (*done)(void *payload, const shc_http_result *res);
    /* Optional (may be NULL): each response header line as it arrives (with its CRLF). */
    void (*header)(void *payload, const char *line, size_t len);
} shc_http_cbs;

typedef struct shc_http_opts {
    const char *url;
    const char *body; /* copied; NULL for a GET */
    size_t body_len;
    const char *const *headers; /* NULL-terminated "Name: value" lines, copied */
    long connect_timeout_ms;    /* 0 = 10 s */
    long idle_timeout_s;        /* fail after this long without a byte (connecting included);
                                   0 = 120 s */
    int progress_by_caller;     /* idle means no shc_http_progress call, not no byte */
    long total_timeout_s;       /* fail after this long in all; 0 = never */
    int no_decode;              /* send no Accept-Encoding: the body arrives as sent, so its
                                   bytes on the wire are the bytes the callback gets */
} shc_http_opts;

/* NULL when libcurl cannot be loaded or started; err then says why. */
shc_http *shc_http_new(shc_loop *loop, char *err, size_t cap);
void shc_http_free(shc_http *h);

/* Starts a POST (a GET when o->body is NULL).  Returns 0 and *out (borrowed handle, valid until done returns or cancel), or
 * SHC_E_NOMEM / SHC_E_IO. */
int shc_http_post(shc_http_req **out,
                  shc_http *h,
                  const shc_http_opts *o,
                  const shc_http_cbs *cbs,
                  void *payload);

/* Aborts the transfer now (closing its connection); done is not called.  NULL-safe; safe from
 * inside the request's own body callback. */
void shc_http_cancel(shc_http_req *r);

/* The caller saw progress (progress_by_caller): the idle timeout starts again. */
void shc_http_progress(shc_http_req *r);

/* At most n connections open at once (to all hosts, kept idle ones included); transfers past
 * it wait inside libcurl for a free one. */
void shc_http_max_connections(shc_http *h, long n);

/* Transfers in flight. */
int shc_http_active(const shc_http *h);

#endif
