/* Internals shared by the bridge's parts, in dependency order (each uses only those after it):
 * bridge.c (transport, dispatch, initialize, teardown) -> session.c (the session methods: new,
 * load, resume, close, delete, prompt, modes and config options) -> lifecycle.c (the sessions
 * in memory), listing.c (session/list), replay.c (a stored session read back through the
 * presenter) and v2.c (ACP v2's method side) -> turn.c (turns, tool calls, permissions, the
 * local PTY path) -> mcpcall.c (MCP servers and their tools' calls) and cterm.c (client terminals) -> call.c (the end of a call) -> wire.c (the
 * writer and session/update notifications in the connection's dialect) -> v2enc.c (the v2
 * dialect); turn.c -> options.c (modes and config options) -> journal.c (what happened, into
 * the store; the backend's history/usage/notice callbacks) -> wire.c, and call.c -> journal.c;
 * prompt.c (content blocks), store.c and present.c sit below them all.
 * The lower parts reach the bridge's lifecycle only through br->hooks.  Not a public header.
 *
 * Re-entrancy rule: callbacks from the backend, the executor and the rpc only change state and
 * call shc__turn_kick(); the turn's progress (starting calls, delivering results to the
 * backend, answering the prompt, freeing) runs from a zero-delay loop timer, never inside
 * another module's callback. */
#ifndef SHC_BRIDGE_INT_H
#define SHC_BRIDGE_INT_H

#include <jansson.h>

#include "acp/bridge.h"
#include "acp/journal.h"
#include "rpc/jsonrpc.h"
#include "acp/present.h"
#include "acp/store.h"
#include "base/loop.h"
#include "exec/output.h"
#include "exec/pty.h"
#include "mcp/mcp.h"
#include "shcard.h"

/* Back-pressure (wire.c): past QUEUE_PAUSE bytes waiting for the client, the PTYs are not
 * read (commands block on write, as in a terminal nobody scrolls); past QUEUE_STDIN stdin is
 * not read either (a client that sends requests but reads no answer is told to wait the same
 * way); both resume once the queue is down to QUEUE_RESUME. */
enum {
    SHC_BR_QUEUE_PAUSE = 4 << 20,
    SHC_BR_QUEUE_STDIN = 16 << 20,
    SHC_BR_QUEUE_RESUME = 1 << 20,
    SHC_BR_MAX_COMMANDS = 16, /* commands running on our PTYs at once (all sessions) */
    SHC_BR_QUEUED_PROMPTS = 8,        /* prompts waiting behind a cancelled turn, per session */
    SHC_BR_MAX_SESSIONS = 1024,       /* past it the least recently used idle session goes */
    SHC_BR_QUEUED_BYTES = 4 << 20,    /* and their text, all sessions */
};

typedef struct br_call br_call;
typedef struct br_turn br_turn;
typedef struct br_pending br_pending;
typedef struct br_session br_session;
typedef struct br_bridge br_bridge;
typedef struct br_v2sess br_v2sess; /* v2enc.c: what the v2 encoder keeps per session */
typedef struct br_replay br_replay;
typedef struct br_verify br_verify; /* verify.c */

/* The window of every command's PTY: the executor's size, and the `size` a v2 client renders
 * the display terminal at. */
enum { BR_PTY_COLS = 120, BR_PTY_ROWS = 40 };

/* v2: prompts held per session while it works (more are refused). */
enum { BR_V2_HELD = 8 };
#define BR_V2_HELD_BYTES ((size_t)8 << 20) /* and their text, all sessions */

/* ACP v2's foreground state of a session (state_update). */
typedef enum br_v2_state { V2_IDLE, V2_RUNNING, V2_ACTION } br_v2_state;

typedef enum br_call_state {
    CALL_QUEUED,  /* emitted by the backend, not shown yet */
    CALL_ASKING,  /* tool_call sent (pending), waiting for session/request_permission */
    CALL_RUNNING, /* running on our PTY or in a client terminal */
    CALL_WAITING, /* shown, waiting for a free command slot (max_commands) */
    CALL_DONE,    /* final update sent; result waiting for the backend */
} br_call_state;

typedef enum br_ct_step {
    CT_NONE,
    CT_CREATE, /* terminal/create sent */
    CT_WAIT,   /* terminal/wait_for_exit sent */
    CT_OUTPUT, /* terminal/output sent */
} br_ct_step;

struct br_call {
    br_call *next;
    br_turn *turn;                /* borrowed: the turn owns its calls */
    char id[48];                  /* toolCallId and `_meta` terminal id */
    char *be_call_id;             /* owned: the backend's id, echoed in tool_result */
    char *command;                /* owned */
    char *description;            /* owned, may be NULL */
    shc_verdict *verdict;         /* owned, may be NULL */
    shc_call_info info;           /* borrows the fields above */
    br_call_state state;
    shc_pty *pty;                 /* owned while running locally */
    int64_t req_id;               /* our outstanding rpc request for this call, or 0 */
    br_ct_step ct_step;
    char *client_tid;             /* owned: the client's terminal id */
    bool cancel_requested;
    int give_up_timer;            /* client-terminal cancel deadline, or 0 */
    /* the result, once DONE */
    shc_tool_result res;          /* strings below are owned by the call */
    char *res_text;
    char *res_error;
    char *res_signal;
    /* what the store keeps of a terminal card's stream: the head as it comes, the tail at the
     * end (journal.c) */
    uint64_t out_seen;
    size_t out_stored;
    shc_ring out_tail;
    br_verify *verify;            /* owned (verify.c): the watch of a read/search/list card */
    unsigned sandbox;             /* SHC_SANDBOX_*, from the session when the call came */
    bool network;                 /* the sandbox keeps the network */
    shc_confine_spec spec;        /* sandbox.c: what the child does to itself (borrows verify's
                                   * programs) */
    char *tmpdir;                 /* owned (sandbox.c): the command's private TMPDIR, removed
                                   * with the call */
    char *env[2];                 /* {"TMPDIR=...", NULL} */
    shc_gitsnap *git;             /* owned (sandbox.c, workspace): the repository's control
                                   * files before the command */
    bool offer;                   /* ask mode, the sandbox may have stopped it: when DONE, the
                                   * turn offers to run it again without the sandbox */
    br_call *held;                /* owned, on a rerun without the sandbox: the sandboxed call,
                                   * whose result the model gets if the rerun does not run */
    bool mcp;                     /* an MCP tool's call (mcpcall.c): command is its function
                                   * name, mcp_args its arguments */
    char *mcp_args;               /* owned */
    struct shc_mcp_target *mcp_target; /* owned: the tool resolved when the call came, or NULL */
    struct shc_mcp_call *mcp_call; /* owned while it runs */
};

struct br_turn {
    br_turn *next;
    br_session *sess;             /* borrowed */
    br_bridge *br;                /* borrowed */
    json_t *prompt_id;            /* owned reference: the session/prompt request id */
    shc_backend_host host;        /* payload = this turn */
    shc_backend_turn *bt;         /* the backend's turn, or NULL */
    bool be_done;                 /* the backend called turn_done */
    shc_stop_reason reason;
    int err_code;
    char *err_msg;                /* owned, when the turn failed */
    bool oom;                     /* an allocation failed: the turn ends with -32603 */
    bool cancelled;
    bool settled;                 /* the prompt was answered */
    br_call *calls;               /* owned queue; the head is the current call */
    int kick_timer;
    void *mcp_held;               /* owned (mcpcall.c): the prompt, while the MCP servers start */
};

/* A prompt that arrived while the session's turn was cancelled but not yet answered. */
struct br_pending {
    br_pending *next;
    json_t *id;     /* owned reference */
    json_t *prompt; /* owned reference: the prompt's blocks (checked already) */
    size_t bytes;   /* their text, counted in br->queued_bytes */
    bool cancelled; /* a session/cancel came while it waited */
};

struct br_session {
    br_session *next;
    br_bridge *br;                /* borrowed */
    char id[48];                  /* SHC_STORE_ID_LEN (or a fixed prefix without a store) */
    char *cwd;                    /* owned, absolute */
    shc_client_caps caps;         /* snapshot at session/new (or load / resume) */
    shc_approve approve;          /* the session's mode: ALL or ASK ("Always Allow" sets ALL) */
    shc_backend *be;              /* borrowed: the backend in use when it was made (auth.c) */
    unsigned sandbox;             /* SHC_SANDBOX_*: the `sandbox` config option */
    bool network;                 /* the `network` config option */
    bool sandbox_told;            /* sandbox.c said once that there is no sandbox here */
    bool git_changed;            /* a sandboxed command changed the repository's control files:
                                  * the next command outside the sandbox is asked for */
    shc_gitsnap *git_last;        /* the last sandboxed command's workspace git snapshot, for
                                   * the next one's "before" when nothing changed (owned) */
    char *model;                  /* owned: the model picked in the editor, or NULL */
    bool titled;                  /* the title is set (from the first prompt) */
    unsigned long long ncalls;
    br_turn *turns;               /* owned: live and winding-down turns */
    br_turn *active;              /* the turn not answered yet, or NULL */
    br_pending *pending;          /* owned FIFO: prompts waiting for the active turn's answer */
    unsigned long long used;      /* br->uses when it was last created or prompted */
    br_v2sess *v2;                /* owned: the v2 encoder's state (v2 connections), or NULL */
    json_t *v2_held;              /* owned: v2 prompts held while the session works, in order:
                                   * [{id, prompt, bytes}], or NULL */
    shc_store_file *file;         /* owned: the session's store file, or NULL (journal.c makes
                                   * it with the first record) */
    bool unrecorded;              /* making it failed: the session is not recorded */
    br_replay *replay;            /* owned: a load or resume reading the store, or NULL */
    bool closing;                 /* session/close or delete: freed once its turns are gone */
    bool delete_after;            /* session/delete: remove the file once freed */
    json_t *close_id;             /* owned: the close / delete request to answer then */
    json_t *load_id;              /* owned: the load / resume request while it runs */
    struct shc_mcp *mcp;          /* owned (mcpcall.c): the session's MCP servers, or NULL */
    json_t *mcp_allowed;          /* owned: {shc_mcp_approval_key: true} for "Always allow
                                   * this tool" (the server's identity and the exact tool) */
    json_t *mcp_servers;          /* owned: a load's mcpServers until its replay is done */
};

/* Set by bridge.c, called by the parts below it. */
typedef struct br_hooks {
    void (*teardown)(br_bridge *br, const char *why); /* wire.c: stdout broke (from the loop) */
    void (*turn_gone)(br_bridge *br);                 /* turn.c: a turn was freed */
    shc_loop_timer_fn progress;                       /* call.c: shc__turn_progress */
    void (*settled)(br_bridge *br, br_session *s);    /* turn.c: a turn was just answered */
    /* auth.c: the list_models callback of a backend a refresh made */
    void (*models)(void *payload, const char *const *models, size_t n);
} br_hooks;

/* The page size of session/list. */
#define BR_LIST_PAGE 50

struct br_bridge {
    shc_bridge_config cfg;
    br_hooks hooks;
    shc_backend *be;              /* owned: the backend new sessions get */
    shc_backend **retired;        /* owned: backends a refresh replaced, while sessions use them */
    size_t nretired;
    bool auth_terminal;           /* the terminal auth method was advertised (auth.c) */
    shc_approve approve;          /* resolved: ALL or ASK */
    shc_mcp_budget mcp_budget;    /* the descriptors every session's MCP servers hold */
    unsigned sandbox;             /* resolved: the mode new sessions start in */
    int landlock_abi;             /* -1 until asked (sandbox.c) */
    const char *landlock_why;     /* static: why there is none */
    shc_loop *loop;               /* owned */
    shc_exec *exec;               /* owned */
    shc_rpc *rpc;                 /* owned */
    const shc_log *log;           /* borrowed from cfg */
    int in_fd, out_fd;
    int in_watch, out_watch;
    bool in_eof;
    bool out_paused;              /* the PTYs are paused: too much output waits for the client */
    bool in_paused;               /* stdin is not read: far too much waits */
    size_t nlocal;                /* commands running on our PTYs */
    size_t queued_bytes;          /* text of every br_pending */
    unsigned long long uses;      /* a clock for br_session.used */
    shc_client_caps caps;         /* from the latest initialize */
    int version;                  /* the ACP version this connection speaks: 1 or 2 (0 before
                                   * initialize: v1) */
    char v2_nonce[12];            /* v2: this process's part of every message id */
    size_t v2_held_bytes;         /* v2: what the held prompts of all sessions take */
    br_session *sessions;         /* owned */
    shc_store *store;             /* owned, or NULL: sessions live in memory only */
    json_t *models;               /* owned: model ids for the selector (model backends), or NULL */
    unsigned long long nsessions; /* ids with cfg.session_prefix */
    bool tearing;
    bool unverified_told;         /* verify.c said once that cards are unverified here */
    bool finished;
    int teardown_timer;
    int teardown_kick;
    int flush_timer;
    bool flush_late;              /* the client did not read the last frames in time */
};

/* wire.c */
shc_rpc_write_fn shc__wire_writer(void); /* writes to br->out_fd (io = the bridge) */
void shc__wire_update(br_bridge *br, br_session *s, json_t *update); /* steals update */
/* Writes what the rpc has queued; waits for POLLOUT when the pipe is full; a broken writer
 * starts the teardown from the loop; once finished and drained, stops the loop. */
void shc__wire_flush(br_bridge *br);
void shc__wire_on_writable(shc_loop *loop, int fd, unsigned events, void *payload);

/* Starts a prompt's turn on the wire: v1 says nothing yet (the answer comes at the end); v2
 * answers with the user message's messageId (also written to mid), echoes the message and
 * reports running. */
void shc__wire_prompt_start(br_bridge *br, br_session *s, json_t *id, json_t *prompt, char *mid,
                            size_t cap);
/* Ends it: v1 answers the prompt ({stopReason}, or the error when message is set); v2 reports
 * idle with the stop reason ("error" with the error). */
void shc__wire_prompt_end(br_bridge *br, br_session *s, json_t *id, const char *stop, int code,
                          const char *message);
/* The params of session/request_permission for a call (options is stolen): v1's toolCall, v2's
 * command subject (v2 also reports requires_action). */
json_t *shc__wire_permission(br_bridge *br, br_session *s, const shc_call_info *info,
                             json_t *options);

/* v2.c: ACP v2's method side (below session.c, above turn.c and wire.c) */
bool shc__v2_method_known(const char *method); /* a v2 method (initialize aside) */
/* initialize's version: 1 or 2, or -1 after answering with an error (params checked already) */
int shc__v2_negotiate(br_bridge *br, json_t *id, json_t *params);
void shc__v2_initialize(br_bridge *br, json_t *id, json_t *params); /* v2's answer */
void shc__v2_terminal_cancel(br_bridge *br, json_t *id, json_t *params);
void shc__v2_hold(br_bridge *br, br_session *s, json_t *id, json_t *prompt, size_t bytes);
void shc__v2_drop_held(br_bridge *br, br_session *s); /* answered -32800 */
json_t *shc__v2_take_held(br_bridge *br, br_session *s); /* the next to insert, or NULL */
bool shc__v2_replay_from(br_bridge *br, json_t *id, json_t *params, bool *replay);
void shc__v2_unknown(br_bridge *br, json_t *id, const char *method, const char *sid);
void shc__v2_resumed(br_bridge *br, br_session *s); /* v2: replay's last frames, the state */

/* v2enc.c: the v2 dialect (below wire.c) */
json_t *shc__v2_encode(br_bridge *br, br_session *s, json_t *update); /* frames; steals update */
json_t *shc__v2_state(br_session *s, br_v2_state st, const char *stop, int code,
                      const char *message); /* a state_update (sets the state) */
json_t *shc__v2_permission(br_session *s, const shc_call_info *info, const char *title,
                           json_t *options, json_t **state);
char *shc__v2_new_message_id(br_bridge *br, br_session *s, char *out, size_t cap);
br_v2_state shc__v2_state_of(const br_session *s);
/* The call whose display terminal tid runs (started, not exited), or NULL. */
const char *shc__v2_running_call(br_session *s, const char *tid);
void shc__v2_mark_cancel(br_session *s, const char *call_id); /* terminal/cancel accepted */
void shc__v2_cancelling(br_session *s);                      /* session/cancel came */
bool shc__v2_is_replaying(const br_session *s);
/* A replay of the session's history starts: until replay_end, frames go through an encoder
 * state of their own (terminals as one snapshot each).  replay_end returns the last frames
 * (calls whose end was not replayed) and restores the live state. */
void shc__v2_replay_begin(br_session *s);
json_t *shc__v2_replay_end(br_session *s);
void shc__v2_free(br_v2sess *v);                              /* NULL-safe */

/* call.c */
void shc__call_send(br_turn *t, json_t *update); /* a session/update of the turn; steals it */
/* The call is over: final card, result kept for the backend (state DONE), the turn kicked. */
void shc__call_finish(br_call *c, const shc_call_end *end, const char *model_text, size_t mlen,
                      bool timed_out, bool cancelled);
void shc__call_not_run(br_call *c, const char *why, bool cancelled);
/* A session/request_permission answer for call c (clears its request id, logs an error):
 * 1 allowed once, 2 "allow_always", 0 rejected, cancelled or the bridge tearing down. */
int shc__permission_outcome(br_call *c, json_t *result, json_t *error);
void shc__turn_kick(br_turn *t); /* the turn's progress runs from a zero-delay timer */

/* sandbox.c: the sandbox of a session's commands (docs/sandbox.md).  default: the mode new
 * sessions start in (cfg->sandbox, else `off` for the shell backend, `workspace` for a model).
 * meta: `_meta.sandbox` {mode, network} on a terminal card's tool_call.  opts: sets o->confine's
 * sandbox (keeping the watch verify.c set); -1 with *why when the command must not run (no
 * Landlock, and the fallback is to refuse).  note: a malloc'd line for the model when a sandboxed
 * command failed with words the sandbox makes commands print, else NULL. */
unsigned shc__sandbox_default(const shc_bridge_config *cfg, const char *backend);
void shc__sandbox_meta(const br_call *c, json_t *update);
int shc__sandbox_opts(br_call *c, shc_pty_opts *o, const char **why);
char *shc__sandbox_note(const br_call *c, const char *text, size_t len, int exit_code, bool ran);
/* After a workspace command: the note naming the repository's control files it changed (for
 * the model and the card), or NULL. */
char *shc__sandbox_git_note(br_call *c);
/* Tells the backend which sandbox the session's commands run in (the tool's description). */
void shc__sandbox_tell(br_bridge *br, const br_session *s);
/* Removes the call's private TMPDIR (workspace mode) with what the command left there. */
void shc__sandbox_free(br_call *c);
/* The call that runs c (DONE, offer set) again without the sandbox once the user allows it
 * (turn.c asks): same command and backend id, a description that says why; it holds c.  NULL
 * when out of memory. */
br_call *shc__sandbox_rerun(br_call *c);

/* verify.c: a read/search/list card's command runs under the watch (src/confine/); the card
 * becomes a terminal card on the first event, after the grace, or when it waits for terminal
 * input.  opts: fills o->confine and the callbacks when the call's card is watched. */
void shc__verify_opts(br_call *c, shc_pty_opts *o);
/* After a spawn: starts the grace timer, or says once that cards are unverified. */
void shc__verify_started(br_call *c);
/* A display chunk of the call's command: kept until a flip shows it. */
void shc__verify_output(br_call *c, const char *data, size_t len);
/* The call's command ended (or is dropped): the findings file, then everything freed. */
void shc__verify_end(br_call *c);

/* mcpcall.c: MCP servers and their tools' calls (docs/mcp.md) */
void shc__mcp_session(br_bridge *br, br_session *s, json_t *servers); /* starts them (model) */
void shc__mcp_session_end(br_session *s);
/* The turn's prompt waits for the servers to settle (copied): true when held. */
bool shc__mcp_hold(br_turn *t, const shc_prompt_part *parts, size_t n);
void shc__mcp_held_free(br_turn *t);
void shc__mcp_host_call(void *payload, const char *call_id, const char *name,
                        const char *arguments, shc_tools_snap *snap); /* host.tool_call_named */
void shc__mcp_start_call(br_call *c);  /* the card, the permission, the call */
void shc__mcp_cancel_call(br_call *c); /* the turn was cancelled */
void shc__mcp_not_run(br_call *c, const char *why, bool cancelled); /* ends it now */
void shc__mcp_call_free(br_call *c);
/* The frames of an MCP call (live and replayed): its tool_call, and its end. */
json_t *shc__mcp_card(const char *id, const char *title, const char *kind, const char *status,
                      json_t *input);
json_t *shc__mcp_card_end(const char *id, const char *status, const char *text, size_t len,
                          json_t *images);

/* cterm.c */
void shc__ct_run(br_call *c);    /* terminal/create and what follows */
void shc__ct_cancel(br_call *c); /* terminal/kill, and a deadline */

/* session.c */
/* auth.c */
json_t *shc__auth_methods(br_bridge *br, json_t *client_caps); /* authMethods (new reference) */
void shc__auth_authenticate(br_bridge *br, json_t *id, json_t *params);
void shc__auth_refresh(br_bridge *br);     /* before a session is made: the settings again */
void shc__auth_release(br_bridge *br, shc_backend *be); /* a session that used be is gone */
void shc__auth_free(br_bridge *br);                     /* every backend, at the end */

bool shc__session_knows(const char *method); /* one of the session/ methods (v1) */
void shc__session_method(br_bridge *br, json_t *id, const char *method, json_t *params);
/* A session's turn was just answered (hooks.settled): the next queued (v1) or held (v2) prompt
 * starts. */
void shc__session_settled(br_bridge *br, br_session *s);

/* lifecycle.c: the sessions in memory */
br_session *shc__session_find(br_bridge *br, const char *id);     /* live and not closing */
br_session *shc__session_find_any(br_bridge *br, const char *id); /* closing ones too */
/* A new session in memory (id and cwd copied), or NULL. */
br_session *shc__session_new(br_bridge *br, const char *id, const char *cwd);
/* Room for one more in memory (the idle one used longest ago leaves); false when all are busy. */
bool shc__session_make_room(br_bridge *br);
void shc__pending_free(br_bridge *br, br_pending *q);
/* Frees a session whose turns are gone (answers its close / delete / load request). */
void shc__session_free(br_bridge *br, br_session *s);
void shc__sessions_reap(br_bridge *br); /* frees the closed sessions that are done */

/* listing.c */
void shc__session_list(br_bridge *br, json_t *id, json_t *params); /* session/list */
void shc__iso_time(char *out, size_t cap, int64_t ns); /* "2026-11-30T17:06:20.110Z" */
int64_t shc__now_ns(void);                             /* CLOCK_REALTIME */

/* options.c: the session's modes and config options (approval, model) */
json_t *shc__opt_modes(const br_session *s);                      /* new reference */
json_t *shc__opt_config(const br_bridge *br, const br_session *s); /* new reference */
/* {modes, configOptions} for a new / load / resume answer (sessionId added by the caller; v2:
 * configOptions alone). */
json_t *shc__opt_state(const br_bridge *br, const br_session *s);
/* Sets "mode" (ask / all) or "model"; journals it and sends current_mode_update (mode) and
 * config_option_update.  Returns 0, or -1 with *why set (invalid params). */
int shc__opt_set(br_bridge *br, br_session *s, const char *id, const char *value,
                 const char **why);
/* Applies a stored setting on load (no updates are sent, nothing is journaled). */
void shc__opt_restore(br_bridge *br, br_session *s, const char *id, const char *value);

/* turn.c */
int shc__turn_start(br_bridge *br, br_session *s, json_t *id, const shc_prompt_part *parts,
                    size_t nparts);
void shc__turn_cancel(br_turn *t);
void shc__turn_progress(shc_loop *loop, void *payload); /* the kick timer's callback */
/* Kills everything of the turn now (teardown deadline): no callback will run for its calls. */
void shc__turn_force(br_turn *t);

/* replay.c: reads a stored session back: for load every record goes out through the presenter
 * for this client's capabilities (quiet = resume: nothing is sent); the settings, the call
 * numbering and the backend's conversation are restored.  It runs from loop timers, a slice at
 * a time, so a long session never floods the writer.  It owns f from here on (s->file once it
 * succeeded), and calls on_end exactly once, from the loop: rc 0, or an error from store.h (err
 * says why) after which the session must be freed. */
typedef void (*shc_replay_end_fn)(br_bridge *br, br_session *s, int rc, const char *err);
int shc__replay_start(br_bridge *br, br_session *s, shc_store_file *f, bool quiet,
                      shc_replay_end_fn on_end);
/* Stops a replay in progress: on_end follows at once with an error (close, teardown). */
void shc__replay_abort(br_bridge *br, br_session *s, const char *why);

#endif
