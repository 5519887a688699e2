/* Shell mode: each non-empty prompt line is one bash call, in order.  A failing line does not
 * stop the next one (like a script without -e); the summary says how many failed.
 *
 * The prompt's blocks become lines here: text as typed (two text blocks in a row are two
 * lines), and every @-mention (resource_link, or resource: embedded context) as one quoted
 * path argument where it appears (quote.c), so `cat @file` works and nothing a client sends is
 * ever read as shell syntax.  A line made only of mentions is context, not a command: it is not
 * run. */
#include "agent/shell.h"
#include "agent/quote.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shell_turn {
    shc_backend_host host;      /* copied: valid for the whole turn */
    char **lines;               /* owned */
    size_t nlines, next;
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

static void issue_next(shell_turn *t)
{
    if (t->done)
        return;
    if (t->next >= t->nlines) {
        turn_finish(t, SHC_STOP_END_TURN);
        return;
    }
    size_t i = t->next++;
    snprintf(t->call_id, sizeof t->call_id, "line_%zu", i + 1);
    t->host.tool_call(t->host.payload, t->call_id, t->lines[i], NULL);
}

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

/* Building the lines: the current line and whether typed text (not only mentions) is on it. */
typedef struct lines {
    shell_turn *t;
    shc_strbuf cur;
    bool has_text;
    bool after_mention; /* the last thing on the line is a mention */
    bool nomem;
} lines;

static void end_line(lines *l)
{
    shc_strbuf *b = &l->cur;
    const char *s = b->n ? b->p : "", *e = s + b->n;
    while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    if (b->err)
        l->nomem = true;
    if (e > s && !l->has_text) {
        l->t->context_only++;
    } else if (e > s && !l->nomem) {
        char **v = realloc(l->t->lines, (l->t->nlines + 1) * sizeof *v);
        char *line = v ? strndup(s, (size_t)(e - s)) : NULL;
        if (v)
            l->t->lines = v;
        if (!line)
            l->nomem = true;
        else
            l->t->lines[l->t->nlines++] = line;
    }
    shc_strbuf_free(b);
    l->has_text = l->after_mention = false;
}

static void add_text(lines *l, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\n') {
            end_line(l);
            continue;
        }
        if (l->after_mention && !strchr(" \t\r|&;)<>", c))
            shc_strbuf_putc(&l->cur, ' '); /* `@a.txt.bak` stays two words */
        l->after_mention = false;
        if (c != ' ' && c != '\t' && c != '\r')
            l->has_text = true;
        shc_strbuf_putc(&l->cur, c);
    }
}

static void add_mention(lines *l, const char *uri, const char *cwd)
{
    char last = l->cur.n ? l->cur.p[l->cur.n - 1] : ' ';
    if (last != ' ' && last != '\t' && last != '=' && last != '(')
        shc_strbuf_putc(&l->cur, ' ');
    shc_mention_word(&l->cur, uri, cwd);
    l->after_mention = true;
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
    lines l;
    memset(&l, 0, sizeof l);
    l.t = t;
    for (size_t i = 0; i < nparts; i++) {
        const shc_prompt_part *p = &parts[i];
        if (p->kind == SHC_PROMPT_TEXT) {
            if (i > 0 && parts[i - 1].kind == SHC_PROMPT_TEXT)
                end_line(&l); /* two text blocks: two pieces of text */
            add_text(&l, p->text, p->len);
        } else if (p->kind == SHC_PROMPT_LINK || p->kind == SHC_PROMPT_RESOURCE) {
            add_mention(&l, p->uri, cwd);
        }
    }
    end_line(&l);
    if (l.nomem)
        goto nomem;
    issue_next(t);
    return (shc_backend_turn *)t;
nomem:
    if (t)
        free_lines(t->lines, t->nlines);
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
    free_lines(t->lines, t->nlines);
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
