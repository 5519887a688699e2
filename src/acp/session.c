/* The session methods of the ACP bridge: session/new, load, resume, list, close, delete,
 * prompt, cancel, set_mode and set_config_option, and the sessions' lifecycle (a closed or
 * deleted session is freed once its turns have wound down; its close is answered then).
 * Sessions survive the process through the store (store.c): every session has a file that the
 * journal writes as things happen, and load / resume read it back (replay.c).  A v2 connection
 * runs the same methods (no load, no modes); v2.c has the steps where v2 differs. */
#include "acp/bridge_int.h"
#include "acp/prompt.h"
#include "mcp/mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void invalid(br_bridge *br, json_t *id, const char *msg)
{
    shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, msg, NULL);
}

/* A string member without a NUL byte, or NULL. */
static const char *str(json_t *o, const char *key)
{
    return shc_rpc_str(json_object_get(o, key));
}

/* ------------------------------------------------------------------ common checks */

static bool cwd_ok(br_bridge *br, json_t *id, const char *method, json_t *params)
{
    struct stat st;
    char msg[160];
    json_t *jcwd = json_object_get(params, "cwd");
    const char *cwd = shc_rpc_str(jcwd);
    if (!cwd || cwd[0] != '/') {
        snprintf(msg, sizeof msg, "%s: %s", method,
                 json_is_string(jcwd) && json_string_value(jcwd)[0] == '/'
                     ? "cwd holds a NUL character"
                     : "cwd must be an absolute path");
        invalid(br, id, msg);
        return false;
    }
    if (stat(cwd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, sizeof msg, "%s: cwd is not an existing directory", method);
        invalid(br, id, msg);
        return false;
    }
    return true;
}

/* mcpServers are checked here and started for a model session (mcpcall.c; shell mode accepts
 * and ignores them); additionalDirectories are not advertised, so a non-empty list is refused. */
static bool extras_ok(br_bridge *br, json_t *id, const char *method, json_t *params)
{
    json_t *mcp = json_object_get(params, "mcpServers");
    json_t *dirs = json_object_get(params, "additionalDirectories");
    char msg[400];
    char why[200];
    if (shc_mcp_check(mcp, why, sizeof why) != 0) {
        snprintf(msg, sizeof msg, "%s: %s", method, why);
        invalid(br, id, msg);
        return false;
    }
    if (dirs && !json_is_null(dirs) && (!json_is_array(dirs) || json_array_size(dirs) > 0)) {
        snprintf(msg, sizeof msg, "%s: additionalDirectories are not supported", method);
        invalid(br, id, msg);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ new */

static void m_new(br_bridge *br, json_t *id, json_t *params)
{
    if (!cwd_ok(br, id, "session/new", params) || !extras_ok(br, id, "session/new", params))
        return;
    shc__auth_refresh(br); /* settings changed since the last session (shcard login)? */
    if (!shc__session_make_room(br)) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR,
                      "session/new: too many sessions are busy", NULL);
        return;
    }
    const char *cwd = str(params, "cwd");
    char sid[48];
    br_session *s = NULL;
    int idrc = 0;
    if (!br->store && br->cfg.session_prefix) /* the fuzz target names its sessions */
        snprintf(sid, sizeof sid, "sess_%.20s%llu", br->cfg.session_prefix, ++br->nsessions);
    else
        idrc = shc_store_new_id(br->store, sid);
    if (idrc != 0 || !(s = shc__session_new(br, sid, cwd))) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "cannot create a session", NULL);
        return;
    }
    /* its file comes with its first record (journal.c), which keeps the mode the flags gave:
     * a later shcard with other flags keeps it */
    shc_log_info(br->log, "session/new %s in %s", s->id, s->cwd);
    shc__mcp_session(br, s, json_object_get(params, "mcpServers"));
    json_t *res = shc__opt_state(br, s);
    json_object_set_new(res, "sessionId", json_string(s->id));
    shc_rpc_respond(br->rpc, id, res);
}

/* ------------------------------------------------------------------ load, resume */

static void loaded(br_bridge *br, br_session *s, int rc, const char *err)
{
    json_t *id = s->load_id;
    s->load_id = NULL;
    if (rc == 0) {
        shc_log_info(br->log, "session %s restored (%llu calls)", s->id, s->ncalls);
        shc__mcp_session(br, s, s->mcp_servers);
        shc__v2_resumed(br, s); /* v2: the current state before the answer */
        shc_rpc_respond(br->rpc, id, shc__opt_state(br, s));
    } else {
        char msg[400];
        snprintf(msg, sizeof msg, "the stored session %s cannot be loaded: %s", s->id,
                 err ? err : "error");
        shc_log_warn(br->log, "%s", msg);
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, msg, NULL);
        shc__session_free(br, s);
    }
    json_decref(id);
    shc__wire_flush(br);
}

static void m_restore(br_bridge *br, json_t *id, json_t *params, bool quiet)
{
    const char *method = quiet ? "session/resume" : "session/load";
    const char *sid = str(params, "sessionId"), *cwd = str(params, "cwd");
    char msg[200];
    bool replay = false; /* v2: resume replays with replayFrom {type: start} */
    if (br->version == 2 && !shc__v2_replay_from(br, id, params, &replay))
        return;
    if (replay)
        quiet = false;
    shc__auth_refresh(br);
    if (!br->store) {
        snprintf(msg, sizeof msg, "%s: this shcard keeps no session store (--no-store)", method);
        invalid(br, id, msg);
        return;
    }
    if (!cwd_ok(br, id, method, params) || !extras_ok(br, id, method, params))
        return;
    if (!shc_store_id_valid(sid)) {
        shc__v2_unknown(br, id, method, sid);
        return;
    }
    br_session *s = shc__session_find_any(br, sid);
    if (s && (s->closing || s->replay || s->turns || s->pending)) { /* a cancelled turn may still wind down */
        snprintf(msg, sizeof msg, "%s: the session is %s", method,
                 s->closing  ? "closing"
                 : s->replay ? "already loading"
                             : "running a prompt (cancel it first)");
        invalid(br, id, msg);
        return;
    }
    if (s) { /* live here and idle */
        free(s->cwd);
        s->cwd = strdup(cwd);
        s->caps = br->caps;
        if (!s->cwd) {
            shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
            shc__session_free(br, s);
            return;
        }
        if (quiet || !s->file) { /* resume, or nothing was recorded yet: nothing to replay */
            shc__mcp_session(br, s, json_object_get(params, "mcpServers"));
            shc__v2_resumed(br, s);
            shc_rpc_respond(br->rpc, id, shc__opt_state(br, s));
            return;
        }
        shc_store_close(s->file); /* read it again from the start, below */
        s->file = NULL;
    }
    shc_store_file *f = NULL;
    int rc = shc_store_open_session(&f, br->store, sid);
    if (rc == SHC_STORE_ENOENT && !s && shc_store_id_ours(br->store, sid) &&
        !shc_store_id_gone(br->store, sid)) {
        /* made by this store, and nothing happened in it yet (its file comes with its first
         * record): it resumes empty */
        if (!shc__session_make_room(br) || !(s = shc__session_new(br, sid, cwd))) {
            shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
            return;
        }
        shc_log_info(br->log, "%s %s: nothing was recorded in it yet", method, sid);
        shc__mcp_session(br, s, json_object_get(params, "mcpServers"));
        shc__v2_resumed(br, s);
        shc_rpc_respond(br->rpc, id, shc__opt_state(br, s));
        return;
    }
    if (rc) {
        if (s)
            shc__session_free(br, s);
        if (rc == SHC_STORE_ENOENT) {
            shc__v2_unknown(br, id, method, sid);
            return;
        }
        snprintf(msg, sizeof msg, "%s: %s", method,
                 rc == SHC_STORE_ENOENT  ? "unknown session"
                 : rc == SHC_STORE_EBUSY ? "the session is open in another shcard process"
                 : rc == SHC_STORE_EBIG  ? "the stored session is too large to load"
                                         : "the session store cannot be read");
        shc_rpc_error(br->rpc, id,
                      rc == SHC_STORE_ENOENT || rc == SHC_STORE_EBUSY ? SHC_RPC_INVALID_PARAMS
                                                                     : SHC_RPC_INTERNAL_ERROR,
                      msg, NULL);
        return;
    }
    if (!s && (!shc__session_make_room(br) || !(s = shc__session_new(br, sid, cwd)))) {
        shc_store_close(f);
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
        return;
    }
    s->load_id = json_incref(id);
    json_decref(s->mcp_servers);
    s->mcp_servers = json_incref(json_object_get(params, "mcpServers"));
    shc_log_info(br->log, "%s %s in %s", method, s->id, cwd);
    if (shc_store_read_only(f))
        shc_log_warn(br->log,
                     "%s %s: the session store is read-only: the session is loaded, but what "
                     "happens next in it is not recorded",
                     method, s->id);
    if (replay)
        shc__v2_replay_begin(s); /* a terminal replays as one snapshot */
    if (shc__replay_start(br, s, f, quiet, loaded) != 0) {
        json_decref(s->load_id);
        s->load_id = NULL;
        shc__session_free(br, s);
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
    }
}

/* ------------------------------------------------------------------ close, delete */

/* A session is freed once nothing runs in it; its close (or delete) is answered then. */
static void close_session(br_bridge *br, br_session *s, json_t *id, bool del)
{
    s->closing = true;
    s->delete_after = del;
    s->close_id = json_incref(id);
    shc__v2_drop_held(br, s);
    shc__v2_cancelling(s);
    if (s->replay) { /* a load in progress fails, and its end frees the session */
        shc__replay_abort(br, s, del ? "the session was deleted" : "the session was closed");
        return;
    }
    for (br_pending *q = s->pending; q; q = q->next)
        q->cancelled = true; /* answered "cancelled" once the running turn has answered */
    for (br_turn *t = s->turns; t; t = t->next)
        shc__turn_cancel(t);
    shc__sessions_reap(br); /* at once when nothing runs */
}

static void m_close(br_bridge *br, json_t *id, json_t *params, bool del)
{
    const char *sid = str(params, "sessionId");
    const char *method = del ? "session/delete" : "session/close";
    char msg[200];
    br_session *s = shc__session_find_any(br, sid);
    if (br->version == 2 && (!s || s->closing) && (!del || !br->store)) {
        shc_rpc_respond(br->rpc, id, json_object()); /* v2: closed already */
        return;
    }
    if (s && s->closing) {
        snprintf(msg, sizeof msg, "%s: the session is already closing", method);
        invalid(br, id, msg);
        return;
    }
    if (s) {
        shc_log_info(br->log, "%s %s", method, s->id);
        close_session(br, s, id, del);
        return;
    }
    if (!del || !br->store) {
        snprintf(msg, sizeof msg, "%s: unknown session", method);
        invalid(br, id, msg);
        return;
    }
    int rc = shc_store_delete(br->store, sid);
    if (rc == 0 || (rc == SHC_STORE_ENOENT && br->version == 2)) { /* v2: deleted already */
        shc_log_info(br->log, "session/delete %s", sid);
        shc_rpc_respond(br->rpc, id, json_object());
    } else {
        invalid(br, id,
                rc == SHC_STORE_EBUSY ? "session/delete: the session is open in another shcard "
                                        "process"
                : rc == SHC_STORE_ENOENT ? "session/delete: unknown session"
                                         : "session/delete: the file could not be removed");
    }
}

/* ------------------------------------------------------------------ prompt, cancel */

static void title_once(br_bridge *br, br_session *s, const shc_prompt_part *parts, size_t n)
{
    if (s->titled)
        return;
    s->titled = true;
    char *title = shc__prompt_title(parts, n, s->cwd);
    if (!title)
        return;
    char when[40];
    shc__iso_time(when, sizeof when, shc__now_ns());
    shc__rec_title(s, title, when);
    shc__wire_update(br, s, json_pack("{s:s,s:s,s:s}", "sessionUpdate", "session_info_update",
                                      "title", title, "updatedAt", when));
    free(title);
}

/* Starts a turn for a checked prompt: the title (first prompt), the journal, the backend. */
static void start(br_bridge *br, br_session *s, json_t *id, json_t *prompt,
                  const shc_prompt_part *parts, size_t n)
{
    char mid[64] = "";
    shc__wire_prompt_start(br, s, id, prompt, mid, sizeof mid); /* v2: answered with its id */
    title_once(br, s, parts, n);
    shc__rec_prompt(s, prompt, mid[0] ? mid : NULL);
    if (shc__turn_start(br, s, id, parts, n) != 0 && br->version != 2)
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
}

static size_t prompt_bytes(const shc_prompt_part *parts, size_t n)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += parts[i].len + (parts[i].uri ? strlen(parts[i].uri) : 0);
    return bytes;
}

/* A prompt sent while the session's turn is cancelled but not answered yet waits for that
 * answer: no update of the new turn may come before it. */
static void queue_prompt(br_bridge *br, br_session *s, json_t *id, json_t *prompt,
                         const shc_prompt_part *parts, size_t np)
{
    size_t bytes = prompt_bytes(parts, np), n = 0;
    for (br_pending *q = s->pending; q; q = q->next)
        n++;
    if (n >= SHC_BR_QUEUED_PROMPTS || br->queued_bytes + bytes > SHC_BR_QUEUED_BYTES) {
        invalid(br, id, "session/prompt: too many prompts wait behind a cancelled one");
        return;
    }
    br_pending *q = calloc(1, sizeof *q);
    if (!q) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
        return;
    }
    q->id = json_incref(id);
    q->prompt = json_incref(prompt);
    q->bytes = bytes;
    br->queued_bytes += bytes;
    br_pending **tail = &s->pending;
    while (*tail)
        tail = &(*tail)->next;
    *tail = q;
}

void shc__session_settled(br_bridge *br, br_session *s)
{
    while (s->pending && !s->active) {
        br_pending *q = s->pending;
        s->pending = q->next;
        size_t n = 0;
        const char *why = NULL;
        shc_prompt_part *parts =
            q->cancelled || br->tearing ? NULL
                                        : shc__prompt_parts(q->prompt, s->be->images, &n, &why);
        if (q->cancelled || br->tearing)
            shc_rpc_respond(br->rpc, q->id, json_pack("{s:s}", "stopReason", "cancelled"));
        else if (!parts)
            invalid(br, q->id, why);
        else
            start(br, s, q->id, q->prompt, parts, n);
        free(parts);
        shc__pending_free(br, q);
    }
    json_t *h = shc__v2_take_held(br, s); /* v2: the next held prompt is inserted */
    if (h) {
        size_t n = 0;
        const char *why = NULL;
        json_t *hid = json_object_get(h, "id"), *prompt = json_object_get(h, "prompt");
        shc_prompt_part *parts = shc__prompt_parts(prompt, s->be->images, &n, &why);
        if (parts)
            start(br, s, hid, prompt, parts, n);
        else
            invalid(br, hid, why);
        free(parts);
        json_decref(h);
    }
    shc__wire_flush(br);
}

static void m_prompt(br_bridge *br, json_t *id, json_t *params)
{
    br_session *s = shc__session_find(br, str(params, "sessionId"));
    json_t *prompt = json_object_get(params, "prompt");
    if (!s) {
        invalid(br, id, "session/prompt: unknown session");
        return;
    }
    if (s->replay) {
        invalid(br, id, "session/prompt: the session is still loading");
        return;
    }
    s->used = ++br->uses;
    if (s->active && !s->active->cancelled && br->version != 2) {
        invalid(br, id, "session/prompt: a prompt is already in flight for this session");
        return;
    }
    const char *why = NULL;
    size_t n = 0;
    shc_prompt_part *parts = shc__prompt_parts(prompt, s->be->images, &n, &why);
    if (!parts)
        invalid(br, id, why);
    else if (s->active && br->version == 2) /* held until the session is idle */
        shc__v2_hold(br, s, id, prompt, prompt_bytes(parts, n));
    else if (s->active) /* behind the cancelled turn, which must answer first */
        queue_prompt(br, s, id, prompt, parts, n);
    else
        start(br, s, id, prompt, parts, n);
    free(parts);
}

static void m_cancel(br_bridge *br, json_t *params)
{
    br_session *s = shc__session_find(br, str(params, "sessionId"));
    if (s)
        shc__v2_drop_held(br, s); /* v2: held prompts are answered -32800 */
    if (!s || !s->active)
        return; /* unknown or idle: nothing to do, and nothing to say */
    shc_log_info(br->log, "session/cancel %s", s->id);
    for (br_pending *q = s->pending; q; q = q->next)
        q->cancelled = true; /* answered "cancelled" in their turn, after the running one */
    shc__v2_cancelling(s);
    shc__turn_cancel(s->active);
}

/* ------------------------------------------------------------------ modes, config options */

static void m_set(br_bridge *br, json_t *id, json_t *params, bool mode)
{
    br_session *s = shc__session_find(br, str(params, "sessionId"));
    const char *method = mode ? "session/set_mode" : "session/set_config_option";
    char msg[200];
    if (!s) {
        snprintf(msg, sizeof msg, "%s: unknown session", method);
        invalid(br, id, msg);
        return;
    }
    if (s->replay) {
        snprintf(msg, sizeof msg, "%s: the session is still loading", method);
        invalid(br, id, msg);
        return;
    }
    const char *opt = mode ? "mode" : str(params, "configId");
    const char *value = str(params, mode ? "modeId" : "value");
    const char *why = NULL;
    if (shc__opt_set(br, s, opt, value, &why) != 0) {
        snprintf(msg, sizeof msg, "%s: %s", method, why);
        invalid(br, id, msg);
        return;
    }
    shc_rpc_respond(br->rpc, id,
                    mode ? json_object()
                         : json_pack("{s:o}", "configOptions", shc__opt_config(br, s)));
}

/* ------------------------------------------------------------------ dispatch */

static const char *const methods[] = {
    "session/new",    "session/load",     "session/resume",           "session/list",
    "session/close",  "session/delete",   "session/prompt",           "session/cancel",
    "session/set_mode", "session/set_config_option",
};

bool shc__session_knows(const char *method)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (!strcmp(method, methods[i]))
            return true;
    return false;
}

void shc__session_method(br_bridge *br, json_t *id, const char *method, json_t *params)
{
    if (!strcmp(method, "session/cancel")) {
        m_cancel(br, params);
        if (id) /* a notification in ACP; a client that sent it as a request gets one answer */
            shc_rpc_respond(br->rpc, id, json_object());
        return;
    }
    if (!id) {
        shc_log_warn(br->log, "%s sent as a notification: ignored", method);
        return;
    }
    if (br->tearing) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "the bridge is shutting down", NULL);
        return;
    }
    if (!strcmp(method, "session/new"))
        m_new(br, id, params);
    else if (!strcmp(method, "session/load"))
        m_restore(br, id, params, false);
    else if (!strcmp(method, "session/resume"))
        m_restore(br, id, params, true);
    else if (!strcmp(method, "session/list"))
        shc__session_list(br, id, params);
    else if (!strcmp(method, "session/close"))
        m_close(br, id, params, false);
    else if (!strcmp(method, "session/delete"))
        m_close(br, id, params, true);
    else if (!strcmp(method, "session/prompt"))
        m_prompt(br, id, params);
    else if (!strcmp(method, "session/set_mode"))
        m_set(br, id, params, true);
    else
        m_set(br, id, params, false);
}
