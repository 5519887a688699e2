/* The streamable HTTP transport (MCP 2025-06-18): each message the client sends is one POST
 * of JSON to the server's URL with the entry's headers, Accept: application/json,
 * text/event-stream, the Mcp-Session-Id the server gave (from its initialize answer on), and
 * MCP-Protocol-Version once negotiated.  The answer is a JSON body or an event stream whose
 * events are messages; both are fed to the rpc as lines (a raw newline in JSON is only ever
 * whitespace, so it becomes a space).  Each POST frames its own answer: a JSON body is kept
 * whole in its post and fed as one line when its transfer ends (an event whenever it is
 * complete), so answers of transfers running side by side never mix in the rpc's line
 * reader, and the rest of an over-long answer cannot swallow the next one.  An HTTP error, a cut connection or an answer over the
 * message limit answers the request it carried with a JSON-RPC error, so a call fails with a
 * reason instead of waiting for its timeout.  libcurl runs on the loop (model/http.c).
 * POSTs may run side by side (the spec allows it: a request goes out while an earlier answer
 * still streams), at most SHC_MCP_HTTP_TRANSFERS at once over as many connections; the others
 * wait in order (flow.c fails a server that lets too many wait).  Only the identity coding is
 * accepted (libcurl decodes nothing), and each POST's answer has a byte budget and a time limit (short for one that carries no
 * request), so neither a compressed body nor an endless stream costs without a bound.
 * libcurl refuses a new transfer from inside one of its own callbacks, so a message written
 * from there (initialize's answer read from an event stream sends tools/list)
 * waits for the next loop turn; and a transfer is never freed from inside its own callback: it
 * is marked dead and freed once the callback returned. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/sse.h"
#include "rpc/rpc_scan.h"
#include "shcard.h"

#define ERR_KEEP 512 /* bytes of an error body kept for the message */

typedef struct mcp_post {
    struct mcp_post *next;
    mcp_server *s;
    shc_http_req *req;
    json_t *id;       /* owned: the id of the request it carries, or NULL (once answered) */
    json_t *carried;  /* owned: that id, kept (shc__mcp_http_abandon finds the post by it) */
    char *line;       /* owned: the message, until its transfer starts */
    size_t len;
    bool sse, fed;
    bool over;        /* stopped past its byte budget (said once, in the log) */
    bool running;     /* its transfer runs (counted in s->running) */
    const char *what; /* what it carries, for the log: a request, an answer, a notification */
    size_t got;       /* bytes of its answer so far (SHC_MCP_STREAM_BYTES) */
    bool busy;        /* one of its callbacks runs */
    bool dead;        /* stopped while busy: freed when the callback returns */
    shc_sse *parser;
    char *json;       /* owned: the JSON body so far, newlines made spaces */
    size_t jlen, jcap;
    char err[ERR_KEEP + 1];
    size_t errlen;
} mcp_post;

static void start_queued(shc_loop *loop, void *payload);

static void post_free(mcp_post *p)
{
    mcp_server *s = p->s;
    for (mcp_post **pp = &s->posts; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    if (p->line) {
        s->waiting--;
        s->waiting_bytes -= p->len;
        free(p->line);
        p->line = NULL;
    }
    if (p->running) {
        p->running = false;
        s->running--;
        if (s->waiting && !s->post_timer && s->state != MS_FAILED && !s->m->freeing) {
            int t = shc_loop_timer(s->m->env.loop, 0, start_queued, s);
            s->post_timer = t > 0 ? t : 0;
        }
    }
    if (p->busy) { /* its callback is on the stack: it frees it when it returns */
        shc_http_cancel(p->req); /* inside the body callback: only marks it (model/http.c) */
        p->req = NULL;
        p->dead = true;
        return;
    }
    shc_http_cancel(p->req);
    free(p->line);
    json_decref(p->id);
    json_decref(p->carried);
    shc_sse_free(p->parser);
    free(p->json);
    free(p);
}

/* The request p carried ends with an error (fed as the server's answer). */
static void answer_error(mcp_post *p, const char *msg)
{
    if (!p->id)
        return;
    json_t *e = json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", p->id, "error", "code",
                          -32603, "message", msg);
    char *t = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    json_decref(p->id);
    p->id = NULL;
    if (!t)
        return;
    p->s->up->feed(p->s, t, strlen(t));
    p->s->up->feed(p->s, "\n", 1);
    free(t);
}

static void feed_json(mcp_server *s, const char *buf, size_t len)
{
    char tmp[8192];
    while (len > 0) {
        size_t n = len < sizeof tmp ? len : sizeof tmp;
        for (size_t i = 0; i < n; i++)
            tmp[i] = buf[i] == '\n' || buf[i] == '\r' ? ' ' : buf[i];
        s->up->feed(s, tmp, n);
        buf += n;
        len -= n;
    }
}

static int on_event(void *payload, const char *event, const char *data, size_t len)
{
    mcp_post *p = payload;
    (void)event;
    if (len == 0)
        return 0;
    feed_json(p->s, data, len);
    p->s->up->feed(p->s, "\n", 1);
    json_decref(p->id); /* answered (or the server's own message: it answers later) */
    p->id = NULL;
    return 0;
}

static void on_header(void *payload, const char *line, size_t len)
{
    mcp_post *p = payload;
    mcp_server *s = p->s;
    static const char ct[] = "content-type:", sid[] = "mcp-session-id:";
    if (len > sizeof ct && !strncasecmp(line, ct, sizeof ct - 1)) {
        const char *v = line + sizeof ct - 1;
        while (*v == ' ')
            v++;
        p->sse = !strncasecmp(v, "text/event-stream", 17);
    } else if (len > sizeof sid && !strncasecmp(line, sid, sizeof sid - 1) && !s->session_id) {
        const char *v = line + sizeof sid - 1;
        size_t n = len - (sizeof sid - 1);
        while (n && *v == ' ') {
            v++;
            n--;
        }
        while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' '))
            n--;
        bool ok = n > 0 && n < 256;
        for (size_t i = 0; ok && i < n; i++)
            ok = v[i] >= 0x21 && v[i] <= 0x7e; /* visible ASCII, as the spec says */
        if (ok)
            s->session_id = strndup(v, n);
    }
}

static int body(mcp_post *p, long status, const char *buf, size_t len)
{
    if (p->s->state == MS_FAILED)
        return 1;
    /* a stream of events never ends by itself; an answer or a notification is answered by
     * 202 and no body: one that comes is read for a while, not forever */
    size_t budget = p->carried ? SHC_MCP_STREAM_BYTES : SHC_MCP_NOTE_BYTES;
    p->got += len;
    if (p->got > budget) {
        char msg[128];
        p->over = true;
        snprintf(msg, sizeof msg, "the answer passed %zu bytes in all: its transfer stops",
                 budget);
        shc__mcp_log_line(p->s, "%s: %s", p->what, msg);
        if (!p->id && p->carried) /* an event came: the answer may still be to come (else the */
            p->id = json_incref(p->carried); /* rpc ignores this one: its id is answered) */
        answer_error(p, msg);
        return 1;
    }
    if (status < 200 || status >= 300) {
        size_t room = ERR_KEEP - p->errlen;
        size_t n = len < room ? len : room;
        memcpy(p->err + p->errlen, buf, n);
        p->errlen += n;
        return 0;
    }
    if (p->sse) {
        if (!p->parser && !(p->parser = shc_sse_new(SHC_MCP_MAX_LINE)))
            return 1;
        int rc = shc_sse_feed(p->parser, buf, len, on_event, p);
        if (rc != 0) {
            answer_error(p, rc == SHC_E_LIMIT ? "an event of the answer is larger than the limit"
                                              : "the event stream cannot be read");
            return 1;
        }
        return 0;
    }
    if (len > SHC_MCP_MAX_LINE - p->jlen) {
        char msg[128];
        snprintf(msg, sizeof msg, "the answer is larger than the limit of %zu bytes",
                 (size_t)SHC_MCP_MAX_LINE);
        answer_error(p, msg);
        free(p->json);
        p->json = NULL;
        p->jlen = p->jcap = 0;
        p->fed = false;
        return 1;
    }
    if (p->jlen + len > p->jcap) {
        size_t cap = p->jcap ? p->jcap : 4096;
        while (cap < p->jlen + len)
            cap *= 2;
        if (cap > SHC_MCP_MAX_LINE)
            cap = SHC_MCP_MAX_LINE;
        char *q = realloc(p->json, cap);
        if (!q) {
            answer_error(p, "out of memory for the answer");
            return 1;
        }
        p->json = q;
        p->jcap = cap;
    }
    for (size_t i = 0; i < len; i++)
        p->json[p->jlen + i] = buf[i] == '\n' || buf[i] == '\r' ? ' ' : buf[i];
    p->jlen += len;
    p->fed = true;
    return 0;
}

static int on_body(void *payload, long status, const char *buf, size_t len)
{
    mcp_post *p = payload;
    p->busy = true;
    int stop = body(p, status, buf, len);
    p->busy = false;
    if (p->dead) { /* stopped meanwhile: its transfer was cancelled */
        post_free(p);
        return 1;
    }
    return stop;
}

static void on_done(void *payload, const shc_http_result *res)
{
    mcp_post *p = payload;
    mcp_server *s = p->s;
    p->req = NULL;
    p->busy = true; /* a failure below stops the transport: this post is freed here */
    if (p->fed && !res->failed && res->status >= 200 && res->status < 300) {
        /* the whole JSON body, one line: a cut body is never parsed, its request fails below */
        shc_rpc_scan sc;
        shc__rpc_scan(p->json, p->jlen, &sc);
        bool answers = false; /* does the body carry the answer to p's request? */
        if (p->id && sc.object && sc.has_reply) {
            json_t *id = NULL;
            answers = shc__rpc_scan_id(&sc, &id) == SHC_RPC_ID_VALUE && json_equal(id, p->id);
            json_decref(id);
        }
        if (sc.object) { /* an HTML page for an answer is not the rpc's to parse */
            s->up->feed(s, p->json, p->jlen);
            if (s->state != MS_FAILED)
                s->up->feed(s, "\n", 1);
        }
        if (answers) {
            json_decref(p->id);
            p->id = NULL;
        } else if (p->id && s->state != MS_FAILED) {
            answer_error(p, sc.object ? "the server's answer does not answer the request"
                                   : "the server's answer is not JSON");
        }
    } else {
        p->fed = false;
    }
    free(p->json);
    p->json = NULL;
    p->jlen = p->jcap = 0;
    char msg[ERR_KEEP + 200];
    if (res->failed && p->id) {
        snprintf(msg, sizeof msg, "HTTP: %s", res->error ? res->error : "the transfer failed");
        answer_error(p, msg);
    } else if ((res->status < 200 || res->status >= 300) && p->id) {
        p->err[p->errlen] = '\0';
        for (size_t i = 0; i < p->errlen; i++)
            if (!isprint((unsigned char)p->err[i]))
                p->err[i] = ' ';
        snprintf(msg, sizeof msg, "HTTP %ld%s%s", res->status, p->errlen ? ": " : "", p->err);
        answer_error(p, msg);
    } else if (p->id && res->status != 202 && !p->fed) {
        answer_error(p, "the server's answer held no message");
    } else if (res->failed && !p->over) {
        shc__mcp_log_line(s, "%s was not delivered: %.200s", p->what,
                          res->error ? res->error : "the transfer failed");
    } else if (res->status >= 300) {
        shc__mcp_log_line(s, "%s got HTTP %ld", p->what, res->status);
    }
    p->busy = false;
    post_free(p);
    if (s->state != MS_FAILED)
        s->up->flush(s);
}

static long call_s(const mcp_server *s)
{
    uint64_t ms = s->m->env.call_timeout_ms ? s->m->env.call_timeout_ms : SHC_MCP_CALL_TIMEOUT_MS;
    return (long)(ms / 1000);
}

/* Starts p's transfer (its message in p->line); on failure its request is answered with an
 * error and p goes. */
static void start(mcp_post *p)
{
    mcp_server *s = p->s;
    char sid[300] = "", ver[64] = "";
    if (s->session_id)
        snprintf(sid, sizeof sid, "Mcp-Session-Id: %s", s->session_id);
    if (s->proto)
        snprintf(ver, sizeof ver, "MCP-Protocol-Version: %s", s->proto);
    const char **h = calloc(s->nheaders + 6, sizeof *h);
    int rc = -1;
    if (h) {
        size_t n = 0;
        for (size_t i = 0; i < s->nheaders; i++)
            h[n++] = s->headers[i];
        h[n++] = "Content-Type: application/json";
        h[n++] = "Accept: application/json, text/event-stream";
        h[n++] = "Accept-Encoding: identity"; /* (no header would allow any coding) */
        if (sid[0])
            h[n++] = sid;
        if (ver[0])
            h[n++] = ver;
        shc_http_opts o = {
            .url = s->url,
            .body = p->line,
            .body_len = p->len,
            .headers = h,
            /* a request: its call's own timeout governs (client.c), this is the backstop of
             * a stream that goes on after its answer; an answer or a notification: short */
            .idle_timeout_s = p->carried ? 86400 : SHC_MCP_NOTE_TIMEOUT_S,
            .total_timeout_s = p->carried ? call_s(s) + 60 : 3 * SHC_MCP_NOTE_TIMEOUT_S,
            .no_decode = 1, /* no compression: the bytes counted are the bytes that came */
        };
        static const shc_http_cbs cbs = {on_body, on_done, on_header};
        rc = shc_http_post(&p->req, s->curl, &o, &cbs, p);
        free(h);
    }
    s->waiting--;
    s->waiting_bytes -= p->len;
    free(p->line);
    p->line = NULL;
    if (rc == 0) {
        p->running = true;
        s->running++;
    }
    if (rc != 0) {
        p->req = NULL;
        p->busy = true;
        answer_error(p, "HTTP: the request cannot be sent");
        p->busy = false;
        post_free(p);
    }
}

/* The messages written from inside a transfer's callback, started in order on the next turn. */
static void start_queued(shc_loop *loop, void *payload)
{
    (void)loop;
    mcp_server *s = payload;
    s->post_timer = 0;
    for (;;) {
        mcp_post *first = NULL;
        for (mcp_post *q = s->posts; q; q = q->next)
            if (q->line)
                first = q; /* the list is newest first: the last one is the oldest */
        if (!first || s->state == MS_FAILED || !s->curl ||
            s->running >= SHC_MCP_HTTP_TRANSFERS)
            break;
        start(first);
    }
    if (s->state != MS_FAILED)
        s->up->flush(s);
}

static bool any_busy(const mcp_server *s)
{
    for (const mcp_post *q = s->posts; q; q = q->next)
        if (q->busy || q->line)
            return true;
    return false;
}

static int post(mcp_server *s, const char *line, size_t len)
{
    mcp_post *p = calloc(1, sizeof *p);
    if (!p || !(p->line = malloc(len))) {
        free(p);
        return -1;
    }
    p->s = s;
    memcpy(p->line, line, len);
    p->len = len;
    json_t *msg = json_loadb(line, len, 0, NULL);
    json_t *id = json_object_get(msg, "id");
    if (id && json_object_get(msg, "method")) {
        p->id = json_incref(id);
        p->carried = json_incref(id);
    }
    p->what = p->carried ? "a request" : json_object_get(msg, "method") ? "a notification"
                                                                       : "an answer to the server";
    json_decref(msg);
    bool later = any_busy(s) || s->running >= SHC_MCP_HTTP_TRANSFERS;
    p->next = s->posts;
    s->posts = p;
    s->waiting++;
    s->waiting_bytes += len;
    if (!later) {
        start(p);
        return 0;
    }
    if (!s->post_timer) {
        int t = shc_loop_timer(s->m->env.loop, 0, start_queued, s);
        if (t <= 0) {
            post_free(p);
            return -1;
        }
        s->post_timer = t;
    }
    return 0;
}

ssize_t shc__mcp_http_write(void *io, const void *buf, size_t len)
{
    mcp_server *s = io;
    if (!s->curl || s->state == MS_FAILED) {
        errno = EPIPE;
        return -1;
    }
    if (s->wlen + len > s->wcap) {
        size_t cap = s->wcap ? s->wcap : 4096;
        while (cap < s->wlen + len)
            cap *= 2;
        char *q = realloc(s->wbuf, cap);
        if (!q) {
            errno = ENOMEM;
            return -1;
        }
        s->wbuf = q;
        s->wcap = cap;
    }
    memcpy(s->wbuf + s->wlen, buf, len);
    s->wlen += len;
    char *nl;
    while ((nl = memchr(s->wbuf, '\n', s->wlen))) {
        size_t n = (size_t)(nl - s->wbuf);
        if (n > 0 && post(s, s->wbuf, n) != 0) {
            errno = EIO;
            return -1;
        }
        memmove(s->wbuf, nl + 1, s->wlen - n - 1);
        s->wlen -= n + 1;
    }
    return (ssize_t)len;
}

/* The url as the log shows it: scheme://host[:port] (and "/…" for a path), without the user
 * and password, the path, the query or the fragment (where hosted servers' tokens often are). */
static void url_shown(const char *url, char *dst, size_t cap)
{
    const char *a = strstr(url, "://");
    a = a ? a + 3 : url;
    size_t auth = strcspn(a, "/?#");
    const char *host = a;
    for (const char *p = a; p < a + auth; p++)
        if (*p == '@')
            host = p + 1;
    /* no path either: hosted servers put tokens in it too */
    bool more = a[auth] && strcmp(a + auth, "/");
    snprintf(dst, cap, "%.*s%.*s%s", (int)(a - url), url, (int)(a + auth - host), host,
             more ? "/…" : "");
}

int shc__mcp_http_start(mcp_server *s)
{
    char err[256] = "";
    s->curl = shc_http_new(s->m->env.loop, err, sizeof err);
    if (!s->curl) {
        shc__mcp_up_fail(s, "HTTP is not available: %s", err[0] ? err : "libcurl cannot start");
        return -1;
    }
    shc_http_max_connections(s->curl, SHC_MCP_HTTP_TRANSFERS);
    char shown[512];
    url_shown(s->url, shown, sizeof shown);
    shc__mcp_log_line(s, "%s", shown);
    return 0;
}

void shc__mcp_http_abandon(mcp_server *s, int64_t id)
{
    json_t *want = json_integer((json_int_t)id);
    for (mcp_post *p = s->posts; want && p; p = p->next)
        if (p->carried && json_equal(p->carried, want)) {
            /* one per call that ends unanswered: not the server's to multiply */
            shc_log_info(s->m->env.log, "mcp %s: request %lld abandoned: its transfer stops",
                         s->name, (long long)id);
            json_decref(p->id); /* nobody waits for its answer any more */
            p->id = NULL;
            post_free(p); /* one whose callback runs is freed when it returns */
            break;
        }
    json_decref(want);
}

size_t shc__mcp_http_waiting(const mcp_server *s)
{
    return s->waiting_bytes;
}

/* A failure stops the transfers (the one whose callback runs ends by itself); libcurl goes
 * with the session (never from inside one of its own callbacks). */
void shc__mcp_http_stop(mcp_server *s)
{
    if (s->post_timer)
        shc_loop_cancel_timer(s->m->env.loop, s->post_timer);
    s->post_timer = 0;
    while (s->posts)
        post_free(s->posts); /* one whose callback runs is freed when it returns */
    shc__mcp_log_flush(s);
    if (s->m->freeing) {
        shc_http_free(s->curl);
        s->curl = NULL;
    }
}
