/* src/agent/ owns the agent-backend seam (this header) and the shell-mode backend (shell.c:
 * each prompt line is one `bash` call).  Other backends (model/) implement the same seam; the
 * bridge (acp/) only ever sees it.  May use: base/ (the loop type).
 *
 * The agent-backend seam of `shcard acp` (architecture.md, layer 6).
 *
 * A backend receives a prompt and drives a turn: it emits text chunks, thought chunks and tool
 * calls through the host callbacks, and receives each tool call's result.  The bridge (host)
 * renders every tool call as a card, runs it, and reports the result back.  Shell mode (each
 * prompt line is one `bash` call) and the OpenAI-compatible model backend are the two
 * implementations; the bridge never knows which one runs.
 *
 * A backend that keeps a conversation reports every change to it (host.history), so that the
 * bridge can store it and give it back after a restart (ops.session_restore).
 *
 * Ownership: strings passed to callbacks are borrowed for the duration of the call. */
#ifndef SHC_BACKEND_H
#define SHC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/loop.h"

typedef struct shc_backend shc_backend;
typedef struct shc_backend_turn shc_backend_turn;

/* The tools one set_tools gave, as the host knows them (what each function name meant then):
 * reference-counted, opaque to the backend, which keeps a reference for the session's current
 * tools and one per request it builds, and hands the request's back with each call of it, so
 * that the host resolves a call against what the model was shown, never against what the name
 * means when the call arrives.  The host that made it frees it (destroy) at the last unref. */
typedef struct shc_tools_snap shc_tools_snap;
struct shc_tools_snap {
    unsigned refs;
    void (*destroy)(shc_tools_snap *snap);
};

static inline shc_tools_snap *shc_tools_snap_ref(shc_tools_snap *snap)
{
    if (snap)
        snap->refs++;
    return snap;
}

static inline void shc_tools_snap_unref(shc_tools_snap *snap)
{
    if (snap && --snap->refs == 0)
        snap->destroy(snap);
}

typedef enum shc_stop_reason {
    SHC_STOP_END_TURN,
    SHC_STOP_MAX_TOKENS,
    SHC_STOP_MAX_TURN_REQUESTS,
    SHC_STOP_REFUSAL,
    SHC_STOP_CANCELLED,
} shc_stop_reason;

/* One content block of a prompt, as the client sent it.  Every string is borrowed for the
 * duration of turn_start; none holds a NUL byte. */
typedef enum shc_prompt_kind {
    SHC_PROMPT_TEXT,     /* text */
    SHC_PROMPT_LINK,     /* an @-mention (resource_link): uri, name */
    SHC_PROMPT_RESOURCE, /* embedded context (resource): uri, text (NULL for a binary one), mime */
    SHC_PROMPT_IMAGE,    /* text = base64 data, mime; only when the backend takes images */
} shc_prompt_kind;

typedef struct shc_prompt_part {
    shc_prompt_kind kind;
    const char *text; /* TEXT, RESOURCE: the text; IMAGE: the base64 data */
    size_t len;       /* bytes of text */
    const char *uri;  /* LINK, RESOURCE (required), IMAGE (may be NULL) */
    const char *name; /* LINK: the display name, or NULL */
    const char *mime; /* RESOURCE, IMAGE: the MIME type, or NULL */
} shc_prompt_part;

/* What the bridge gives a backend for one turn. */
typedef struct shc_backend_host {
    void *payload; /* passed back as the first argument of every callback */
    /* agent_message_chunk / agent_thought_chunk */
    void (*message_chunk)(void *payload, const char *text, size_t len);
    void (*thought_chunk)(void *payload, const char *text, size_t len);
    /* A bash tool call.  call_id is the backend's id (the model's tool_call_id, or made up);
     * the bridge renders the card, asks permission if configured, runs the command, and later
     * calls the turn's tool_result with the same call_id. */
    void (*tool_call)(void *payload, const char *call_id, const char *command,
                      const char *description);
    /* The turn is over: exactly once per turn.  error is NULL on success, or a message for a
     * JSON-RPC error response (code is then the JSON-RPC code to use). */
    void (*turn_done)(void *payload, shc_stop_reason reason, int code, const char *error);
    /* Optional (NULL-safe for backends: check before calling).
     * history: the session's conversation, as the backend keeps it, changed: entry (a JSON text
     * in the backend's own format) is now entry number index, and any after it are gone; with
     * entry NULL the conversation was cut back to index entries.  The bridge stores these and
     * gives the result back through session_restore after a restart. */
    void (*history)(void *payload, size_t index, const char *entry);
    /* usage_update: tokens now in the context, and the context window. */
    void (*usage)(void *payload, uint64_t used, uint64_t size);
    /* Something the user should know that is not part of the conversation (e.g. that older
     * command output was left out to fit the context window). */
    void (*notice)(void *payload, const char *text);
    /* A call of one of the tools the bridge gave the session (ops.set_tools; an MCP server's
     * tool): name as given there, arguments the model's JSON object text, snap the tools of
     * the request the model answered (borrowed for the call; NULL when set_tools gave none).
     * Answered through tool_result like a bash call; optional: NULL when the host has no such
     * tools. */
    void (*tool_call_named)(void *payload, const char *call_id, const char *name,
                            const char *arguments, shc_tools_snap *snap);
} shc_backend_host;

/* A tool call's outcome, as the model should see it. */
typedef struct shc_tool_result {
    const char *call_id;
    const char *model_text; /* ANSI stripped, head+tail truncated output */
    bool ran;               /* false when rejected or not run */
    int exit_code;          /* when ran and exited */
    const char *signal;     /* "SIGKILL" etc. when killed by a signal, else NULL */
    bool timed_out;
    bool cancelled;
    const char *error;      /* e.g. "rejected by the user", or a spawn failure; else NULL */
    bool verbatim;          /* a named tool's result: model_text is the whole answer (no exit
                             * line is added; it is still cut to the output limit) */
} shc_tool_result;

typedef struct shc_backend_ops {
    const char *name; /* "shell", "openai" */
    /* Start a turn for session_id with the prompt's blocks (nparts >= 1, in order).  cwd is the
     * session's absolute cwd.  Returns a turn or NULL (then turn_done has already been called
     * with an error). */
    shc_backend_turn *(*turn_start)(shc_backend *be, shc_loop *loop, const char *session_id,
                                    const char *cwd, const shc_prompt_part *parts, size_t nparts,
                                    const shc_backend_host *host);
    /* A tool call the backend emitted has finished (or was rejected). */
    void (*tool_result)(shc_backend_turn *turn, const shc_tool_result *result);
    /* session/cancel: stop at once; turn_done(SHC_STOP_CANCELLED) follows (possibly inside). */
    void (*cancel)(shc_backend_turn *turn);
    /* Free a finished turn (after turn_done). */
    void (*turn_free)(shc_backend_turn *turn);
    /* A session ended: drop its history. */
    void (*session_end)(shc_backend *be, const char *session_id);
    void (*free)(shc_backend *be);
    /* The ops below are optional (NULL when the backend has no such thing). */
    /* Gives a restored session its conversation back: the entries history() reported, already
     * applied (entries[i] is entry number i).  The backend repairs what a crash may have left
     * (a tool call without its result).  0, or a negative SHC_E_* (the session starts empty). */
    int (*session_restore)(shc_backend *be, const char *session_id, const char *const *entries,
                           size_t n);
    /* The model a session uses from its next request on (NULL: the configured one). */
    int (*set_model)(shc_backend *be, const char *session_id, const char *model);
    /* What the model is told about the sandbox its commands run in (docs/sandbox.md), from the
     * session's next request on: a sentence for the tool's description (copied; NULL: none). */
    int (*set_sandbox)(shc_backend *be, const char *session_id, const char *text);
    /* The session's tools besides bash, from its next request on: a JSON array text of
     * {"name", "description", "parameters"} objects (copied; NULL or "[]": none).  Their calls
     * come back through host.tool_call_named with snap (a reference is taken; NULL: none), the
     * tools as the host knows them.  0, or a negative SHC_E_*. */
    int (*set_tools)(shc_backend *be, const char *session_id, const char *tools_json,
                     shc_tools_snap *snap);
    /* Asks the server which models it offers; done is called exactly once, from the loop (not
     * from inside this call), with the ids (borrowed for the call; n may be 0). */
    void (*list_models)(shc_backend *be, shc_loop *loop,
                        void (*done)(void *payload, const char *const *models, size_t n),
                        void *payload);
} shc_backend_ops;

struct shc_backend {
    const shc_backend_ops *ops;
    const char *model; /* the configured model (borrowed from the backend), or NULL */
    bool images;       /* the model takes image blocks (promptCapabilities.image) */
};

#endif
