/* The presenter: each card's JSON from hand-made verdicts and capabilities, fences, paths,
 * console text cleanup and the UTF-8 stream cleaner. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "acp/present.h"

static const char *sget(json_t *o, const char *path)
{
    /* dotted path: "a.b.c" */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = o;
    for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, "."))
        cur = json_object_get(cur, tok);
    return json_string_value(cur);
}

static json_t *jget(json_t *o, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = o;
    for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, "."))
        cur = json_object_get(cur, tok);
    return cur;
}

static const shc_client_caps zed = {.terminal = true, .terminal_output = true};
static const shc_client_caps acpx = {.terminal = true};
static const shc_client_caps acpx_ct = {.terminal = true, .client_terminals = true};
static const shc_client_caps bare = {.client_terminals = true};
static const shc_client_caps delta = {.terminal_output_delta = true};
static const shc_client_caps v2 = {.display_terminals = true};

static void test_card_choice(void **state)
{
    (void)state;
    shc_verdict read = {.kind = SHC_KIND_READ};
    shc_verdict term = {.kind = SHC_KIND_TERMINAL};
    assert_int_equal(shc_present_card(&read, &zed), SHC_CARD_CLASSIFIED);
    assert_int_equal(shc_present_card(&read, &bare), SHC_CARD_CLASSIFIED);
    assert_int_equal(shc_present_card(&term, &zed), SHC_CARD_TERMINAL);
    assert_int_equal(shc_present_card(NULL, &zed), SHC_CARD_TERMINAL);
    assert_int_equal(shc_present_card(&term, &acpx), SHC_CARD_CONSOLE);
    assert_int_equal(shc_present_card(&term, &acpx_ct), SHC_CARD_CLIENT_TERMINAL);
    assert_int_equal(shc_present_card(&term, &bare), SHC_CARD_CONSOLE); /* no terminal: true */
    /* _meta.terminal_output_delta alone, and any v2 client, get the live terminal card */
    assert_int_equal(shc_present_card(&term, &delta), SHC_CARD_TERMINAL);
    assert_int_equal(shc_present_card(&term, &v2), SHC_CARD_TERMINAL);
    assert_int_equal(shc_present_card(&read, &v2), SHC_CARD_CLASSIFIED);
}

static void test_read_card(void **state)
{
    (void)state;
    shc_location loc = {(char[]){"src/main.c"}, 10};
    shc_verdict v = {.kind = SHC_KIND_READ,
                     .title = (char[]){"Read src/main.c (10 - 40)"},
                     .path = (char[]){"src/main.c"},
                     .line = 10,
                     .locations = &loc,
                     .nlocations = 1};
    shc_call_info c = {"call_7", "sed -n 10,40p src/main.c", "/ws", NULL, &v,
                       shc_present_card(&v, &zed), NULL};
    json_t *u = shc_present_tool_call(&c, "in_progress");
    assert_string_equal(sget(u, "sessionUpdate"), "tool_call");
    assert_string_equal(sget(u, "toolCallId"), "call_7");
    assert_string_equal(sget(u, "kind"), "read");
    assert_string_equal(sget(u, "title"), "Read src/main.c (10 - 40)");
    assert_string_equal(sget(u, "status"), "in_progress");
    json_t *l0 = json_array_get(jget(u, "locations"), 0);
    assert_string_equal(sget(l0, "path"), "/ws/src/main.c");
    assert_int_equal(json_integer_value(json_object_get(l0, "line")), 10);
    assert_string_equal(sget(u, "rawInput.command"), "sed -n 10,40p src/main.c");
    assert_string_equal(sget(u, "rawInput.cwd"), "/ws");
    assert_null(jget(u, "_meta"));
    assert_null(jget(u, "content"));
    json_decref(u);

    const char out[] = "int main(void)\n{\n  return 0; /* ``` */\n}\n\n";
    shc_call_end end = {true, 0, NULL, out, sizeof out - 1, NULL};
    u = shc_present_final(&c, &end);
    assert_string_equal(sget(u, "sessionUpdate"), "tool_call_update");
    assert_string_equal(sget(u, "status"), "completed");
    json_t *b = json_array_get(jget(u, "content"), 0);
    assert_string_equal(sget(b, "type"), "content");
    assert_string_equal(sget(b, "content.text"),
                        "````c\nint main(void)\n{\n  return 0; /* ``` */\n}\n````");
    assert_int_equal(json_array_size(jget(u, "content")), 1);
    assert_int_equal(json_integer_value(jget(u, "rawOutput.exit_code")), 0);
    assert_null(jget(u, "_meta"));
    json_decref(u);
}

static void test_search_and_list_cards(void **state)
{
    (void)state;
    shc_location loc = {(char[]){"src"}, 0};
    shc_verdict s = {.kind = SHC_KIND_SEARCH,
                     .title = (char[]){"Search `open_pty` in src"},
                     .path = (char[]){"src"},
                     .locations = &loc,
                     .nlocations = 1};
    shc_call_info c = {"c8", "rg -n open_pty src", "/ws/", NULL, &s, SHC_CARD_CLASSIFIED, NULL};
    json_t *u = shc_present_tool_call(&c, "in_progress");
    assert_string_equal(sget(u, "kind"), "search");
    assert_string_equal(sget(json_array_get(jget(u, "locations"), 0), "path"), "/ws/src");
    assert_null(json_object_get(json_array_get(jget(u, "locations"), 0), "line"));
    json_decref(u);
    shc_call_end end = {true, 1, NULL, "", 0, NULL}; /* rg found nothing: exit 1 */
    u = shc_present_final(&c, &end);
    assert_string_equal(sget(u, "status"), "failed");
    assert_string_equal(sget(json_array_get(jget(u, "content"), 0), "content.text"),
                        "```console\n```");
    json_decref(u);

    /* list without a path: the session cwd; kind read */
    shc_verdict l = {.kind = SHC_KIND_LIST, .title = (char[]){"List /ws"}};
    shc_call_info c2 = {"c9", "ls -la", "/ws", NULL, &l, SHC_CARD_CLASSIFIED, NULL};
    u = shc_present_tool_call(&c2, "in_progress");
    assert_string_equal(sget(u, "kind"), "read");
    assert_string_equal(sget(json_array_get(jget(u, "locations"), 0), "path"), "/ws");
    json_decref(u);
}

static void test_terminal_card(void **state)
{
    (void)state;
    shc_verdict v = {.kind = SHC_KIND_TERMINAL, .title = (char[]){"make -j8"}};
    shc_call_info c = {"call_10", "make -j8", "/ws", NULL, &v, shc_present_card(&v, &zed), NULL};
    assert_int_equal(c.card, SHC_CARD_TERMINAL);
    json_t *u = shc_present_tool_call(&c, "in_progress");
    assert_string_equal(sget(u, "kind"), "execute");
    assert_string_equal(sget(u, "title"), "make -j8");
    json_t *content = jget(u, "content");
    assert_int_equal(json_array_size(content), 1);
    assert_string_equal(sget(json_array_get(content, 0), "type"), "terminal");
    assert_string_equal(sget(json_array_get(content, 0), "terminalId"), "call_10");
    assert_string_equal(sget(u, "_meta.terminal_info.terminal_id"), "call_10");
    assert_string_equal(sget(u, "_meta.terminal_info.cwd"), "/ws");
    assert_string_equal(sget(u, "rawInput.command"), "make -j8");
    json_decref(u);

    const char data[] = "\x1b[32mok\x1b[0m\r\n";
    u = shc_present_output(&c, data, sizeof data - 1);
    assert_non_null(u);
    assert_string_equal(sget(u, "_meta.terminal_output.data"), data);
    assert_string_equal(sget(u, "_meta.terminal_output.terminal_id"), "call_10");
    assert_null(jget(u, "status"));
    assert_null(jget(u, "content"));
    char *dump = json_dumps(u, JSON_COMPACT);
    assert_true(strstr(dump, "\\u001b[32mok") || strstr(dump, "\\u001B[32mok"));
    assert_non_null(strstr(dump, "\\r\\n"));
    free(dump);
    json_decref(u);
    assert_null(shc_present_output(&c, "\xff", 1)); /* must be cleaned first */

    shc_call_end end = {true, 3, NULL, NULL, 0, NULL};
    u = shc_present_final(&c, &end);
    assert_string_equal(sget(u, "status"), "failed");
    assert_null(jget(u, "content"));
    assert_int_equal(json_integer_value(jget(u, "_meta.terminal_exit.exit_code")), 3);
    assert_true(json_is_null(jget(u, "_meta.terminal_exit.signal")));
    assert_string_equal(sget(u, "_meta.terminal_exit.terminal_id"), "call_10");
    json_decref(u);

    shc_call_end killed = {true, 0, "SIGKILL", NULL, 0, NULL};
    u = shc_present_final(&c, &killed);
    assert_string_equal(sget(u, "status"), "failed");
    assert_true(json_is_null(jget(u, "_meta.terminal_exit.exit_code")));
    assert_string_equal(sget(u, "_meta.terminal_exit.signal"), "SIGKILL");
    json_decref(u);

    shc_call_end ok = {true, 0, NULL, NULL, 0, NULL};
    u = shc_present_final(&c, &ok);
    assert_string_equal(sget(u, "status"), "completed");
    json_decref(u);
}

static void test_wrapped_terminal_title(void **state)
{
    (void)state;
    shc_verdict v = {.kind = SHC_KIND_TERMINAL, .title = (char[]){"make -j8"}};
    shc_call_info c = {"c1", "bash -lc 'make -j8'", "/ws", NULL, &v, SHC_CARD_TERMINAL, NULL};
    json_t *u = shc_present_tool_call(&c, "in_progress");
    assert_string_equal(sget(u, "title"), "make -j8");
    assert_string_equal(sget(u, "rawInput.command"), "bash -lc 'make -j8'");
    json_decref(u);
    c.verdict = NULL; /* no verdict: the command itself */
    u = shc_present_tool_call(&c, "in_progress");
    assert_string_equal(sget(u, "title"), "bash -lc 'make -j8'");
    json_decref(u);
}

static void test_console_card_and_rejection(void **state)
{
    (void)state;
    shc_call_info c = {"t1", "echo hi", "/ws", "Say hi", NULL, shc_present_card(NULL, &acpx),
                       NULL};
    assert_int_equal(c.card, SHC_CARD_CONSOLE);
    json_t *u = shc_present_tool_call(&c, "in_progress");
    assert_string_equal(sget(u, "kind"), "execute");
    assert_null(jget(u, "_meta"));
    assert_string_equal(sget(json_array_get(jget(u, "content"), 0), "content.text"), "Say hi");
    json_decref(u);
    size_t n;
    const char raw[] = "\x1b[1mhi\x1b[0m\r\n50%\r100%\r\n";
    char *txt = shc_console_text(raw, sizeof raw - 1, &n);
    shc_call_end end = {true, 0, NULL, txt, n, NULL};
    u = shc_present_final(&c, &end);
    json_t *content = jget(u, "content");
    assert_int_equal(json_array_size(content), 2);
    assert_string_equal(sget(json_array_get(content, 1), "content.text"),
                        "```console\nhi\n100%\n```");
    json_decref(u);
    free(txt);

    shc_call_end rej = {false, 0, NULL, NULL, 0, "rejected by the user"};
    c.card = SHC_CARD_TERMINAL;
    u = shc_present_final(&c, &rej);
    assert_string_equal(sget(u, "status"), "failed");
    assert_string_equal(sget(json_array_get(jget(u, "content"), 0), "content.text"),
                        "rejected by the user");
    assert_string_equal(sget(u, "rawOutput.error"), "rejected by the user");
    json_decref(u);

    json_t *p = shc_present_permission_call(&c);
    assert_string_equal(sget(p, "status"), "pending");
    assert_string_equal(sget(p, "toolCallId"), "t1");
    assert_string_equal(sget(p, "title"), "echo hi");
    json_decref(p);
}

static void test_client_terminal_card(void **state)
{
    (void)state;
    shc_call_info c = {"t2", "make", "/ws", NULL, NULL, SHC_CARD_CLIENT_TERMINAL, NULL};
    assert_null(shc_present_attach_terminal(&c));
    c.client_terminal_id = "term-9";
    json_t *u = shc_present_attach_terminal(&c);
    assert_string_equal(sget(json_array_get(jget(u, "content"), 0), "terminalId"), "term-9");
    json_decref(u);
    shc_call_end end = {true, 2, NULL, "boom\n", 5, NULL};
    u = shc_present_final(&c, &end);
    assert_string_equal(sget(u, "status"), "failed");
    assert_string_equal(sget(json_array_get(jget(u, "content"), 0), "terminalId"), "term-9");
    json_decref(u);
}

static void test_fence_and_paths(void **state)
{
    (void)state;
    char *f = shc_present_fence("a ``` b ````` c", 15, "");
    assert_string_equal(f, "``````\na ``` b ````` c\n``````");
    free(f);
    f = shc_present_fence(NULL, 0, "console");
    assert_string_equal(f, "```console\n```");
    free(f);
    f = shc_present_fence("``x``\n\n\n", 8, "text");
    assert_string_equal(f, "```text\n``x``\n```");
    free(f);
    assert_string_equal(shc_present_lang("a/b/x.py"), "python");
    assert_string_equal(shc_present_lang("Makefile"), "make");
    assert_string_equal(shc_present_lang("README"), "text");
    assert_string_equal(shc_present_lang(".bashrc"), "text");
    char *p = shc_present_abs_path("/ws", "./src/a.c");
    assert_string_equal(p, "/ws/src/a.c");
    free(p);
    p = shc_present_abs_path("/ws/", "/etc/passwd");
    assert_string_equal(p, "/etc/passwd");
    free(p);
    p = shc_present_abs_path("/", "x");
    assert_string_equal(p, "/x");
    free(p);
    p = shc_present_abs_path("/ws", ".");
    assert_string_equal(p, "/ws");
    free(p);
}

#define CT(lit) shc_console_text(lit, sizeof(lit) - 1, &n)

static void test_console_text(void **state)
{
    (void)state;
    size_t n;
    char *t = CT("\rHello\x1b[K");
    assert_string_equal(t, "Hello");
    free(t);
    t = CT("abcdef\rXY\x1b[K\n");
    assert_string_equal(t, "XY\n");
    free(t);
    t = CT("abcdef\rXY\n");
    assert_string_equal(t, "XYcdef\n");
    free(t);
    t = CT("\x1b[?25l|\r/\r-\r\\\x1b[?25h done\n");
    assert_string_equal(t, "\\ done\n");
    free(t);
    t = CT("\x1b]0;title\x07x\x1b]8;;http://a\x1b\\y\x1b(Bz");
    assert_string_equal(t, "xyz");
    free(t);
    t = CT("caf\xc3\xa9\r\xe2\x82\xac\n\xff");
    assert_string_equal(t, "\xe2\x82\xac" "af\xc3\xa9\n\xef\xbf\xbd");
    free(t);
    t = CT("ab\bc\x07\n");
    assert_string_equal(t, "ac\n");
    assert_int_equal(n, 3);
    free(t);
}

static char *push_all(shc_utf8_stream *st, const char **parts, const size_t *lens, size_t k,
                      size_t *n)
{
    char *buf = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < k; i++)
        assert_int_equal(shc_utf8_stream_push(st, parts[i], lens[i], i + 1 == k, &buf, n, &cap),
                         0);
    buf = realloc(buf, *n + 1);
    buf[*n] = 0;
    return buf;
}

static void test_utf8_stream(void **state)
{
    (void)state;
    shc_utf8_stream st = {{0}, 0};
    size_t n;
    /* euro split 1+2, emoji split 1+3 then 2+2, lone 0xff, truncated sequence at EOF */
    const char *p1[] = {"a\xe2", "\x82\xac" "b"};
    size_t l1[] = {2, 3};
    char *o = push_all(&st, p1, l1, 2, &n);
    assert_string_equal(o, "a\xe2\x82\xac" "b");
    free(o);
    const char *p2[] = {"\xf0", "\x9f\x98\x80", "\xf0\x9f", "\x98\x80"};
    size_t l2[] = {1, 3, 2, 2};
    o = push_all(&st, p2, l2, 4, &n);
    assert_string_equal(o, "\xf0\x9f\x98\x80\xf0\x9f\x98\x80");
    free(o);
    const char *p3[] = {"x\xffy"};
    size_t l3[] = {3};
    o = push_all(&st, p3, l3, 1, &n);
    assert_string_equal(o, "x\xef\xbf\xbdy");
    free(o);
    const char *p4[] = {"ok", "\xe2\x82"};
    size_t l4[] = {2, 2};
    o = push_all(&st, p4, l4, 2, &n);
    assert_string_equal(o, "ok\xef\xbf\xbd");
    free(o);
    /* a held prefix followed by a non-continuation: one U+FFFD, then the byte itself */
    const char *p5[] = {"\xe2", "A", ""};
    size_t l5[] = {1, 1, 0};
    o = push_all(&st, p5, l5, 3, &n);
    assert_string_equal(o, "\xef\xbf\xbd" "A");
    free(o);
    /* surrogates and overlongs are invalid; NUL passes through */
    const char *p6[] = {"\xed\xa0\x80|\xc0\xaf|"};
    size_t l6[] = {8};
    o = push_all(&st, p6, l6, 1, &n);
    assert_string_equal(o, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|");
    free(o);
    /* every split of a mixed string gives the same, valid result */
    const char mixed[] = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80!";
    size_t ml = sizeof mixed - 1;
    for (size_t cut = 0; cut <= ml; cut++) {
        const char *pp[] = {mixed, mixed + cut};
        size_t ll[] = {cut, ml - cut};
        o = push_all(&st, pp, ll, 2, &n);
        assert_string_equal(o, mixed);
        json_t *s = json_stringn(o, n);
        assert_non_null(s);
        json_decref(s);
        free(o);
    }
}

/* Titles are capped at SHC_PRESENT_TITLE_MAX characters, cut on a character boundary with an
 * ellipsis; rawInput keeps the whole command. */
static void test_long_titles(void **state)
{
    (void)state;
    const char *units[] = {"x", "\xc3\xa9", "\xf0\x9f\x98\x80"};
    for (size_t u = 0; u < 3; u++) {
        size_t ul = strlen(units[u]);
        for (size_t chars = SHC_PRESENT_TITLE_MAX - 1; chars <= SHC_PRESENT_TITLE_MAX + 1; chars++) {
            char *cmd = malloc(chars * ul + 1);
            for (size_t i = 0; i < chars; i++)
                memcpy(cmd + i * ul, units[u], ul);
            cmd[chars * ul] = 0;
            shc_call_info c = {"call_1", cmd, "/tmp", NULL, NULL, SHC_CARD_TERMINAL, NULL};
            json_t *u1 = shc_present_tool_call(&c, "in_progress");
            const char *t = sget(u1, "title");
            if (chars <= SHC_PRESENT_TITLE_MAX) {
                assert_string_equal(t, cmd);
            } else {
                size_t keep = (SHC_PRESENT_TITLE_MAX - 1) * ul;
                assert_int_equal(strlen(t), keep + 3);
                assert_memory_equal(t, cmd, keep);
                assert_string_equal(t + keep, "\xe2\x80\xa6");
            }
            assert_string_equal(sget(u1, "rawInput.command"), cmd);
            json_decref(u1);
            free(cmd);
        }
    }
    size_t big = 1u << 20;
    char *cmd = malloc(big + 1);
    memset(cmd, 'y', big);
    cmd[big] = 0;
    shc_call_info c = {"call_1", cmd, "/tmp", NULL, NULL, SHC_CARD_TERMINAL, NULL};
    json_t *p = shc_present_permission_call(&c);
    assert_int_equal(strlen(sget(p, "title")), SHC_PRESENT_TITLE_MAX - 1 + 3);
    assert_int_equal(strlen(sget(p, "rawInput.command")), big);
    json_decref(p);
    free(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_card_choice),
        cmocka_unit_test(test_read_card),
        cmocka_unit_test(test_search_and_list_cards),
        cmocka_unit_test(test_terminal_card),
        cmocka_unit_test(test_wrapped_terminal_title),
        cmocka_unit_test(test_console_card_and_rejection),
        cmocka_unit_test(test_client_terminal_card),
        cmocka_unit_test(test_fence_and_paths),
        cmocka_unit_test(test_console_text),
        cmocka_unit_test(test_utf8_stream),
        cmocka_unit_test(test_long_titles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
