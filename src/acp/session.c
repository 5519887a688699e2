/* The session methods of the ACP bridge: session/new, load, resume, list, close, delete,
 * prompt, cancel, set_mode and set_config_option, and the sessions' lifecycle (a closed or
 * deleted session is freed once its turns have wound down; its close is answered then).
 * Sessions survive the process through the store (store.c): every session has a file that the
 * journal writes as things happen, and load / resume read it back (replay.c). */
#include "acp/bridge_int.h"
#include "acp/prompt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void invalid(br_bridge *br, json_t *id, const char *msg)
{
    shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, msg, NULL);
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* ------------------------------------------------------------------ lifecycle */

static br_session *find_any(br_bridge *br, const char *id)
{
    for (br_session *s = br->sessions; s && id; s = s->next)
        if (!strcmp(s->id, id))
            return s;
    return NULL;
}

br_session *shc__session_find(br_bridge *br, const char *id)
{
    br_session *s = find_any(br, id);
    return s && !s->closing ? s : NULL;
}

static br_session *session_new(br_bridge *br, const char *id, const char *cwd)
{
    br_session *s = calloc(1, sizeof *s);
    if (!s || !(s->cwd = strdup(cwd))) {
        free(s);
        return NULL;
    }
    memcpy(s->id, id, SHC_STORE_ID_LEN + 1);
    s->caps = br->caps; /* snapshot: a later initialize doesn't change this session */
    s->approve = br->approve;
    s->next = br->sessions;
    br->sessions = s;
    return s;
}

static void unlink_session(br_bridge *br, br_session *s)
{
    for (br_session **pp = &br->sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            return;
        }
}

/* Frees a session that has no turn left (and answers its close or delete). */
void shc__session_free(br_bridge *br, br_session *s)
{
    unlink_session(br, s);
    br->be->ops->session_end(br->be, s->id);
    shc_store_close(s->file);
    if (s->close_id) {
        int rc = s->delete_after && br->store ? shc_store_delete(br->store, s->id) : 0;
        if (rc && rc != SHC_STORE_ENOENT)
            shc_rpc_error(br->rpc, s->close_id, SHC_RPC_INTERNAL_ERROR,
                          "session/delete: the session's file could not be removed", NULL);
        else
            shc_rpc_respond(br->rpc, s->close_id, json_object());
        json_decref(s->close_id);
    }
    if (s->load_id) { /* freed while loading: teardown */
        shc_rpc_error(br->rpc, s->load_id, SHC_RPC_INTERNAL_ERROR, "the bridge is shutting down",
                      NULL);
        json_decref(s->load_id);
    }
    free(s->cwd);
    free(s->model);
    free(s);
}

void shc__sessions_reap(br_bridge *br)
{
    bool freed = false;
    for (br_session *s = br->sessions, *next; s; s = next) {
        next = s->next;
        if (s->closing && !s->turns && !s->replay) {
            shc__session_free(br, s);
            freed = true;
        }
    }
    if (freed)
        shc__wire_flush(br); /* the answers to close / delete */
}

/* ------------------------------------------------------------------ common checks */

static bool cwd_ok(br_bridge *br, json_t *id, const char *method, const char *cwd)
{
    struct stat st;
    char msg[160];
    if (!cwd || cwd[0] != '/') {
        snprintf(msg, sizeof msg, "%s: cwd must be an absolute path", method);
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

/* mcpServers are accepted and not used (MCP tools are not there yet); additionalDirectories are
 * not advertised, so a non-empty list is refused. */
static bool extras_ok(br_bridge *br, json_t *id, const char *method, json_t *params)
{
    json_t *mcp = json_object_get(params, "mcpServers");
    json_t *dirs = json_object_get(params, "additionalDirectories");
    char msg[160];
    if (mcp && !json_is_null(mcp) && !json_is_array(mcp)) {
        snprintf(msg, sizeof msg, "%s: mcpServers must be an array", method);
        invalid(br, id, msg);
        return false;
    }
    if (json_array_size(mcp) > 0)
        shc_log_info(br->log, "%s: %zu MCP server(s) offered; shcard does not use MCP servers",
                     method, json_array_size(mcp));
    if (dirs && !json_is_null(dirs) && (!json_is_array(dirs) || json_array_size(dirs) > 0)) {
        snprintf(msg, sizeof msg, "%s: additionalDirectories are not supported", method);
        invalid(br, id, msg);
        return false;
    }
    return true;
}

static void iso_time(char *out, size_t cap, int64_t ns)
{
    time_t sec = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    size_t k = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + k, cap - k, ".%03dZ", (int)(ns / 1000000 % 1000));
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------------ new */

static void m_new(br_bridge *br, json_t *id, json_t *params)
{
    const char *cwd = str(params, "cwd");
    if (!cwd_ok(br, id, "session/new", cwd) || !extras_ok(br, id, "session/new", params))
        return;
    char sid[SHC_STORE_ID_LEN + 1];
    br_session *s = NULL;
    if (shc_store_new_id(sid) != 0 || !(s = session_new(br, sid, cwd))) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "cannot create a session", NULL);
        return;
    }
    if (br->store && shc__rec_session(br, s, br->be->ops->name) != 0)
        shc_log_warn(br->log, "session/new %s: not recorded in the store", s->id);
    /* the mode the flags gave is the session's own: a later shcard with other flags keeps it */
    shc__rec_config(s, "mode", s->approve == SHC_APPROVE_ASK ? "ask" : "all");
    shc_log_info(br->log, "session/new %s in %s", s->id, s->cwd);
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
    if (!br->store) {
        snprintf(msg, sizeof msg, "%s: this shcard keeps no session store (--no-store)", method);
        invalid(br, id, msg);
        return;
    }
    if (!cwd_ok(br, id, method, cwd) || !extras_ok(br, id, method, params))
        return;
    if (!shc_store_id_valid(sid)) {
        snprintf(msg, sizeof msg, "%s: unknown session", method);
        invalid(br, id, msg);
        return;
    }
    br_session *s = find_any(br, sid);
    if (s && (s->closing || s->replay || s->turns)) { /* a cancelled turn may still wind down */
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
        if (quiet) {
            shc_rpc_respond(br->rpc, id, shc__opt_state(br, s));
            return;
        }
        shc_store_close(s->file); /* read it again from the start, below */
        s->file = NULL;
    }
    shc_store_file *f = NULL;
    int rc = shc_store_open_session(&f, br->store, sid);
    if (rc) {
        if (s)
            shc__session_free(br, s);
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
    if (!s && !(s = session_new(br, sid, cwd))) {
        shc_store_close(f);
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
        return;
    }
    s->load_id = json_incref(id);
    shc_log_info(br->log, "%s %s in %s", method, s->id, cwd);
    if (shc__replay_start(br, s, f, quiet, loaded) != 0) {
        json_decref(s->load_id);
        s->load_id = NULL;
        shc__session_free(br, s);
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
    }
}

/* ------------------------------------------------------------------ list */

static int newest_first(const void *a, const void *b)
{
    const shc_store_info *x = a, *y = b;
    if (x->mtime_ns != y->mtime_ns)
        return x->mtime_ns > y->mtime_ns ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* The cursor names the last session of a page: "<mtime ns>:<id>".  Anything else is refused. */
static bool parse_cursor(const char *c, int64_t *ns, char id[SHC_STORE_ID_LEN + 1])
{
    const char *colon = c ? strchr(c, ':') : NULL;
    if (!colon || colon == c || colon - c > 19)
        return false;
    int64_t v = 0;
    for (const char *p = c; p < colon; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (*p - '0');
    }
    if (!shc_store_id_valid(colon + 1))
        return false;
    *ns = v;
    memcpy(id, colon + 1, SHC_STORE_ID_LEN + 1);
    return true;
}

static void m_list(br_bridge *br, json_t *id, json_t *params)
{
    json_t *jcwd = json_object_get(params, "cwd"), *jcur = json_object_get(params, "cursor");
    const char *cwd = json_string_value(jcwd), *cursor = json_string_value(jcur);
    if ((jcwd && !json_is_null(jcwd) && (!cwd || cwd[0] != '/')) ||
        (jcur && !json_is_null(jcur) && !cursor)) {
        invalid(br, id, "session/list: cwd must be an absolute path and cursor a string");
        return;
    }
    int64_t after_ns = 0;
    char after_id[SHC_STORE_ID_LEN + 1] = "";
    if (cursor && !parse_cursor(cursor, &after_ns, after_id)) {
        invalid(br, id, "session/list: invalid cursor");
        return;
    }
    json_t *out = json_array();
    shc_store_info *v = NULL;
    size_t n = 0;
    if (br->store && shc_store_list(br->store, &v, &n) != 0) {
        json_decref(out);
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "the session store cannot be read",
                      NULL);
        return;
    }
    qsort(v, n, sizeof *v, newest_first);
    size_t shown = 0;
    bool more = false;
    const shc_store_info *last = NULL;
    for (size_t i = 0; i < n; i++) {
        const shc_store_info *e = &v[i];
        if (e->corrupt) {
            shc_log_warn(br->log, "session/list: %s is not a readable session file: skipped",
                         e->id);
            continue;
        }
        if (!e->has_prompt || (cwd && strcmp(cwd, e->cwd)))
            continue;
        if (cursor && (e->mtime_ns > after_ns ||
                       (e->mtime_ns == after_ns && strcmp(e->id, after_id) <= 0)))
            continue;
        if (shown == BR_LIST_PAGE) {
            more = true;
            break;
        }
        char when[40];
        iso_time(when, sizeof when, e->mtime_ns);
        json_t *it = json_pack("{s:s,s:s,s:s}", "sessionId", e->id, "cwd", e->cwd, "updatedAt",
                               when);
        if (it && e->title)
            json_object_set_new(it, "title", json_string(e->title));
        json_array_append_new(out, it);
        last = e;
        shown++;
    }
    json_t *res = json_pack("{s:o}", "sessions", out);
    if (more && last) {
        char next[64];
        snprintf(next, sizeof next, "%lld:%s", (long long)last->mtime_ns, last->id);
        json_object_set_new(res, "nextCursor", json_string(next));
    }
    shc_store_list_free(v, n);
    shc_rpc_respond(br->rpc, id, res);
}

/* ------------------------------------------------------------------ close, delete */

/* A session is freed once nothing runs in it; its close (or delete) is answered then. */
static void close_session(br_bridge *br, br_session *s, json_t *id, bool del)
{
    s->closing = true;
    s->delete_after = del;
    s->close_id = json_incref(id);
    if (s->replay) { /* a load in progress fails, and its end frees the session */
        shc__replay_abort(br, s, del ? "the session was deleted" : "the session was closed");
        return;
    }
    for (br_turn *t = s->turns; t; t = t->next)
        shc__turn_cancel(t);
    shc__sessions_reap(br); /* at once when nothing runs */
}

static void m_close(br_bridge *br, json_t *id, json_t *params, bool del)
{
    const char *sid = str(params, "sessionId");
    const char *method = del ? "session/delete" : "session/close";
    char msg[200];
    br_session *s = find_any(br, sid);
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
    if (rc == 0) {
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
    iso_time(when, sizeof when, now_ns());
    shc__rec_title(s, title, when);
    shc__wire_update(br, s, json_pack("{s:s,s:s,s:s}", "sessionUpdate", "session_info_update",
                                      "title", title, "updatedAt", when));
    free(title);
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
    if (s->active) {
        invalid(br, id, "session/prompt: a prompt is already in flight for this session");
        return;
    }
    const char *why = NULL;
    size_t n = 0;
    shc_prompt_part *parts = shc__prompt_parts(prompt, br->be->images, &n, &why);
    if (!parts) {
        invalid(br, id, why);
        return;
    }
    title_once(br, s, parts, n);
    shc__rec_prompt(s, prompt);
    if (shc__turn_start(br, s, id, parts, n) != 0)
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
    free(parts);
}

static void m_cancel(br_bridge *br, json_t *params)
{
    br_session *s = shc__session_find(br, str(params, "sessionId"));
    if (!s || !s->active)
        return; /* unknown or idle: nothing to do, and nothing to say */
    shc_log_info(br->log, "session/cancel %s", s->id);
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
        m_list(br, id, params);
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
