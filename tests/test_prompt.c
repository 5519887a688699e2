/* A prompt's content blocks as the text shell mode runs: checked by acp/prompt.c, laid out by
 * agent/quote.c.  An @-mention must be exactly one shell word naming the file: each rendering is
 * run through real bash, which must print back exactly the expected path, and must never run
 * anything hidden in the name. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acp/prompt.h"
#include "agent/quote.h"

static char *render(json_t *blocks, const char *cwd, const char **why)
{
    *why = NULL;
    size_t n = 0, context_only = 0;
    shc_prompt_part *parts = shc__prompt_parts(blocks, false, &n, why);
    char *t = parts ? shc_shell_prompt(parts, n, cwd, &context_only) : NULL;
    free(parts);
    json_decref(blocks);
    return t;
}

static json_t *mention_after(const char *text, const char *uri)
{
    return json_pack("[{s:s,s:s},{s:s,s:s,s:s}]", "type", "text", "text", text, "type",
                     "resource_link", "uri", uri, "name", "x$(touch PWN)");
}

/* Runs script with bash -c in dir; returns its stdout (owned). */
static char *bash_out(const char *script, const char *dir, size_t *len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        if (chdir(dir) != 0)
            _exit(126);
        execlp("bash", "bash", "-c", script, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char *buf = malloc(65536);
    size_t n = 0;
    ssize_t r;
    while ((r = read(p[0], buf + n, 65535 - n)) > 0)
        n += (size_t)r;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    buf[n] = 0;
    *len = n;
    return buf;
}

static char *pct(const char *s)
{
    char *o = malloc(strlen(s) * 3 + 1), *w = o;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '/' || *p == '.' || *p == '_')
            *w++ = (char)*p;
        else
            w += sprintf(w, "%%%02X", *p);
    }
    *w = 0;
    return o;
}

static void test_mentions_are_one_word(void **state)
{
    (void)state;
    char dir[] = "/tmp/shc-prompt-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *names[] = {
        "plain.c",   "a$(touch PWN)", "b;touch PWN", "c`touch PWN`", "d'e\"f",
        "g\ntouch PWN\n", "h $HOME *", "-n",        "i\\j",          "\xc3\xbcn\xc3\xaf \xe2\x9c\x93",
        "k\x1b]0;x\x07", "l\tm",       "!!",        "{a,b}",         "~root",
        "x\xff\xfey", /* not UTF-8: only a percent-encoded URI can name it */
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        for (int enc = 0; enc < 2; enc++) {
            bool utf8 = !strchr(names[i], '\xff');
            if (!enc && !utf8)
                continue; /* a JSON string cannot carry those bytes raw */
            char path[512], uri[1600];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            if (enc) {
                char *e = pct(path);
                snprintf(uri, sizeof uri, "file://%s", e);
                free(e);
            } else {
                snprintf(uri, sizeof uri, "file://%s", path);
            }
            const char *why;
            char *text = render(mention_after("printf '%s\\0' ", uri), dir, &why);
            assert_non_null(text);
            assert_null(strchr(text, '\n')); /* one line, whatever the name holds */
            size_t n;
            char *out = bash_out(text, dir, &n);
            const char *want = names[i][0] == '-' ? "./-n" : names[i];
            assert_int_equal(n, strlen(want) + 1); /* exactly one word came out */
            assert_memory_equal(out, want, strlen(want));
            free(out);
            free(text);
        }
    }
    /* outside the cwd: the absolute path; the cwd itself: "." */
    const char *why;
    char *t = render(mention_after("ls ", "file:///etc/passwd"), dir, &why);
    assert_string_equal(t, "ls /etc/passwd");
    free(t);
    char uri[600];
    snprintf(uri, sizeof uri, "file://%s", dir);
    t = render(mention_after("ls ", uri), dir, &why);
    assert_string_equal(t, "ls .");
    free(t);
    snprintf(uri, sizeof uri, "file://localhost%s/sub/x.c", dir);
    t = render(mention_after("cat ", uri), dir, &why);
    assert_string_equal(t, "cat sub/x.c");
    free(t);
    /* a cwd that is a symlink to where the file is */
    char link[600];
    snprintf(link, sizeof link, "%s-link", dir);
    assert_int_equal(symlink(dir, link), 0);
    snprintf(uri, sizeof uri, "file://%s/plain.c", dir);
    t = render(mention_after("cat ", uri), link, &why);
    assert_string_equal(t, "cat plain.c");
    free(t);
    unlink(link);
    /* not a file URI: its text, one quoted word */
    t = render(mention_after("echo ", "https://x.test/$(touch PWN);rm -rf ~"), dir, &why);
    size_t n;
    char *out = bash_out(t, dir, &n);
    assert_string_equal(out, "https://x.test/$(touch PWN);rm -rf ~\n");
    free(out);
    free(t);
    struct stat st;
    char pwn[600];
    snprintf(pwn, sizeof pwn, "%s/PWN", dir);
    assert_int_not_equal(stat(pwn, &st), 0); /* nothing in any name ever ran */
    rmdir(dir);
}

static void test_blocks_join(void **state)
{
    (void)state;
    const char *why;
    /* consecutive text blocks are lines; a mention joins the text around it */
    char *t = render(json_pack("[{s:s,s:s},{s:s,s:s}]", "type", "text", "text", "ls", "type",
                               "text", "text", "pwd"),
                     "/tmp", &why);
    assert_string_equal(t, "ls\npwd");
    free(t);
    t = render(json_pack("[{s:s,s:s},{s:s,s:s},{s:s,s:s}]", "type", "text", "text", "wc -l",
                         "type", "resource_link", "uri", "file:///tmp/a b", "type", "text",
                         "text", "| sort\necho done"),
               "/tmp", &why);
    assert_string_equal(t, "wc -l 'a b' | sort\necho done");
    free(t);
    /* refused: NUL in text or in a decoded path, a missing uri, an unknown block */
    json_t *b = json_loads("[{\"type\":\"text\",\"text\":\"echo a\\u0000; rm x\"}]", JSON_ALLOW_NUL,
                           NULL);
    assert_non_null(b);
    assert_null(render(b, "/tmp", &why));
    assert_non_null(strstr(why, "NUL"));
    assert_null(render(mention_after("cat ", "file:///tmp/a%00b"), "/tmp", &why));
    assert_non_null(strstr(why, "NUL"));
    assert_null(render(json_pack("[{s:s}]", "type", "resource_link"), "/tmp", &why));
    assert_null(render(json_pack("[{s:s,s:s}]", "type", "image", "data", "x"), "/tmp", &why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mentions_are_one_word),
        cmocka_unit_test(test_blocks_join),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
