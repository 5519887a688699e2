/* Shell mode: each non-empty prompt line is one bash call, in order.  A failing line does not
 * stop the next one (like a script without -e); the summary says how many failed.  The lines
 * come from the prompt's blocks through quote.c: text as typed, every @-mention one quoted path
 * argument, a line of only mentions context that is not run. */
#include "agent/shell.h"
#include "agent/quote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shell_turn {
    shc_backend_host host;      /* copied: valid for the whole turn */
    char *text;                 /* owned copy of the prompt; each line is cut in place when issued */
    size_t len, pos;            /* where the next line starts */
    size_t nlines, next;        /* non-empty lines in all, and issued so far */
    size_t ok, failed, not_run;
    size_t context_only;        /* lines made only of @-mentions: not run */
    bool done;                  /* turn_done was called */
    char call_id[32];
} shell_turn;

static void turn_finish(shell_turn *t, shc_stop_reason reason)
{
    if (t->done)
        return;
    t->done = true;
    if (reason == SHC_STOP_END_TURN) {
        char msg[300];
        size_t ran = t->ok + t->failed;
        if (t->nlines == 0)
            snprintf(msg, sizeof msg,
                     "Nothing to run: shell mode runs the command lines you type, and attached "
                     "context or an @-mention on a line of its own is not a command.");
        else if (t->nlines == 1)
            snprintf(msg, sizeof msg, "Ran 1 command: %s.",
                     t->ok ? "it succeeded" : t->failed ? "it failed" : "it did not run");
        else
            snprintf(msg, sizeof msg, "Ran %zu of %zu commands: %zu succeeded, %zu failed%s.", ran,
                     t->nlines, t->ok, t->failed, t->not_run ? ", some were not run" : "");
        if (t->nlines && t->context_only) {
            size_t k = strlen(msg);
            snprintf(msg + k, sizeof msg - k, " %zu line(s) held only @-mentions and were not run.",
                     t->context_only);
        }
        if (t->host.message_chunk)
            t->host.message_chunk(t->host.payload, msg, strlen(msg));
    }
    t->host.turn_done(t->host.payload, reason, 0, NULL);
}

/* The next trimmed non-empty line at or after *pos: [*s, *e), *pos moved past it.  False when
 * none is left.  One pass, no copy: a prompt of a million lines costs nothing per line. */
static bool next_line(const char *text, size_t len, size_t *pos, size_t *s, size_t *e)
{
    while (*pos < len) {
        const char *p = text + *pos;
        const char *nl = memchr(p, '\n', len - *pos);
        size_t n = nl ? (size_t)(nl - p) : len - *pos;
        size_t a = *pos, b = *pos + n;
        *pos = b + (nl ? 1 : 0);
        while (a < b && (text[a] == ' ' || text[a] == '\t' || text[a] == '\r'))
            a++;
        while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\r'))
            b--;
        if (b > a) {
            *s = a;
            *e = b;
            return true;
        }
    }
    return false;
}

static void issue_next(shell_turn *t)
{
    if (t->done)
        return;
    size_t s, e;
    if (!next_line(t->text, t->len, &t->pos, &s, &e)) {
        turn_finish(t, SHC_STOP_END_TURN);
        return;
    }
    t->text[e] = 0; /* past the line: its newline or trailing blanks, never read again */
    t->next++;
    snprintf(t->call_id, sizeof t->call_id, "line_%zu", t->next);
    t->host.tool_call(t->host.payload, t->call_id, t->text + s, NULL);
}

static shc_backend_turn *shell_turn_start(shc_backend *be, shc_loop *loop, const char *session_id,
                                          const char *cwd, const shc_prompt_part *parts,
                                          size_t nparts, const shc_backend_host *host)
{
    (void)be;
    (void)loop;
    (void)session_id;
    shell_turn *t = calloc(1, sizeof *t);
    if (!t)
        goto nomem;
    t->host = *host;
    t->text = shc_shell_prompt(parts, nparts, cwd, &t->context_only);
    if (!t->text)
        goto nomem;
    t->len = strlen(t->text);
    size_t pos = 0, s, e;
    while (next_line(t->text, t->len, &pos, &s, &e))
        t->nlines++;
    issue_next(t);
    return (shc_backend_turn *)t;
nomem:
    free(t);
    host->turn_done(host->payload, SHC_STOP_END_TURN, -32603, "out of memory");
    return NULL;
}

static void shell_tool_result(shc_backend_turn *bt, const shc_tool_result *r)
{
    shell_turn *t = (shell_turn *)bt;
    if (t->done)
        return;
    if (!r->ran)
        t->not_run++;
    else if (r->exit_code == 0 && !r->signal && !r->timed_out)
        t->ok++;
    else
        t->failed++;
    if (r->cancelled) {
        turn_finish(t, SHC_STOP_CANCELLED);
        return;
    }
    issue_next(t);
}

static void shell_cancel(shc_backend_turn *bt)
{
    turn_finish((shell_turn *)bt, SHC_STOP_CANCELLED);
}

static void shell_turn_free(shc_backend_turn *bt)
{
    shell_turn *t = (shell_turn *)bt;
    if (!t)
        return;
    free(t->text);
    free(t);
}

static void shell_session_end(shc_backend *be, const char *session_id)
{
    (void)be;
    (void)session_id; /* shell mode keeps no history */
}

static void shell_free(shc_backend *be)
{
    free(be);
}

static const shc_backend_ops shell_ops = {
    .name = "shell",
    .turn_start = shell_turn_start,
    .tool_result = shell_tool_result,
    .cancel = shell_cancel,
    .turn_free = shell_turn_free,
    .session_end = shell_session_end,
    .free = shell_free,
};

shc_backend *shc_backend_shell_new(void)
{
    shc_backend *be = calloc(1, sizeof *be);
    if (be)
        be->ops = &shell_ops;
    return be;
}
