/* Shell-mode backend: prompt lines -> bash calls in order, results, summary, cancel; the
 * prompt's blocks -> lines, @-mentions as one quoted word (checked against real bash). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/quote.h"
#include "agent/shell.h"

typedef struct rec {
    char calls[8][256];
    char ids[8][32];
    int ncalls;
    char msg[200];
    int done;
    shc_stop_reason reason;
} rec;

static void on_msg(void *p, const char *text, size_t len)
{
    rec *r = p;
    snprintf(r->msg, sizeof r->msg, "%.*s", (int)len, text);
}

static void on_call(void *p, const char *id, const char *cmd, const char *desc)
{
    rec *r = p;
    (void)desc;
    assert_true(r->ncalls < 8);
    snprintf(r->calls[r->ncalls], sizeof r->calls[0], "%s", cmd);
    snprintf(r->ids[r->ncalls], sizeof r->ids[0], "%s", id);
    r->ncalls++;
}

static void on_done(void *p, shc_stop_reason reason, int code, const char *error)
{
    rec *r = p;
    assert_int_equal(code, 0);
    assert_null(error);
    r->done++;
    r->reason = reason;
}

#define HOST(r) {&(r), on_msg, NULL, on_call, on_done, NULL, NULL, NULL, NULL}

/* A prompt of one text block. */
static shc_backend_turn *start(shc_backend *be, const char *text, const shc_backend_host *host)
{
    shc_prompt_part p = {SHC_PROMPT_TEXT, text, strlen(text), NULL, NULL, NULL};
    return be->ops->turn_start(be, NULL, "s", "/", &p, 1, host);
}

static void test_lines_in_order(void **state)
{
    (void)state;
    shc_backend *be = shc_backend_shell_new();
    rec r;
    memset(&r, 0, sizeof r);
    shc_backend_host host = HOST(r);
    shc_backend_turn *t = start(be, "  ls src \n\n\techo a\r\n   \nexit 3", &host);
    assert_non_null(t);
    assert_int_equal(r.ncalls, 1); /* one at a time */
    assert_string_equal(r.calls[0], "ls src");
    shc_tool_result ok = {r.ids[0], "x", true, 0, NULL, false, false, NULL, false};
    be->ops->tool_result(t, &ok);
    assert_int_equal(r.ncalls, 2);
    assert_string_equal(r.calls[1], "echo a");
    assert_string_not_equal(r.ids[0], r.ids[1]);
    shc_tool_result rejected = {r.ids[1], "", false, -1, NULL, false, false, "rejected by the user", false};
    be->ops->tool_result(t, &rejected);
    assert_string_equal(r.calls[2], "exit 3");
    assert_int_equal(r.done, 0);
    shc_tool_result failed = {r.ids[2], "", true, 3, NULL, false, false, NULL, false};
    be->ops->tool_result(t, &failed);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.reason, SHC_STOP_END_TURN);
    assert_string_equal(r.msg, "Ran 2 of 3 commands: 1 succeeded, 1 failed, some were not run.");
    be->ops->cancel(t); /* after the end: no second turn_done */
    assert_int_equal(r.done, 1);
    be->ops->turn_free(t);
    be->ops->session_end(be, "s");
    be->ops->free(be);
}

static void test_cancel(void **state)
{
    (void)state;
    shc_backend *be = shc_backend_shell_new();
    rec r;
    memset(&r, 0, sizeof r);
    shc_backend_host host = HOST(r);
    shc_backend_turn *t = start(be, "sleep 100\necho no", &host);
    be->ops->cancel(t);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.reason, SHC_STOP_CANCELLED);
    assert_string_equal(r.msg, ""); /* no summary for a cancelled turn */
    shc_tool_result late = {r.ids[0], "", true, -1, "SIGTERM", false, true, NULL, false};
    be->ops->tool_result(t, &late); /* ignored */
    assert_int_equal(r.ncalls, 1);
    assert_int_equal(r.done, 1);
    be->ops->turn_free(t);
    be->ops->free(be);
}

static void test_single_line_summary(void **state)
{
    (void)state;
    shc_backend *be = shc_backend_shell_new();
    rec r;
    memset(&r, 0, sizeof r);
    shc_backend_host host = HOST(r);
    shc_backend_turn *t = start(be, "true", &host);
    shc_tool_result ok = {r.ids[0], "", true, 0, NULL, false, false, NULL, false};
    be->ops->tool_result(t, &ok);
    assert_string_equal(r.msg, "Ran 1 command: it succeeded.");
    be->ops->turn_free(t);
    be->ops->free(be);
}

/* The output of a bash script, run for real. */
static char *bash_run(char *script /* freed */)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl("/bin/bash", "bash", "--norc", "-c", script, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    free(script);
    static char buf[4096];
    size_t n = 0;
    ssize_t k;
    while ((k = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)k;
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    buf[n] = 0;
    return buf;
}

/* What bash makes of a word: `printf %s WORD`. */
static char *bash_word(const char *word)
{
    char *script = NULL;
    if (asprintf(&script, "printf %%s %s", word) < 0)
        return NULL;
    return bash_run(script);
}

static void test_quote_against_bash(void **state)
{
    (void)state;
    const char *names[] = {
        "plain",   "a b",        "it's",         "a$(touch PWN)", "b;rm -rf x", "c`id`",
        "d'e\"f", "g\ntouch x\n", "h $HOME *",   "i\\j",         "\x1b]0;x\x07", "ünï ✓.txt",
        "!event", "{a,b}",      "tab\there",    "\x7f",          "-n",         "'",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        shc_strbuf b = {0};
        shc_shell_quote(&b, names[i], strlen(names[i]));
        char *w = shc_strbuf_take(&b);
        assert_non_null(w);
        assert_null(strchr(w, '\n')); /* one line, always */
        assert_string_equal(bash_word(w), names[i]);
        free(w);
    }
    /* first on a line a quoted name is a command name, never an assignment or a reserved
     * word: with no PATH, bash can only say "not found" (127) */
    const char *first[] = {"BASH_ENV=x", "A=b", "time", "coproc", "if", "function", "while"};
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
        shc_strbuf b = {0};
        shc_shell_quote(&b, first[i], strlen(first[i]));
        char *w = shc_strbuf_take(&b), *script = NULL;
        assert_non_null(w);
        assert_true(asprintf(&script, "PATH=/nonexistent; %s 2>/dev/null; printf %%s $?", w) > 0);
        assert_string_equal(bash_run(script), "127");
        free(w);
    }
}

static void test_mention_paths(void **state)
{
    (void)state;
    size_t n;
    bool nul;
    char *p = shc_mention_path("file:///ws/src/a%20b.c", "/ws", &n);
    assert_string_equal(p, "src/a b.c");
    free(p);
    p = shc_mention_path("file:///ws/-n", "/ws/", &n);
    assert_string_equal(p, "./-n");
    free(p);
    p = shc_mention_path("file:///other/x.c", "/ws", &n);
    assert_string_equal(p, "/other/x.c");
    free(p);
    p = shc_mention_path("file://localhost/ws/x", "/ws", &n);
    assert_string_equal(p, "x");
    free(p);
    p = shc_mention_path("file:///wsx/y", "/ws", &n); /* a sibling that shares a prefix */
    assert_string_equal(p, "/wsx/y");
    free(p);
    p = shc_mention_path("file:///ws/a%00b", "/ws", &n); /* a NUL: not a path, kept as text */
    assert_string_equal(p, "file:///ws/a%00b");
    free(p);
    p = shc_mention_path("https://example.com/$(x)", "/ws", &n);
    assert_string_equal(p, "https://example.com/$(x)");
    free(p);
    p = shc_mention_path("-rf", "/ws", &n); /* not a URI at all: still never an option */
    assert_string_equal(p, "./-rf");
    free(p);
    assert_null(shc_file_uri_path("file://host/x", &n, &nul));
}

static void test_mentions_in_lines(void **state)
{
    (void)state;
    shc_backend *be = shc_backend_shell_new();
    rec r;
    memset(&r, 0, sizeof r);
    shc_backend_host host = HOST(r);
    shc_prompt_part parts[] = {
        {SHC_PROMPT_TEXT, "cat ", 4, NULL, NULL, NULL},
        {SHC_PROMPT_LINK, NULL, 0, "file:///ws/a%27b%0Ac", "x", NULL},
        {SHC_PROMPT_TEXT, " | wc -l\n", 9, NULL, NULL, NULL},
        {SHC_PROMPT_RESOURCE, "int x;", 6, "file:///ws/src/m.c", NULL, "text/x-c"},
        {SHC_PROMPT_TEXT, "\necho", 5, NULL, NULL, NULL},
        {SHC_PROMPT_LINK, NULL, 0, "https://e.com/;x", "u", NULL},
    };
    shc_backend_turn *t = be->ops->turn_start(be, NULL, "s", "/ws", parts, 6, &host);
    assert_non_null(t);
    assert_string_equal(r.calls[0], "cat $'a\\'b\\x0ac' | wc -l");
    for (int i = 0; i < 2; i++) {
        shc_tool_result ok = {r.ids[i], "", true, 0, NULL, false, false, NULL, false};
        be->ops->tool_result(t, &ok);
    }
    /* the resource alone on its line is context: not run */
    assert_int_equal(r.ncalls, 2);
    assert_string_equal(r.calls[1], "echo 'https://e.com/;x'");
    assert_int_equal(r.done, 1);
    assert_non_null(strstr(r.msg, "1 line(s) held only @-mentions and were not run"));
    be->ops->turn_free(t);
    /* only context: nothing runs, and the message says why */
    memset(&r, 0, sizeof r);
    t = be->ops->turn_start(be, NULL, "s", "/ws", &parts[3], 1, &host);
    assert_int_equal(r.ncalls, 0);
    assert_int_equal(r.done, 1);
    assert_non_null(strstr(r.msg, "Nothing to run"));
    be->ops->turn_free(t);
    /* two text blocks are two lines */
    memset(&r, 0, sizeof r);
    shc_prompt_part two[] = {{SHC_PROMPT_TEXT, "echo a", 6, NULL, NULL, NULL},
                             {SHC_PROMPT_TEXT, "echo b", 6, NULL, NULL, NULL}};
    t = be->ops->turn_start(be, NULL, "s", "/", two, 2, &host);
    assert_string_equal(r.calls[0], "echo a");
    be->ops->cancel(t);
    be->ops->turn_free(t);
    be->ops->free(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote_against_bash),
        cmocka_unit_test(test_mention_paths),
        cmocka_unit_test(test_mentions_in_lines),
        cmocka_unit_test(test_lines_in_order),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_single_line_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
