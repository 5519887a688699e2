/* src/acp/ owns the ACP agent on stdio (JSON-RPC through rpc/): the bridge's
 * transport, dispatch and teardown (this file), the session methods (session.c), turns and tool
 * calls (turn.c, cterm.c, call.c), the writer and session/update notifications (wire.c), the
 * presenter (present.c: verdict + client capabilities -> card JSON, the only place that knows
 * how a card looks on the wire), the session store (store.c: one file per session; journal.c
 * writes what happened, replay.c reads it back through the presenter), and ACP v2 (v2.c: the
 * negotiation and what differs on v2's method side; v2enc.c: the v2 dialect of the wire).
 * May use: rpc/, agent/ (the seam, never a particular backend), exec/, classify/ (through the public
 * API), base/.
 *
 * The ACP bridge: stdio transport on the loop, ACP methods, sessions, and the one teardown that
 * every exit path (stdin EOF, any catchable terminating signal, a broken stdout) goes through;
 * it ends in bounded time (children killed after teardown_ms, output given up after flush_ms).
 * The session methods live in session.c, turns and tool calls in turn.c, the writer in wire.c. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"
#include "base/signame.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static void teardown(br_bridge *br, const char *why);

/* ------------------------------------------------------------------ methods */

static void invalid(br_bridge *br, json_t *id, const char *msg)
{
    shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, msg, NULL);
}

/* Capabilities for only what is implemented: the session methods that need the store only with
 * one; images only when the model takes them. */
static json_t *agent_caps(const br_bridge *br)
{
    json_t *sc = json_pack("{s:{}}", "close");
    if (br->store) {
        json_object_set_new(sc, "list", json_object());
        json_object_set_new(sc, "resume", json_object());
        json_object_set_new(sc, "delete", json_object());
    }
    return json_pack("{s:b,s:{s:b,s:b,s:b},s:{s:b,s:b},s:o}", "loadSession", br->store != NULL,
                     "promptCapabilities", "image", br->be->images, "audio", 0, "embeddedContext",
                     1, "mcpCapabilities", "http", 1, "sse", 0, "sessionCapabilities", sc);
}

/* initialize's params, checked against the schema's types before anything is taken from them.
 * NULL, or the -32602 message. */
static const char *bad_initialize(json_t *params)
{
    json_t *pv = json_object_get(params, "protocolVersion");
    if (!json_is_integer(pv) || json_integer_value(pv) < 0 || json_integer_value(pv) > 65535)
        return "initialize: protocolVersion must be an integer (0-65535)";
    json_t *cc = json_object_get(params, "clientCapabilities");
    if (cc && !json_is_object(cc))
        return "initialize: clientCapabilities must be an object";
    json_t *v;
    if ((v = json_object_get(cc, "terminal")) && !json_is_boolean(v))
        return "initialize: clientCapabilities.terminal must be a boolean";
    if ((v = json_object_get(cc, "fs")) && !json_is_object(v))
        return "initialize: clientCapabilities.fs must be an object";
    if ((v = json_object_get(cc, "_meta")) && !json_is_object(v))
        return "initialize: clientCapabilities._meta must be an object";
    if ((v = json_object_get(params, "clientInfo")) && !json_is_object(v) && !json_is_null(v))
        return "initialize: clientInfo must be an object";
    return NULL;
}

static void m_initialize(br_bridge *br, json_t *id, json_t *params)
{
    const char *bad = bad_initialize(params);
    if (bad) {
        invalid(br, id, bad);
        return;
    }
    int version = shc__v2_negotiate(br, id, params); /* v2.c */
    if (version != 1) {
        if (version == 2)
            shc__v2_initialize(br, id, params);
        return;
    }
    json_t *cc = json_object_get(params, "clientCapabilities");
    json_t *meta = json_object_get(cc, "_meta");
    br->caps.terminal = json_is_true(json_object_get(cc, "terminal"));
    br->caps.terminal_output = json_is_true(json_object_get(meta, "terminal_output"));
    br->caps.terminal_output_delta = json_is_true(json_object_get(meta, "terminal_output_delta"));
    br->caps.display_terminals = false;
    br->caps.client_terminals = br->cfg.client_terminals;
    json_t *notices = json_object_get(json_object_get(cc, "session"), "notices");
    br->caps.notices = json_is_object(notices);
    shc_log_info(br->log, "initialize: terminal=%d _meta.terminal_output=%d notices=%d%s",
                 br->caps.terminal, br->caps.terminal_output, br->caps.notices,
                 br->caps.terminal_output_delta ? " _meta.terminal_output_delta=1" : "");
    shc_rpc_respond(br->rpc, id,
                    json_pack("{s:i,s:o,s:o,s:{s:s,s:s,s:s}}", "protocolVersion", 1,
                              "agentCapabilities", agent_caps(br), "authMethods",
                              shc__auth_methods(br, cc), "agentInfo", "name", "shcard", "title",
                              "shcard", "version", SHC_VERSION));
}

static void on_message(void *payload, shc_rpc *rpc, json_t *id, const char *method,
                       json_t *params)
{
    br_bridge *br = payload;
    (void)rpc;
    bool known = !strcmp(method, "initialize") ||
                 (br->version == 2 ? shc__v2_method_known(method)
                                   : !strcmp(method, "authenticate") || shc__session_knows(method));
    if (!known) {
        /* the name is echoed, but never more than 128 bytes of it */
        size_t n = strlen(method), k = n > 128 ? 128 : n;
        while (k < n && k > 0 && ((unsigned char)method[k] & 0xC0) == 0x80)
            k--;
        if (id)
            shc_rpc_error(br->rpc, id, SHC_RPC_METHOD_NOT_FOUND, "Method not found",
                          json_pack("{s:s%}", "method", method, k));
        else
            shc_log_debug(br->log, "ignoring notification %.*s", (int)k, method);
        goto out;
    }
    if (params && !json_is_object(params)) {
        if (id)
            invalid(br, id, "params must be an object");
        goto out;
    }
    if (strncmp(method, "session/", 8) == 0) {
        shc__session_method(br, id, method, params);
        goto out;
    }
    if (!id) {
        shc_log_warn(br->log, "%s sent as a notification: ignored", method);
        goto out;
    }
    if (!strcmp(method, "initialize"))
        m_initialize(br, id, params);
    else if (!strcmp(method, "terminal/cancel"))
        shc__v2_terminal_cancel(br, id, params);
    else
        shc__auth_authenticate(br, id, params); /* auth.c */
out:
    shc__wire_flush(br);
}

/* ------------------------------------------------------------------ input */

static void on_stdin(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)events;
    br_bridge *br = payload;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        shc_rpc_feed_eof(br->rpc);
        br->in_eof = true;
        shc_loop_unwatch(br->loop, br->in_watch);
        br->in_watch = 0;
        teardown(br, n < 0 ? "stdin read error" : "stdin closed");
        return;
    }
    if (shc_rpc_feed(br->rpc, buf, (size_t)n) != 0)
        shc_log_error(br->log, "out of memory reading a message");
    shc__wire_flush(br);
}

/* ------------------------------------------------------------------ teardown */

static bool all_idle(const br_bridge *br)
{
    for (const br_session *s = br->sessions; s; s = s->next)
        if (s->turns || s->replay)
            return false;
    return true;
}

/* The client stopped reading: what is still queued is given up so that the process ends. */
static void on_flush_deadline(shc_loop *loop, void *payload)
{
    br_bridge *br = payload;
    br->flush_timer = 0;
    if (!shc_rpc_queued(br->rpc) && br->finished)
        return;
    br->flush_late = true;
    shc_log_warn(br->log, "teardown: the client did not read %zu bytes of output in time; exiting",
                 shc_rpc_queued(br->rpc));
    shc_loop_stop(loop);
}

static void on_hard_deadline(shc_loop *loop, void *payload)
{
    br_bridge *br = payload;
    br->flush_late = true;
    shc_log_error(br->log, "teardown did not complete in time; exiting");
    shc_loop_stop(loop);
}

static void teardown_check(br_bridge *br)
{
    if (!br->tearing || br->finished || !all_idle(br))
        return;
    br->finished = true;
    if (br->teardown_timer) {
        shc_loop_cancel_timer(br->loop, br->teardown_timer);
        br->teardown_timer = 0;
    }
    while (br->sessions)
        shc__session_free(br, br->sessions);
    shc_log_info(br->log, "teardown complete");
    br->flush_timer = shc_loop_timer(br->loop, br->cfg.flush_ms ? br->cfg.flush_ms : 2000,
                                     on_flush_deadline, br);
    shc__wire_flush(br); /* stops the loop once the queue is written (or the writer broke) */
}

static void on_teardown_deadline(shc_loop *loop, void *payload)
{
    (void)loop;
    br_bridge *br = payload;
    br->teardown_timer = 0;
    shc_log_warn(br->log, "teardown: children still running after the grace period; killing");
    for (br_session *s = br->sessions; s; s = s->next)
        for (br_turn *t = s->turns; t; t = t->next)
            shc__turn_force(t);
    shc_rpc_abandon_all(br->rpc);
}

static void teardown(br_bridge *br, const char *why)
{
    if (br->tearing)
        return; /* once: a second trigger waits for the same completion */
    br->tearing = true;
    shc_log_info(br->log, "teardown: %s", why);
    if (br->in_watch) {
        shc_loop_unwatch(br->loop, br->in_watch);
        br->in_watch = 0;
    }
    uint64_t ms = br->cfg.teardown_ms ? br->cfg.teardown_ms : 3000;
    br->teardown_timer = shc_loop_timer(br->loop, ms, on_teardown_deadline, br);
    /* Whatever happens below, the process ends: children killed after ms, the output given up
     * flush_ms after that; this last timer only catches a teardown that never completes. */
    uint64_t flush = br->cfg.flush_ms ? br->cfg.flush_ms : 2000;
    shc_loop_timer(br->loop, ms + flush + 1000, on_hard_deadline, br);
    for (br_session *s = br->sessions, *next; s; s = next) {
        next = s->next;
        shc__v2_drop_held(br, s);
        shc__v2_cancelling(s);
        for (br_turn *t = s->turns; t; t = t->next)
            shc__turn_cancel(t);
        shc__replay_abort(br, s, "the bridge is shutting down"); /* may free s */
    }
    /* the client may be gone: requests it will never answer must not hold the teardown */
    if (br->in_eof || shc_rpc_broken(br->rpc))
        shc_rpc_abandon_all(br->rpc);
    teardown_check(br);
}

/* Every catchable terminating signal (base/signame.c) comes here through the loop's signalfd,
 * so that SIGHUP from a closing terminal, SIGQUIT, SIGUSR1, a realtime signal... all end in the
 * one teardown instead of the default action, which would leave the commands running. */
static void on_signal(shc_loop *loop, int signo, void *payload)
{
    br_bridge *br = payload;
    if (signo == SIGPIPE && shc_loop_signal_sender(loop) == getpid())
        return; /* our own write to a closed pipe: the writer sees EPIPE and handles it */
    const char *name = shc_signal_name(signo);
    teardown(br, name ? name : "a signal");
}

/* ------------------------------------------------------------------ run */

static void set_nonblock(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return; /* a terminal or file: leave the shared file description alone */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* A turn was freed: a closing session may go now, and so may the teardown. */
static void on_turn_gone(br_bridge *br)
{
    shc__sessions_reap(br);
    teardown_check(br);
}

/* GET /models answered: the model selector of every session learns the list. */
static void on_models(void *payload, const char *const *models, size_t n)
{
    br_bridge *br = payload;
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++)
        json_array_append_new(list, json_string(models[i]));
    json_decref(br->models);
    br->models = list;
    shc_log_info(br->log, "the model server lists %zu model(s)", n);
    if (br->tearing || n == 0)
        return;
    for (br_session *s = br->sessions; s; s = s->next)
        if (!s->closing && !s->replay && s->be == br->be)
            shc__wire_update(br, s, json_pack("{s:s,s:o}", "sessionUpdate",
                                              "config_option_update", "configOptions",
                                              shc__opt_config(br, s)));
    shc__wire_flush(br);
}

static void open_store(br_bridge *br)
{
    const shc_bridge_config *cfg = &br->cfg;
    if (cfg->no_store)
        return;
    char err[512];
    if (!cfg->store_dir) {
        shc_log_warn(br->log, "no session store: neither XDG_STATE_HOME nor HOME is set");
        return;
    }
    if (shc_store_open(&br->store, cfg->store_dir, cfg->store_max_bytes, br->log, err,
                       sizeof err) != 0) {
        shc_log_warn(br->log, "no session store (sessions are not kept): %s", err);
        br->store = NULL;
        return;
    }
    shc_log_info(br->log, "session store %s (at most %llu bytes)", shc_store_path(br->store),
                 (unsigned long long)shc_store_max_bytes(br->store));
}

int shc_bridge_run(shc_bridge_config *cfg)
{
    int status = 1;
    br_bridge *br = calloc(1, sizeof *br);
    if (!br) {
        if (cfg->backend)
            cfg->backend->ops->free(cfg->backend);
        return 1;
    }
    br->cfg = *cfg;
    br->log = &cfg->log;
    br->hooks.teardown = teardown;
    br->hooks.turn_gone = on_turn_gone;
    br->hooks.progress = shc__turn_progress;
    br->hooks.settled = shc__session_settled;
    br->hooks.models = on_models;
    br->be = cfg->backend;
    cfg->backend = NULL; /* ours now */
    if (!br->be) {
        shc_log_error(br->log, "no agent backend");
        goto fail;
    }
    br->approve = cfg->approve;
    if (br->approve == SHC_APPROVE_DEFAULT)
        br->approve = !strcmp(br->be->ops->name, "shell") ? SHC_APPROVE_ALL : SHC_APPROVE_ASK;
    br->sandbox = shc__sandbox_default(cfg, br->be->ops->name);
    shc_sandbox_sweep();
    br->landlock_abi = -1;
    br->in_fd = cfg->in_fd >= 0 ? cfg->in_fd : 0;
    br->out_fd = cfg->out_fd >= 0 ? cfg->out_fd : 1;
    signal(SIGPIPE, SIG_IGN); /* EPIPE comes back from write(); the executor resets children */
    set_nonblock(br->in_fd);
    set_nonblock(br->out_fd);
    shc_rpc_config rc = {cfg->max_line, shc__wire_writer(), br, on_message, br, 0, NULL};
    br->loop = shc_loop_new();
    br->rpc = shc_rpc_new(&rc);
    if (!br->loop || !br->rpc)
        goto fail;
    br->exec = shc_exec_new(br->loop);
    if (!br->exec)
        goto fail;
    shc_log_info(br->log, "commands are contained by %s", shc_exec_containment(br->exec));
    br->in_watch = shc_loop_watch(br->loop, br->in_fd, SHC_LOOP_READ, on_stdin, br);
    br->out_watch = shc_loop_watch(br->loop, br->out_fd, 0, shc__wire_on_writable, br);
    if (br->in_watch < 0 || br->out_watch < 0)
        goto fail;
    sigset_t term;
    shc_signal_terminating(&term);
    for (int sig = 1; sig < NSIG; sig++) {
        if (!sigismember(&term, sig) || shc_loop_signal(br->loop, sig, on_signal, br) == 0)
            continue;
        if (sig == SIGTERM || sig == SIGINT)
            goto fail;
        shc_log_warn(br->log, "cannot watch signal %d: %s", sig, strerror(errno));
    }
    open_store(br);
    if (br->be->ops->list_models)
        br->be->ops->list_models(br->be, br->loop, on_models, br);
    shc_log_info(br->log, "ready (%s backend, approve %s%s)", br->be->ops->name,
                 br->approve == SHC_APPROVE_ASK ? "ask" : "all",
                 cfg->client_terminals ? ", client terminals" : "");
    int lr = shc_loop_run(br->loop);
    if (lr != 0)
        shc_log_error(br->log, "event loop failed: %s", strerror(-lr));
    status = br->finished && lr == 0 && !br->flush_late ? 0 : 1;
    shc_rpc_close_output(br->rpc); /* nothing is written after teardown */
fail:
    if (status != 0 && !br->finished)
        shc_log_error(br->log, "could not start or finish cleanly");
    while (br->sessions) { /* only on a failure path: normal teardown emptied it */
        br_session *s = br->sessions;
        while (s->turns)
            shc__turn_force(s->turns), s->turns = s->turns->next;
        shc__replay_abort(br, s, "the bridge failed");
        if (br->sessions == s)
            shc__session_free(br, s);
    }
    shc_exec_free(br->exec);
    shc_rpc_free(br->rpc);
    shc__auth_free(br); /* backends before the loop: freeing one removes its loop registrations */
    if (br->be)
        br->be->ops->free(br->be);
    shc_loop_free(br->loop);
    shc_store_free(br->store);
    json_decref(br->models);
    free(br);
    return status;
}
