/* libcurl multi on the shcard loop.  curl tells us which sockets to watch and when to call it
 * back; we translate that to loop watchers and one loop timer, and hand every readiness event to
 * curl_multi_socket_action.  Finished transfers are collected with curl_multi_info_read outside
 * of any curl callback, so a done callback may start or cancel requests freely.
 *
 * libcurl is loaded with dlopen when the first client is made, not linked: linked with
 * BIND_NOW, it and the 30 libraries it pulls in (TLS, Kerberos, LDAP, ...) cost every shcard
 * process about 9 ms at start, ten times what `shcard explain CMD` needs for the rest of its
 * work, and only the model backend ever uses it.  The functions are looked up into the client
 * (struct shc_curl), so there is no process-wide state of ours; the library stays loaded
 * (RTLD_NODELETE: TLS libraries register exit handlers). */
#include "model/http.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"

/* The libcurl functions this file calls, looked up by name in libcurl.so.4. */
#define SHC_CURL_FUNCS(X)                                                                         \
    X(global_init) X(global_cleanup) X(easy_init) X(easy_cleanup) X(easy_setopt) X(easy_getinfo) \
    X(easy_strerror) X(slist_append) X(slist_free_all) X(multi_init) X(multi_cleanup)            \
    X(multi_setopt) X(multi_add_handle) X(multi_remove_handle) X(multi_assign)                  \
    X(multi_socket_action) X(multi_info_read)

typedef struct shc_curl {
#define SHC_CURL_FIELD(name) __typeof__(curl_##name) *name;
    SHC_CURL_FUNCS(SHC_CURL_FIELD)
#undef SHC_CURL_FIELD
} shc_curl;

/* Fills c from libcurl.so.4; 0, or -1 with the loader's reason in err. */
static int curl_load(shc_curl *c, char *err, size_t cap)
{
    void *dl = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!dl) {
        const char *e = dlerror();
        snprintf(err, cap, "%s", e ? e : "libcurl.so.4: cannot be loaded");
        return -1;
    }
#define SHC_CURL_SYM(name)                                                                        \
    {                                                                                             \
        void *sym = dlsym(dl, "curl_" #name);                                                     \
        if (!sym) {                                                                               \
            snprintf(err, cap, "libcurl.so.4 has no curl_" #name);                               \
            dlclose(dl);                                                                          \
            return -1;                                                                            \
        }                                                                                         \
        memcpy(&c->name, &sym, sizeof sym); /* ISO C has no object-to-function pointer cast */  \
    }
    SHC_CURL_FUNCS(SHC_CURL_SYM)
#undef SHC_CURL_SYM
    dlclose(dl); /* RTLD_NODELETE: the functions stay mapped */
    return 0;
}

struct shc_http {
    shc_curl api;
    shc_loop *loop;
    CURLM *multi;
    int timer_id; /* loop timer for curl's timeout, 0 = none */
    int active;
    shc_http_req *reqs; /* requests in flight (a list: curl 7.88 has no multi_get_handles) */
    int *watch_ids;     /* loop watchers this client registered (0 = free slot) */
    size_t nwatch, capwatch;
    int detached;       /* freeing: curl's callbacks no longer change loop registrations */
};

/* Every loop watcher is remembered, so that freeing the client removes them all even when curl
 * does not report a socket's removal (multi_cleanup closes cached connections silently). */
static int watch_add(shc_http *h, int id)
{
    for (size_t i = 0; i < h->nwatch; i++)
        if (!h->watch_ids[i]) {
            h->watch_ids[i] = id;
            return 0;
        }
    if (h->nwatch == h->capwatch) {
        size_t cap = h->capwatch ? h->capwatch * 2 : 8;
        int *n = realloc(h->watch_ids, cap * sizeof *n);
        if (!n)
            return -1;
        h->watch_ids = n;
        h->capwatch = cap;
    }
    h->watch_ids[h->nwatch++] = id;
    return 0;
}

static void watch_drop(shc_http *h, int id)
{
    for (size_t i = 0; i < h->nwatch; i++)
        if (h->watch_ids[i] == id)
            h->watch_ids[i] = 0;
}

struct shc_http_req {
    shc_http *h;
    CURL *easy;
    struct curl_slist *headers; /* owned */
    char *body;                 /* owned copy */
    shc_http_cbs cbs;
    void *payload;
    int in_body;   /* inside the body callback */
    int cancelled; /* cancelled from inside the body callback: free silently */
    int aborted;   /* the body callback asked to stop */
    long idle_ms;      /* abort after this long without a byte */
    uint64_t last_ms;  /* when the last byte (or the start) was */
    int idle_timer;    /* loop timer, 0 = none */
    int by_caller;     /* only shc_http_progress counts as activity */
    long total_ms;     /* the whole transfer's deadline, 0 = none */
    int total_timer;
    shc_http_req *next, *prev;
    char errbuf[CURL_ERROR_SIZE];
};

static void unlink_req(shc_http_req *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else if (r->h->reqs == r)
        r->h->reqs = r->next;
    if (r->next)
        r->next->prev = r->prev;
    r->next = r->prev = NULL;
}

static void req_free(shc_http_req *r)
{
    if (!r)
        return;
    if (r->idle_timer)
        shc_loop_cancel_timer(r->h->loop, r->idle_timer);
    r->idle_timer = 0;
    if (r->total_timer && !r->h->detached)
        shc_loop_cancel_timer(r->h->loop, r->total_timer);
    r->total_timer = 0;
    if (r->easy) {
        r->h->api.multi_remove_handle(r->h->multi, r->easy);
        r->h->api.easy_cleanup(r->easy);
        r->h->active--;
        unlink_req(r);
    }
    r->h->api.slist_free_all(r->headers);
    free(r->body);
    free(r);
}

static void check_done(shc_http *h)
{
    CURLMsg *m;
    int left;
    while ((m = h->api.multi_info_read(h->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        CURLcode cc = m->data.result;
        shc_http_req *r = NULL;
        h->api.easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        if (!r)
            continue;
        long status = 0;
        h->api.easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
        curl_off_t ra = -1;
        if (h->api.easy_getinfo(r->easy, CURLINFO_RETRY_AFTER, &ra) != CURLE_OK || ra <= 0)
            ra = -1;
        shc_http_result res = {.status = status, .retry_after = (long)ra};
        char msg[CURL_ERROR_SIZE + 64];
        if (r->aborted) {
            res.failed = 1;
            res.error = "aborted";
        } else if (cc != CURLE_OK) {
            res.failed = 1;
            const char *detail = r->errbuf[0] ? r->errbuf : h->api.easy_strerror(cc);
            if (cc == CURLE_OPERATION_TIMEDOUT)
                snprintf(msg, sizeof msg, "timed out (%s)", detail);
            else if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST)
                snprintf(msg, sizeof msg, "could not connect (%s)", detail);
            else
                snprintf(msg, sizeof msg, "transfer failed (%s)", detail);
            res.error = msg;
        }
        int silent = r->cancelled;
        /* leave the multi first: callbacks may start new transfers */
        h->api.multi_remove_handle(h->multi, r->easy);
        h->api.easy_cleanup(r->easy);
        r->easy = NULL;
        h->active--;
        unlink_req(r);
        if (!silent && r->cbs.done)
            r->cbs.done(r->payload, &res);
        req_free(r);
    }
}

static void on_fd(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    shc_http *h = payload;
    int flags = 0;
    if (events & SHC_LOOP_READ)
        flags |= CURL_CSELECT_IN;
    if (events & SHC_LOOP_WRITE)
        flags |= CURL_CSELECT_OUT;
    int running;
    h->api.multi_socket_action(h->multi, fd, flags, &running);
    check_done(h);
}

static void on_timer(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_http *h = payload;
    h->timer_id = 0;
    int running;
    h->api.multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(h);
}

static int socket_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
    (void)easy;
    shc_http *h = userp;
    int id = (int)(intptr_t)socketp;
    if (h->detached)
        return 0;
    if (what == CURL_POLL_REMOVE) {
        if (id > 0) {
            shc_loop_unwatch(h->loop, id);
            watch_drop(h, id);
        }
        h->api.multi_assign(h->multi, s, NULL);
        return 0;
    }
    unsigned ev = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
        ev |= SHC_LOOP_READ;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
        ev |= SHC_LOOP_WRITE;
    if (id > 0) {
        shc_loop_set_events(h->loop, id, ev);
        return 0;
    }
    id = shc_loop_watch(h->loop, s, ev, on_fd, h);
    if (id < 0)
        return -1;
    if (watch_add(h, id) < 0) {
        shc_loop_unwatch(h->loop, id);
        return -1;
    }
    h->api.multi_assign(h->multi, s, (void *)(intptr_t)id);
    return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    (void)multi;
    shc_http *h = userp;
    if (h->detached)
        return 0;
    if (h->timer_id)
        shc_loop_cancel_timer(h->loop, h->timer_id);
    h->timer_id = 0;
    if (timeout_ms < 0)
        return 0;
    int id = shc_loop_timer(h->loop, (uint64_t)timeout_ms, on_timer, h);
    if (id < 0)
        return -1;
    h->timer_id = id;
    return 0;
}

/* A response header line (cbs.header, when set). */
static size_t header_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    shc_http_req *r = userdata;
    size_t n = size * nmemb;
    if (!r->cancelled && !r->aborted && r->cbs.header)
        r->cbs.header(r->payload, ptr, n);
    return n;
}

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    shc_http_req *r = userdata;
    size_t n = size * nmemb;
    if (r->cancelled || r->aborted)
        return 0;
    long status = 0;
    r->h->api.easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    if (!r->by_caller)
        r->last_ms = shc_loop_now_ms();
    r->in_body = 1;
    int stop = r->cbs.body ? r->cbs.body(r->payload, status, ptr, n) : 0;
    r->in_body = 0;
    if (r->cancelled)
        return 0;
    if (stop) {
        r->aborted = 1;
        return 0;
    }
    return n;
}

/* Ends a transfer from a timer: done reports it failed with msg. */
static void give_up(shc_http_req *r, const char *msg)
{
    long status = 0;
    r->h->api.easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    shc_http_result res = {.status = status, .failed = 1, .error = msg, .retry_after = -1};
    void (*done)(void *, const shc_http_result *) = r->cbs.done;
    void *p = r->payload;
    req_free(r); /* leaves the multi first: done may start new transfers */
    if (done)
        done(p, &res);
}

/* The idle timeout: a stream that goes silent (no byte, not even a keep-alive comment) for
 * idle_ms fails.  The timer is re-armed lazily from the last activity, not on every byte. */
static void on_idle(shc_loop *loop, void *payload)
{
    shc_http_req *r = payload;
    r->idle_timer = 0;
    uint64_t now = shc_loop_now_ms(), quiet = now - r->last_ms;
    if (quiet < (uint64_t)r->idle_ms) {
        r->idle_timer = shc_loop_timer(loop, (uint64_t)r->idle_ms - quiet, on_idle, r);
        return;
    }
    char msg[96];
    snprintf(msg, sizeof msg, "timed out (no %s for %ld s)", r->by_caller ? "progress" : "data",
             r->idle_ms / 1000);
    give_up(r, msg);
}

/* The whole transfer's deadline: whatever the server sends, it ends. */
static void on_total(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_http_req *r = payload;
    r->total_timer = 0;
    char msg[96];
    snprintf(msg, sizeof msg, "timed out (the request took over %ld s in all)", r->total_ms / 1000);
    give_up(r, msg);
}

void shc_http_progress(shc_http_req *r)
{
    if (r)
        r->last_ms = shc_loop_now_ms();
}

shc_http *shc_http_new(shc_loop *loop, char *err, size_t cap)
{
    shc_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    if (curl_load(&h->api, err, cap) < 0) {
        free(h);
        return NULL;
    }
    if (h->api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, cap, "curl_global_init failed");
        free(h);
        return NULL;
    }
    h->loop = loop;
    h->multi = h->api.multi_init();
    if (!h->multi) {
        snprintf(err, cap, "curl_multi_init failed");
        h->api.global_cleanup();
        free(h);
        return NULL;
    }
    h->api.multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
    h->api.multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
    h->api.multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
    h->api.multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
    return h;
}

void shc_http_free(shc_http *h)
{
    if (!h)
        return;
    /* The loop may keep running after this (a backend replaced while the agent serves): every
     * registration whose payload is h or one of its requests goes now, and curl's callbacks
     * stop registering new ones before the transfers are torn down. */
    h->detached = 1;
    while (h->reqs)
        req_free(h->reqs); /* cancels each request's idle timer */
    if (h->timer_id)
        shc_loop_cancel_timer(h->loop, h->timer_id);
    h->timer_id = 0;
    for (size_t i = 0; i < h->nwatch; i++)
        if (h->watch_ids[i])
            shc_loop_unwatch(h->loop, h->watch_ids[i]);
    free(h->watch_ids);
    h->api.multi_cleanup(h->multi);
    h->api.global_cleanup();
    free(h);
}

int shc_http_post(
    shc_http_req **out, shc_http *h, const shc_http_opts *o, const shc_http_cbs *cbs, void *payload)
{
    *out = NULL;
    shc_http_req *r = calloc(1, sizeof *r);
    if (!r)
        return SHC_E_NOMEM;
    r->h = h;
    r->cbs = *cbs;
    r->payload = payload;
    if (o->body) {
        r->body = malloc(o->body_len + 1);
        if (!r->body)
            goto nomem;
        memcpy(r->body, o->body, o->body_len);
        r->body[o->body_len] = '\0';
    }
    for (size_t i = 0; o->headers && o->headers[i]; i++) {
        struct curl_slist *l = h->api.slist_append(r->headers, o->headers[i]);
        if (!l)
            goto nomem;
        r->headers = l;
    }
    r->easy = h->api.easy_init();
    if (!r->easy)
        goto nomem;
    CURL *e = r->easy;
    h->api.easy_setopt(e, CURLOPT_URL, o->url);
    if (r->body) {
        h->api.easy_setopt(e, CURLOPT_POST, 1L);
        h->api.easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
        h->api.easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)o->body_len);
    } else {
        h->api.easy_setopt(e, CURLOPT_HTTPGET, 1L);
    }
    h->api.easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    h->api.easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
    h->api.easy_setopt(e, CURLOPT_WRITEDATA, r);
    if (cbs->header) {
        h->api.easy_setopt(e, CURLOPT_HEADERFUNCTION, header_cb);
        h->api.easy_setopt(e, CURLOPT_HEADERDATA, r);
    }
    h->api.easy_setopt(e, CURLOPT_PRIVATE, (char *)r);
    h->api.easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    h->api.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    h->api.easy_setopt(e, CURLOPT_NOPROGRESS, 1L);
    h->api.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    h->api.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 10000L);
    if (!o->no_decode) /* whatever this curl decodes */
        h->api.easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    h->api.easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    if (h->api.multi_add_handle(h->multi, e) != CURLM_OK) {
        h->api.easy_cleanup(e);
        r->easy = NULL;
        h->api.slist_free_all(r->headers);
        free(r->body);
        free(r);
        return SHC_E_IO;
    }
    r->idle_ms = (o->idle_timeout_s > 0 ? o->idle_timeout_s : 120L) * 1000L;
    r->last_ms = shc_loop_now_ms();
    r->idle_timer = shc_loop_timer(h->loop, (uint64_t)r->idle_ms, on_idle, r);
    r->by_caller = o->progress_by_caller;
    r->total_ms = o->total_timeout_s > 0 ? o->total_timeout_s * 1000L : 0;
    if (r->total_ms)
        r->total_timer = shc_loop_timer(h->loop, (uint64_t)r->total_ms, on_total, r);
    h->active++;
    r->next = h->reqs;
    if (h->reqs)
        h->reqs->prev = r;
    h->reqs = r;
    *out = r;
    return 0;
nomem:
    h->api.slist_free_all(r->headers);
    free(r->body);
    free(r);
    return SHC_E_NOMEM;
}

void shc_http_cancel(shc_http_req *r)
{
    if (!r)
        return;
    if (r->in_body) { /* curl is on the stack: stop through the write callback's return */
        r->cancelled = 1;
        return;
    }
    req_free(r);
}

void shc_http_max_connections(shc_http *h, long n)
{
    if (!h || n <= 0)
        return;
    h->api.multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, n);
    h->api.multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, n);
    h->api.multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, n);
}

int shc_http_active(const shc_http *h)
{
    return h ? h->active : 0;
}
