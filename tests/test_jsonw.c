/* The one-pass JSON writer's fast paths against the plain definitions: integers at every digit
 * boundary, spans, strings on each side of the short, 8-byte and 16-byte paths with a byte that
 * needs escaping at every position, and a string written twice by shc_strbuf_repeat. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/jsonw.h"

static void test_ints(void **state)
{
    (void)state;
    static const long long v[] = {0, 9, 10, 99, 100, 999, 1000, 9999, 10000, 65535, 4294967295LL,
                                  4294967296LL, -1, -1000, 9223372036854775807LL};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        shc_strbuf b = {0};
        shc_jw_int(&b, v[i]);
        char want[32];
        snprintf(want, sizeof want, "%lld", v[i]);
        assert_string_equal(b.p, want);
        shc_strbuf_free(&b);
    }
}

static void test_span_end(void **state)
{
    (void)state;
    shc_strbuf b = {0};
    shc_jw_span_end(&b, 7, 4294967295u);
    shc_jw_span_end(&b, 1000, 0);
    assert_string_equal(b.p, ",\"start\":7,\"end\":4294967295},\"start\":1000,\"end\":0}");
    shc_strbuf_free(&b);
}

/* The escaped form of one byte, as the slow path writes it. */
static const char *esc(unsigned char c, char buf[8])
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\t': return "\\t";
    case 0x01: return "\\u0001";
    default: snprintf(buf, 8, "%c", c); return buf;
    }
}

static void test_strings_every_length_and_position(void **state)
{
    (void)state;
    static const unsigned char special[] = {'"', '\\', '\n', '\t', 0x01};
    for (size_t n = 0; n <= 40; n++) {
        char s[64], want[512], tmp[8];
        memset(s, 'a', n);
        shc_strbuf b = {0};
        shc_jw_str(&b, s, n, 0); /* all plain */
        snprintf(want, sizeof want, "\"%.*s\"", (int)n, s);
        assert_string_equal(b.p, want);
        shc_strbuf_free(&b);
        for (size_t at = 0; at < n; at++)
            for (size_t k = 0; k < sizeof special; k++) {
                memset(s, 'a', n);
                s[at] = (char)special[k];
                shc_strbuf c = {0};
                shc_jw_str(&c, s, n, 0);
                snprintf(want, sizeof want, "\"%.*s%s%.*s\"", (int)at, s, esc(special[k], tmp),
                         (int)(n - at - 1), s + at + 1);
                assert_string_equal(c.p, want);
                shc_strbuf_free(&c);
            }
    }
    shc_strbuf b = {0}; /* non-ASCII: kept as UTF-8, or \u escapes with SHC_JW_ASCII */
    shc_jw_str(&b, "\xc3\xa9", 2, 0);
    shc_jw_str(&b, "\xc3\xa9", 2, SHC_JW_ASCII);
    assert_string_equal(b.p, "\"\xc3\xa9\"\"\\u00E9\"");
    shc_strbuf_free(&b);
}

static void test_repeat(void **state)
{
    (void)state;
    shc_strbuf b = {0};
    shc_jw_raw(&b, "{\"a\":");
    size_t at = b.n;
    shc_jw_str(&b, "x\"y", 3, 0);
    size_t end = b.n;
    shc_jw_raw(&b, ",\"b\":");
    for (int i = 0; i < 2000; i++) /* through several reallocations of b.p */
        shc_strbuf_repeat(&b, at, end);
    assert_int_equal(b.n, 5 + 6 + 5 + 2000 * 6);
    assert_memory_equal(b.p + b.n - 12, "\"x\\\"y\"\"x\\\"y\"", 12);
    shc_strbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ints),
        cmocka_unit_test(test_span_end),
        cmocka_unit_test(test_strings_every_length_and_position),
        cmocka_unit_test(test_repeat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
