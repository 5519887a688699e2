/* A fake bridge for the model backend: drives an shc_backend through the seam (backend.h)
 * the way `shcard acp` does, without ACP.  Each prompt argument is one turn of one session;
 * every callback is printed as one JSON line on stdout, so tests can check the sequence.
 * Tool calls really run (sh -c, in --cwd, output captured), or are rejected or cancelled.
 *
 *   model_host [model flags] [--reject] [--cancel-on-tool] [--cancel-after-ms N]
 *              [--cwd DIR] [--session ID] -- PROMPT...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/backend.h"
#include "model/config.h"
#include "base/loop.h"
#include "model/openai.h"

typedef struct host {
    shc_loop *loop;
    shc_backend *be;
    shc_backend_turn *turn;
    shc_backend_host cbs;
    char **prompts;
    int nprompts, next;
    const char *cwd, *session;
    bool reject, cancel_on_tool;
    long cancel_after_ms;
    int cancel_timer;
    int status;
} host;

static void emit(json_t *o /* steals */)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    printf("%s\n", s);
    fflush(stdout);
    free(s);
    json_decref(o);
}

static void on_message(void *p, const char *text, size_t len)
{
    (void)p;
    emit(json_pack("{s:s, s:s%}", "type", "message", "text", text, len));
}

static void on_thought(void *p, const char *text, size_t len)
{
    (void)p;
    emit(json_pack("{s:s, s:s%}", "type", "thought", "text", text, len));
}

/* Runs command with sh -c in cwd; returns the output (owned) and the wait status. */
static char *run(const char *cwd, const char *command, int *wstatus)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC))
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (cwd && chdir(cwd))
            _exit(126);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0, cap = 4096;
    char *out = malloc(cap);
    ssize_t k;
    while (out && (k = read(fds[0], out + n, cap - n - 1)) > 0) {
        n += (size_t)k;
        if (cap - n < 2) {
            char *o2 = realloc(out, cap * 2);
            if (!o2) {
                free(out);
                out = NULL;
                break;
            }
            out = o2;
            cap *= 2;
        }
    }
    close(fds[0]);
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
        ;
    if (out)
        out[n] = '\0';
    return out;
}

static void on_tool_call(void *p, const char *call_id, const char *command, const char *description)
{
    host *h = p;
    emit(json_pack("{s:s, s:s, s:s, s:s}", "type", "tool_call", "id", call_id, "command", command,
                   "description", description ? description : ""));
    if (h->cancel_on_tool) {
        h->be->ops->cancel(h->turn);
        return;
    }
    shc_tool_result r = {.call_id = call_id};
    char *out = NULL;
    if (h->reject) {
        r.ran = false;
        r.error = "rejected by the user";
    } else {
        int ws = 0;
        out = run(h->cwd, command, &ws);
        r.ran = true;
        r.model_text = out ? out : "";
        if (WIFSIGNALED(ws))
            r.signal = WTERMSIG(ws) == SIGKILL   ? "SIGKILL"
                       : WTERMSIG(ws) == SIGTERM ? "SIGTERM"
                                                 : "SIGNAL";
        else
            r.exit_code = WEXITSTATUS(ws);
    }
    /* answered from inside tool_call: the backend must cope with a synchronous result */
    h->be->ops->tool_result(h->turn, &r);
    free(out);
}

static void start_next(host *h);

static const char *env(const char *name)
{
    return getenv(name);
}

static void on_cancel_timer(shc_loop *loop, void *p)
{
    (void)loop;
    host *h = p;
    h->cancel_timer = 0;
    if (h->turn) {
        emit(json_pack("{s:s}", "type", "cancelling"));
        h->be->ops->cancel(h->turn);
    }
}

static const char *reason_name(shc_stop_reason r)
{
    switch (r) {
    case SHC_STOP_END_TURN: return "end_turn";
    case SHC_STOP_MAX_TOKENS: return "max_tokens";
    case SHC_STOP_MAX_TURN_REQUESTS: return "max_turn_requests";
    case SHC_STOP_REFUSAL: return "refusal";
    case SHC_STOP_CANCELLED: return "cancelled";
    }
    return "?";
}

static void on_turn_done(void *p, shc_stop_reason reason, int code, const char *error)
{
    host *h = p;
    emit(json_pack("{s:s, s:s, s:i, s:s?}", "type", "done", "reason", reason_name(reason), "code",
                   code, "error", error));
    if (h->cancel_timer)
        shc_loop_cancel_timer(h->loop, h->cancel_timer);
    h->cancel_timer = 0;
    h->be->ops->turn_free(h->turn);
    h->turn = NULL;
    start_next(h);
}

static void on_history(void *p, size_t index, const char *entry)
{
    (void)p;
    emit(json_pack("{s:s, s:I, s:o}", "type", "history", "i", (json_int_t)index, "entry",
                   entry ? json_loads(entry, 0, NULL) : json_null()));
}

static void on_usage(void *p, uint64_t used, uint64_t size)
{
    (void)p;
    emit(json_pack("{s:s, s:I, s:I}", "type", "usage", "used", (json_int_t)used, "size",
                   (json_int_t)size));
}

static void on_notice(void *p, const char *text)
{
    (void)p;
    emit(json_pack("{s:s, s:s}", "type", "notice", "text", text));
}

static void start_next(host *h)
{
    if (h->next >= h->nprompts) {
        shc_loop_stop(h->loop);
        return;
    }
    const char *prompt = h->prompts[h->next++];
    shc_prompt_part part = {SHC_PROMPT_TEXT, prompt, strlen(prompt), NULL, NULL, NULL};
    h->turn = h->be->ops->turn_start(h->be, h->loop, h->session, h->cwd, &part, 1, &h->cbs);
    if (h->turn && h->cancel_after_ms > 0)
        h->cancel_timer = shc_loop_timer(h->loop, (uint64_t)h->cancel_after_ms, on_cancel_timer, h);
}

int main(int argc, char **argv)
{
    host h = {.cwd = "/tmp", .session = "s1"};
    shc_model_config cfg;
    shc_model_config_init(&cfg);
    char err[512];
    int i = 1;
    while (i < argc) {
        int rc = shc_model_config_flag(&cfg, argc, argv, &i, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "model_host: %s\n", err);
            return 2;
        }
        if (rc == 1)
            continue;
        const char *a = argv[i];
        if (!strcmp(a, "--reject"))
            h.reject = true;
        else if (!strcmp(a, "--cancel-on-tool"))
            h.cancel_on_tool = true;
        else if (!strcmp(a, "--cancel-after-ms") && i + 1 < argc)
            h.cancel_after_ms = atol(argv[++i]);
        else if (!strcmp(a, "--cwd") && i + 1 < argc)
            h.cwd = argv[++i];
        else if (!strcmp(a, "--session") && i + 1 < argc)
            h.session = argv[++i];
        else if (!strcmp(a, "--")) {
            i++;
            break;
        } else {
            fprintf(stderr, "model_host: unknown argument %s\n", a);
            return 2;
        }
        i++;
    }
    h.prompts = argv + i;
    h.nprompts = argc - i;
    if (shc_model_config_resolve(&cfg, env, err, sizeof err)) {
        fprintf(stderr, "model_host: %s\n", err);
        return 2;
    }
    if (!shc_model_config_enabled(&cfg)) {
        fprintf(stderr, "model_host: no key and no --base-url\n");
        return 2;
    }
    h.be = shc_openai_new(&cfg, err, sizeof err);
    shc_model_config_free(&cfg);
    h.loop = shc_loop_new();
    if (!h.be || !h.loop) {
        fprintf(stderr, "model_host: setup failed\n");
        return 1;
    }
    h.cbs = (shc_backend_host){&h,           on_message, on_thought, on_tool_call,
                               on_turn_done, on_history, on_usage,   on_notice, NULL};
    start_next(&h);
    int rc = shc_loop_run(h.loop);
    emit(json_pack("{s:s, s:i}", "type", "exit", "loop", rc));
    h.be->ops->session_end(h.be, h.session);
    h.be->ops->free(h.be);
    shc_loop_free(h.loop);
    return rc ? 1 : 0;
}
