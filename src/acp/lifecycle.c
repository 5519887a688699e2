/* The sessions in memory: finding, making and freeing them, the cap on how many stay in memory,
 * and freeing the closed ones once their turns are gone (answering their close or delete).
 * Below session.c (the methods) and bridge.c (teardown). */
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

br_session *shc__session_find_any(br_bridge *br, const char *id)
{
    for (br_session *s = br->sessions; s && id; s = s->next)
        if (!strcmp(s->id, id))
            return s;
    return NULL;
}

br_session *shc__session_find(br_bridge *br, const char *id)
{
    br_session *s = shc__session_find_any(br, id);
    return s && !s->closing ? s : NULL;
}

br_session *shc__session_new(br_bridge *br, const char *id, const char *cwd)
{
    br_session *s = calloc(1, sizeof *s);
    if (!s || !(s->cwd = strdup(cwd))) {
        free(s);
        return NULL;
    }
    snprintf(s->id, sizeof s->id, "%s", id);
    s->br = br;
    s->caps = br->caps; /* snapshot: a later initialize doesn't change this session */
    s->approve = br->approve;
    s->be = br->be;
    /* the sandbox's default follows the backend this session runs on (a login can turn shell
     * mode into a model after start) */
    s->sandbox = shc__sandbox_default(&br->cfg, s->be->ops->name);
    s->network = br->cfg.allow_network;
    shc__sandbox_tell(br, s);
    s->used = ++br->uses;
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

void shc__pending_free(br_bridge *br, br_pending *q)
{
    br->queued_bytes -= q->bytes;
    json_decref(q->id);
    json_decref(q->prompt);
    free(q);
}

/* Frees a session that has no turn left (and answers its close or delete). */
void shc__session_free(br_bridge *br, br_session *s)
{
    unlink_session(br, s);
    while (s->pending) { /* only on a failure path: settling drains the queue */
        br_pending *q = s->pending;
        s->pending = q->next;
        shc__pending_free(br, q);
    }
    shc__mcp_session_end(s); /* its servers end with it */
    json_decref(s->mcp_servers);
    s->be->ops->session_end(s->be, s->id);
    shc__auth_release(br, s->be);
    shc__v2_free(s->v2);
    json_decref(s->v2_held); /* answered already (close, cancel, teardown) */
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
    shc_gitsnap_free(s->git_last);
    free(s->cwd);
    free(s->model);
    free(s);
}

void shc__sessions_reap(br_bridge *br)
{
    bool freed = false;
    for (br_session *s = br->sessions, *next; s; s = next) {
        next = s->next;
        if (s->closing && !s->turns && !s->replay && !s->pending) {
            shc__session_free(br, s);
            freed = true;
        }
    }
    if (freed)
        shc__wire_flush(br); /* the answers to close / delete */
}

/* Each session holds its store file open: under a low descriptor limit fewer stay in memory,
 * so that 256 descriptors are always left for commands, pipes and the store, the descriptors
 * the MCP servers of all sessions hold counted (their own budget, mcp/flow.c). */
static size_t max_sessions(const br_bridge *br)
{
    struct rlimit rl;
    size_t cap = SHC_BR_MAX_SESSIONS, mcp = br->mcp_budget.fds_used;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < (rlim_t)(cap + 256 + mcp))
        cap = rl.rlim_cur > 256 + 16 + mcp ? (size_t)rl.rlim_cur - 256 - mcp : 16;
    return cap;
}

/* At most max_sessions() sessions in memory: the one used longest ago that has nothing
 * running goes (its backend state too; the store keeps it: session/load or resume bring it
 * back; a prompt naming it meanwhile gets "unknown session").  False when every one is busy. */
bool shc__session_make_room(br_bridge *br)
{
    size_t n = 0;
    br_session *oldest = NULL;
    for (br_session *s = br->sessions; s; s = s->next) {
        n++;
        if (!s->turns && !s->pending && !s->replay && !s->closing &&
            (!oldest || s->used < oldest->used))
            oldest = s;
    }
    if (n < max_sessions(br))
        return true;
    if (!oldest)
        return false;
    shc_log_info(br->log, "session limit: %s leaves memory", oldest->id);
    shc__session_free(br, oldest);
    return true;
}
