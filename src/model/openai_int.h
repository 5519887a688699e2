/* Internals of the model backend, shared by openai.c (the turn state machine and the seam's
 * ops), openai_stream.c (one HTTP request and its event stream) and openai_req.c (the request
 * body and the backend selection).  Not a public header. */
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
};

/* Replaces every occurrence of the key in s (in place) with '*'. */
void shc__oai_redact(const openai *be, char *s);
/* Runs step st from a loop timer after ms (the turn's one pending step). */
void shc__oai_schedule(shc_backend_turn *t, step st, uint64_t ms);
/* Ends the turn (error NULL on success); reported to the bridge from the next loop iteration. */
void shc__oai_finish(shc_backend_turn *t, shc_stop_reason reason, const char *error);
void shc__oai_failf(shc_backend_turn *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A complete assistant message arrived (in t->delta). */
void shc__oai_on_message(shc_backend_turn *t);
/* Streams the next request of the turn (openai_stream.c). */
void shc__oai_start_request(shc_backend_turn *t);
void shc__oai_stop_transfer(shc_backend_turn *t);

#endif
