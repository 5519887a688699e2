/* Internals of the model backend, shared by openai.c (the turn state machine and the seam's
 * ops) and request.c (one HTTP request and its event stream).  Not a public header.
 *
 * Dependency direction inside model/: openai.c -> models.c (GET /models) and -> request.c ->
 * context.c (what of the conversation fits the window) and body.c; openai.c and request.c ->
 * history.c (sessions and their conversation); all -> config.c (redaction), http.c, sse.c,
 * oai_delta.c.  request.c never calls openai.c by name: it reports how a request ended through
 * the turn's on_end function pointer. */
#ifndef SHC_OPENAI_INT_H
#define SHC_OPENAI_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/backend.h"
#include "model/http.h"
#include "model/oai_delta.h"
#include "model/openai.h"
#include "model/sse.h"

#define ERRBODY_MAX      2048 /* bytes of a non-2xx response body kept for the message */
#define ERRBODY_MS       5000 /* reading it stops after this long (it may never end) */
#define JSONRPC_INTERNAL (-32603)

typedef struct session {
    char *id;
    json_t *history; /* array of chat messages (owned) */
    char *model;     /* owned: the model this session picked, or NULL for the configured one */
    char *sandbox;   /* owned: the sandbox sentence for the tool's description, or NULL */
    json_t *tools;   /* owned: the tools besides bash (ops.set_tools) as request entries, or NULL */
    shc_tools_snap *snap; /* a reference: what the host made of them (ops.set_tools), or NULL */
    json_t *refused; /* owned: function names the model server refused to take (name -> true),
                      * left out of this session's requests from then on, or NULL */
    unsigned turns;  /* turns started, for made-up tool call ids */
    int refs;        /* 1 for the table + 1 per live turn */
    bool told_elided, told_dropped; /* the user was told that outputs / turns are left out */
    double bytes_per_token; /* measured from the server's usage; 0 = not yet */
    struct session *next;
} session;

typedef struct openai {
    shc_backend base; /* first: the seam casts */
    char *model;
    char *url;      /* {base}/chat/completions */
    char *base_url; /* for messages */
    char *auth;     /* "Authorization: Bearer ..." or NULL (wiped on free) */
    char *key;      /* for redaction (wiped on free) */
    char *system_prompt;
    long max_requests;
    long idle_timeout_s;
    long deadline_s; /* one request, start to end */
    long tool_output_limit; /* bytes of a tool result's text for the model */
    long context_window;    /* configured tokens, or 0 */
    json_t *windows;        /* model id -> context window, from GET /models (owned, or NULL) */
    struct models_req *models_req; /* the GET /models in flight (models.c), or NULL */
    shc_loop *loop;
    shc_http *http;
    session *sessions;
} openai;

typedef enum step { STEP_NONE, STEP_REQUEST, STEP_DISPATCH, STEP_REPORT } step;

/* How a request ended, as request.c reports it to the turn. */
typedef enum oai_end {
    OAI_END_MESSAGE, /* a complete assistant message is in t->delta */
    OAI_END_RETRY,   /* 429/5xx within the attempt budget: ask again after retry_ms */
    OAI_END_FAIL,    /* error holds the message (already redacted) */
    OAI_END_LIMIT,   /* the turn's request budget is spent (max_turn_requests) */
} oai_end;
typedef enum tstate { T_REQUEST, T_BACKOFF, T_TOOLS, T_DONE } tstate;

struct shc_backend_turn {
    openai *be;
    session *s;
    shc_loop *loop;
    shc_backend_host host;
    char *cwd;
    tstate state;
    size_t history_at_start; /* history length before the user message */
    long requests;           /* completions asked for in this turn */
    int attempt;             /* failed attempts of the current request */
    shc_http_req *req;
    shc_sse *sse;
    shc_oai_delta *delta;
    bool streamed; /* some 2xx body arrived */
    /* text deltas of one network read, passed on as one chunk (kind: 0 none, 1 text, 2 thought) */
    int pend_kind;
    char *pend;
    size_t pend_len, pend_cap;
    int stream_rc; /* first stream error */
    char stream_err[256];
    char errbody[ERRBODY_MAX + 1];
    uint64_t errbody_t0; /* when its first byte came */
    size_t errbody_len;
    json_t *calls;    /* tool_calls of the last assistant message (borrowed from history) */
    size_t next_call; /* next one to dispatch */
    char *waiting;    /* call id the bridge is running, or NULL */
    int timer;        /* the one pending step timer, 0 = none */
    step next_step;
    /* the outcome, reported by the REPORT step */
    shc_stop_reason reason;
    int code;
    char *error;
    size_t req_bytes; /* size of the last request body (for bytes per token) */
    /* the tools the last request showed the model (references): its calls are of these */
    json_t *req_tools;
    shc_tools_snap *req_snap;
    /* set by openai.c: how request.c reports the end of a request (error: OAI_END_FAIL) */
    void (*on_end)(shc_backend_turn *t, oai_end end, uint64_t retry_ms, const char *error);
};

/* request.c: streams the next request of the turn; its end comes back through t->on_end
 * (possibly from inside this call, when the request cannot start). */
void shc__oai_start_request(shc_backend_turn *t);
/* request.c: aborts the transfer in flight, if any (no on_end follows). */
void shc__oai_stop_transfer(shc_backend_turn *t);
/* request.c: the model a session talks to. */
const char *shc__oai_model(const openai *be, const session *s);

/* history.c: the sessions' table and their conversations.  Every change to a conversation goes
 * through hist_append / hist_cut, which report it to the host (backend.h: history). */
session *shc__oai_session(openai *be, const char *id, bool create);
void shc__oai_session_unref(session *s);
/* history.c: ops.set_tools, the session's tools besides bash (and the host's snapshot of them) */
int shc__oai_set_tools(shc_backend *be, const char *session_id, const char *tools_json,
                       shc_tools_snap *snap);
/* history.c: leaves the function `name` out of the session's requests from now on (the model
 * server refused its parameters); 0, or -1 when it was already left out or out of memory. */
int shc__oai_refuse_tool(session *s, const char *name);
void shc__oai_hist_append(shc_backend_turn *t, json_t *msg /* steals */);
void shc__oai_hist_cut(shc_backend_turn *t, size_t n);
/* The user message for a prompt's blocks: text as typed, @-mentions as paths (relative to cwd
 * inside it), embedded context appended as fenced blocks, images as image_url parts (only with
 * images).  A new reference, or NULL when out of memory. */
json_t *shc__oai_user_message(const shc_prompt_part *parts, size_t n, const char *cwd,
                              bool images);
/* ops.session_restore: entries parsed, repaired (every tool call answered), installed. */
int shc__oai_restore(shc_backend *be, const char *session_id, const char *const *entries,
                     size_t n);

/* context.c: the context window of a model (configured, else GET /models, else known model
 * families, else SHC_OAI_DEFAULT_WINDOW). */
#define SHC_OAI_DEFAULT_WINDOW 32768
long shc__oai_window(const openai *be, const char *model);
/* The messages of history that fit budget bytes: the oldest tool outputs of earlier turns are
 * elided first (a marker replaces them), then the oldest turns are dropped, then older tool
 * outputs of the current turn; the last message is always kept.  A new array (messages shared
 * or copied); *elided / *dropped say how much was left out. */
json_t *shc__oai_fit(json_t *history, size_t budget, size_t *elided, size_t *dropped);

/* models.c: ops.list_models (GET {base}/models). */
void shc__oai_list_models(shc_backend *be, shc_loop *loop,
                          void (*done)(void *payload, const char *const *models, size_t n),
                          void *payload);
/* Frees a GET /models still in flight, without its callback; after shc_http_free. */
void shc__oai_models_free(openai *be);

#endif
