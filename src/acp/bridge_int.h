/* Internals shared by the bridge's parts, in dependency order (each uses only those after it):
 * bridge.c (transport, dispatch, initialize, teardown) -> session.c (the session methods: new,
 * load, resume, list, close, delete, prompt, modes and config options) -> replay.c (a stored
 * session read back through the presenter) -> turn.c (turns, tool calls, permissions, client
 * terminals) -> options.c (modes and config options) -> journal.c (what happened, into the
 * store; the backend's history/usage/notice callbacks) -> wire.c (the writer and session/update
 * notifications); prompt.c (content blocks), store.c and present.c sit below them all.
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
#include "acp/jsonrpc.h"
#include "acp/present.h"
#include "acp/store.h"
#include "base/loop.h"
#include "exec/output.h"
#include "exec/pty.h"
#include "shcard.h"

typedef struct br_call br_call;
typedef struct br_turn br_turn;
typedef struct br_session br_session;
typedef struct br_bridge br_bridge;
typedef struct br_replay br_replay;

typedef enum br_call_state {
    CALL_QUEUED,  /* emitted by the backend, not shown yet */
    CALL_ASKING,  /* tool_call sent (pending), waiting for session/request_permission */
    CALL_RUNNING, /* running on our PTY or in a client terminal */
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
    bool cancelled;
    bool settled;                 /* the prompt was answered */
    br_call *calls;               /* owned queue; the head is the current call */
    int kick_timer;
};

struct br_session {
    br_session *next;
    char id[SHC_STORE_ID_LEN + 1];
    char *cwd;                    /* owned, absolute */
    shc_client_caps caps;         /* snapshot at session/new (or load / resume) */
    shc_approve approve;          /* the session's mode: ALL or ASK ("Always Allow" sets ALL) */
    char *model;                  /* owned: the model picked in the editor, or NULL */
    bool titled;                  /* the title is set (from the first prompt) */
    unsigned long long ncalls;
    br_turn *turns;               /* owned: live and winding-down turns */
    br_turn *active;              /* the turn that blocks a new prompt, or NULL */
    shc_store_file *file;         /* owned: the session's store file, or NULL */
    br_replay *replay;            /* owned: a load or resume reading the store, or NULL */
    bool closing;                 /* session/close or delete: freed once its turns are gone */
    bool delete_after;            /* session/delete: remove the file once freed */
    json_t *close_id;             /* owned: the close / delete request to answer then */
    json_t *load_id;              /* owned: the load / resume request while it runs */
};

/* Set by bridge.c, called by the parts below it. */
typedef struct br_hooks {
    void (*teardown)(br_bridge *br, const char *why); /* wire.c: stdout broke (from the loop) */
    void (*turn_gone)(br_bridge *br);                 /* turn.c: a turn was freed */
} br_hooks;

/* The page size of session/list. */
#define BR_LIST_PAGE 50

struct br_bridge {
    shc_bridge_config cfg;
    br_hooks hooks;
    shc_backend *be;              /* owned */
    shc_approve approve;          /* resolved: ALL or ASK */
    shc_loop *loop;               /* owned */
    shc_exec *exec;               /* owned */
    shc_rpc *rpc;                 /* owned */
    const shc_log *log;           /* borrowed from cfg */
    int in_fd, out_fd;
    int in_watch, out_watch;
    bool in_eof;
    shc_client_caps caps;         /* from the latest initialize */
    br_session *sessions;         /* owned */
    shc_store *store;             /* owned, or NULL: sessions live in memory only */
    json_t *models;               /* owned: model ids for the selector (model backends), or NULL */
    bool tearing;
    bool finished;
    int teardown_timer;
    int teardown_kick;
};

/* wire.c */
shc_rpc_write_fn shc__wire_writer(void); /* writes to br->out_fd (io = the bridge) */
void shc__wire_update(br_bridge *br, br_session *s, json_t *update); /* steals update */
/* Writes what the rpc has queued; waits for POLLOUT when the pipe is full; a broken writer
 * starts the teardown from the loop; once finished and drained, stops the loop. */
void shc__wire_flush(br_bridge *br);
void shc__wire_on_writable(shc_loop *loop, int fd, unsigned events, void *payload);

/* session.c */
bool shc__session_knows(const char *method); /* one of the session/ methods */
void shc__session_method(br_bridge *br, json_t *id, const char *method, json_t *params);
br_session *shc__session_find(br_bridge *br, const char *id); /* live and not closing */
/* Frees a session whose turns are gone (answers its close / delete / load request). */
void shc__session_free(br_bridge *br, br_session *s);
void shc__sessions_reap(br_bridge *br); /* frees the closed sessions that are done */

/* options.c: the session's modes and config options (approval, model) */
json_t *shc__opt_modes(const br_session *s);                      /* new reference */
json_t *shc__opt_config(const br_bridge *br, const br_session *s); /* new reference */
/* {modes, configOptions} for a new / load / resume answer (sessionId added by the caller). */
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
void shc__turn_kick(br_turn *t);
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
