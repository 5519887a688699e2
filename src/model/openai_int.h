/* Internals of the model backend, shared by openai.c (the turn state machine and the seam's
 * ops) and request.c (one HTTP request and its event stream).  Not a public header.
 *
 * Dependency direction inside model/: openai.c -> request.c -> body.c, and both -> config.c
 * (redaction), http.c, sse.c, oai_delta.c.  request.c never calls openai.c by name: it reports
 * how a request ended through the turn's on_end function pointer. */
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
#define JSONRPC_INTERNAL (-32603)

typedef struct session {
    char *id;
    json_t *history; /* array of chat messages (owned) */
    unsigned turns;  /* turns started, for made-up tool call ids */
    int refs;        /* 1 for the table + 1 per live turn */
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
    long tool_output_limit; /* bytes of a tool result's text for the model */
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
    /* set by openai.c: how request.c reports the end of a request (error: OAI_END_FAIL) */
    void (*on_end)(shc_backend_turn *t, oai_end end, uint64_t retry_ms, const char *error);
};

/* request.c: streams the next request of the turn; its end comes back through t->on_end
 * (possibly from inside this call, when the request cannot start). */
void shc__oai_start_request(shc_backend_turn *t);
/* request.c: aborts the transfer in flight, if any (no on_end follows). */
void shc__oai_stop_transfer(shc_backend_turn *t);

#endif
