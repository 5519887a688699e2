/* shc_verdict_to_json (the library's writer, no jansson) against what `shcard explain --json`
 * prints (jansson: shc_verdict_json_n dumped compact, ASCII-only, in insertion order): the same
 * bytes for every corpus command, every fuzz seed, and strings chosen for their escapes. */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/verdict.h"
#include "shcard.h"

static size_t compared;

/* Both writers on cmd[0..len) (as given, and with a NULL cmd), unwrapped and not. */
static void same(const char *cmd, size_t len)
{
    for (int unwrap = 0; unwrap < 2; unwrap++) {
        shc_verdict *v = NULL;
        assert_int_equal(shc_classify(&v, cmd, len, unwrap != 0), 0);
        for (int with_cmd = 0; with_cmd < 2; with_cmd++) {
            json_t *j = shc_verdict_json_n(v, with_cmd ? cmd : NULL, len);
            assert_non_null(j);
            char *want = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
            size_t n = 0;
            char *got = shc_verdict_to_json(v, with_cmd ? cmd : NULL, len, &n);
            assert_non_null(want);
            assert_non_null(got);
            if (strcmp(got, want) != 0)
                fail_msg("command %.*s\n got  %s\n want %s", (int)len, cmd, got, want);
            assert_int_equal(n, strlen(got));
            free(want);
            shc_free(got);
            json_decref(j);
            compared++;
        }
        shc_verdict_free(v);
    }
}

static void test_escapes(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "cat 'caf\xc3\xa9.txt'",              /* two-byte character */
        "cat '\xe2\x82\xac'",                 /* three bytes */
        "rg '\xf0\x9f\x98\x80' src",          /* past U+FFFF: a surrogate pair */
        "cat \xff\xfe",                       /* invalid bytes */
        "cat '\xe2\x82'",                     /* cut-off sequence */
        "cat '\xed\xa0\x80'",                 /* an encoded surrogate (invalid) */
        "cat '\xf4\x90\x80\x80'",             /* past U+10FFFF (invalid) */
        "cat \"a\\\"b\" 'c\\d'",              /* quotes and backslashes */
        "printf '\\x01\\x1f\\x7f'",           /* escapes as text */
        "cat $'\\x01\\x7f\\t\\b\\f\\r' x",    /* controls in decoded words */
        "cat a\tb",                           /* a tab */
        "cat a\nls b\r\n",                    /* newline and carriage return */
        "ls \x7f",                            /* DEL stays as it is */
        "",                                   /* empty */
        "   ",                                /* blanks */
        "sed -n '12,40p' src/main.c",         /* line numbers */
        "cd src && cat a.c b.c",              /* locations */
        "bash -lc 'grep -rn \"x/y\" lib'",    /* wrapped, a slash */
        "sh -c 'ls'",                         /* POSIX sh wrapper */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        same(cases[i], strlen(cases[i]));
    same("cat a\0b", 7); /* a NUL byte */
    char all[256];
    for (int c = 0; c < 256; c++)
        all[c] = (char)c;
    same(all, sizeof all); /* every byte */
    same(all + 1, sizeof all - 1);
}

static void test_corpus(void **state)
{
    (void)state;
    static const char *const files[] = {"corpus/read.jsonl", "corpus/search.jsonl",
                                        "corpus/list.jsonl", "corpus/terminal.jsonl"};
    size_t n = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        FILE *in = fopen(files[f], "r");
        assert_non_null(in);
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, in) != -1) {
            json_error_t err;
            json_t *o = json_loads(line, JSON_ALLOW_NUL, &err);
            assert_non_null(o);
            json_t *c = json_object_get(o, "cmd");
            assert_true(json_is_string(c));
            same(json_string_value(c), json_string_length(c));
            json_decref(o);
            n++;
        }
        free(line);
        fclose(in);
    }
    assert_true(n >= 600);
}

static void test_fuzz_seeds(void **state)
{
    (void)state;
    const char *dir = "fuzz/seeds/fuzz_classify";
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        char buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        same(buf, len);
        n++;
    }
    closedir(d);
    assert_true(n > 100);
    printf("compared %zu outputs\n", compared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_fuzz_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
