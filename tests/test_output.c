/* Output products: UTF-8 sanitizer, tail ring, model text (CR/ANSI, head+tail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/output.h"
#include "base/signame.h"

/* Feeds the pieces in turn and returns the sanitized text (owned by buf). */
static const char *
sanitize(shc_outbuf *buf, const char *const *pieces, const size_t *lens, size_t n, int finish)
{
    shc_utf8 u = {{0}, 0};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(shc_utf8_feed(&u, buf, pieces[i], lens[i]), 0);
    if (finish)
        assert_int_equal(shc_utf8_finish(&u, buf), 0);
    assert_int_equal(shc_outbuf_append(buf, "", 1), 0);
    return buf->p;
}

static void test_euro_split_across_reads(void **state)
{
    (void)state;
    shc_outbuf b = {0};
    const char *p[] = {"price: 10 \xe2\x82", "\xac ok\n"};
    size_t l[] = {12, 5};
    assert_string_equal(sanitize(&b, p, l, 2, 1), "price: 10 \xe2\x82\xac ok\n");
    shc_outbuf_free(&b);
    /* split 1+2 as well, each piece alone */
    const char *q[] = {"\xe2", "\x82", "\xac"};
    size_t m[] = {1, 1, 1};
    assert_string_equal(sanitize(&b, q, m, 3, 1), "\xe2\x82\xac");
    shc_outbuf_free(&b);
}

static void test_emoji_split_1_3(void **state)
{
    (void)state;
    shc_outbuf b = {0};
    const char *p[] = {"a\xf0", "\x9f\x98\x80z"};
    size_t l[] = {2, 4};
    assert_string_equal(sanitize(&b, p, l, 2, 1), "a\xf0\x9f\x98\x80z");
    shc_outbuf_free(&b);
}

static void test_invalid_bytes(void **state)
{
    (void)state;
    shc_outbuf b = {0};
    const char *p[] = {"x\xffy"};
    size_t l[] = {3};
    assert_string_equal(sanitize(&b, p, l, 1, 1), "x\xef\xbf\xbdy");
    shc_outbuf_free(&b);
    /* an incomplete sequence at EOF is exactly one U+FFFD */
    const char *q[] = {"\xe2\x82"};
    size_t m[] = {2};
    assert_string_equal(sanitize(&b, q, m, 1, 1), "\xef\xbf\xbd");
    shc_outbuf_free(&b);
    /* a truncated sequence followed by ASCII: one U+FFFD, the ASCII kept */
    const char *r[] = {"\xe2\x82", "A"};
    size_t k[] = {2, 1};
    assert_string_equal(sanitize(&b, r, k, 2, 1), "\xef\xbf\xbd"
                                                  "A");
    shc_outbuf_free(&b);
    /* surrogates and overlongs are invalid */
    const char *s[] = {"\xed\xa0\x80|\xc0\xaf"};
    size_t n[] = {6};
    assert_string_equal(sanitize(&b, s, n, 1, 1),
                        "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd");
    shc_outbuf_free(&b);
}

static void test_boundary(void **state)
{
    (void)state;
    const char *s = "ab\xe2\x82\xac";
    assert_int_equal(shc_utf8_boundary(s, 5), 5);
    assert_int_equal(shc_utf8_boundary(s, 4), 2);
    assert_int_equal(shc_utf8_boundary(s, 3), 2);
    assert_int_equal(shc_utf8_boundary(s, 2), 2);
}

static void test_ring(void **state)
{
    (void)state;
    shc_ring r;
    assert_int_equal(shc_ring_init(&r, 8), 0);
    shc_ring_push(&r, "hello", 5);
    size_t n;
    bool t;
    char *c = shc_ring_copy(&r, &n, &t, NULL);
    assert_string_equal(c, "hello");
    assert_false(t);
    free(c);
    shc_ring_push(&r, " world", 6);
    c = shc_ring_copy(&r, &n, &t, NULL);
    assert_string_equal(c, "lo world");
    assert_true(t);
    free(c);
    /* the kept tail starts at a character boundary: "€" cut in half is dropped */
    shc_ring_push(&r,
                  "xx\xe2\x82\xac"
                  "abcdef",
                  11);
    uint64_t dropped;
    c = shc_ring_copy(&r, &n, &t, &dropped);
    assert_string_equal(c, "abcdef");
    assert_int_equal(n, 6);
    assert_int_equal(dropped, 22 - 6);
    free(c);
    shc_ring_fini(&r);
    /* limit 0: nothing kept, truncated once anything was written */
    assert_int_equal(shc_ring_init(&r, 0), 0);
    c = shc_ring_copy(&r, &n, &t, NULL);
    assert_string_equal(c, "");
    assert_false(t);
    free(c);
    shc_ring_push(&r, "abc", 3);
    c = shc_ring_copy(&r, &n, &t, NULL);
    assert_string_equal(c, "");
    assert_int_equal(n, 0);
    assert_true(t);
    free(c);
    shc_ring_fini(&r);
}

static char *model(const char *in, size_t cap)
{
    shc_model m;
    assert_int_equal(shc_model_init(&m, cap), 0);
    assert_int_equal(shc_model_feed(&m, in, strlen(in)), 0);
    char *out = shc_model_render(&m, NULL);
    shc_model_fini(&m);
    return out;
}

#define EXPECT_MODEL(in, want)           \
    do {                                 \
        char *got_ = model(in, 4096);    \
        assert_string_equal(got_, want); \
        free(got_);                      \
    } while (0)

static void test_model_cr_and_ansi(void **state)
{
    (void)state;
    EXPECT_MODEL("a\r\nb\r\n", "a\nb\n");   /* CRLF -> LF */
    EXPECT_MODEL("\rHello\x1b[K", "Hello"); /* vorn #470 */
    EXPECT_MODEL("\x1b[?25lhidden cursor\x1b[?25h\n", "hidden cursor\n");
    EXPECT_MODEL("10%\r20%\r30%\rdone\n", "done\n");   /* spinner: last frame */
    EXPECT_MODEL("progress 50%\r\x1b[Kok\n", "ok\n");  /* codex#33638 */
    EXPECT_MODEL("long line\rshort\n", "shortline\n"); /* CR overwrites, no erase */
    EXPECT_MODEL("\x1b[1;31mred\x1b[0m plain\n", "red plain\n");
    EXPECT_MODEL("\x1b]0;title\x07text\n", "text\n");                     /* OSC ended by BEL */
    EXPECT_MODEL("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n"); /* OSC ended by ST */
    EXPECT_MODEL("a\x1bPdcs stuff\x1b\\b\n", "ab\n");                     /* DCS */
    EXPECT_MODEL("a\x1b(Bb\x1b=c\n", "abc\n"); /* two-byte and charset escapes */
    EXPECT_MODEL("ab\bc\n", "ac\n");           /* backspace */
    EXPECT_MODEL("\xe2\x82\xac\xe2\x82\xac\rx\n", "x\xe2\x82\xac\n"); /* overwrite a whole char */
    EXPECT_MODEL("tab\there\a\n", "tab\there\n");                     /* BEL dropped, tab kept */
    EXPECT_MODEL("x\r\x1b[2Ky\n", "y\n");
    /* the whole-line fast path and its neighbours */
    EXPECT_MODEL("plain line one\r\nplain line two\n", "plain line one\nplain line two\n");
    EXPECT_MODEL("0123456789abcdef0123\r", "0123456789abcdef0123"); /* CR without LF */
    EXPECT_MODEL("0123456789abcdef\rXY\r\n", "XY23456789abcdef\n"); /* CR then more text */
    EXPECT_MODEL("0123456789abcdef\x7fZ\n", "0123456789abcdefZ\n"); /* DEL dropped */
    EXPECT_MODEL("0123456789abcdef\xc3\xa9\n", "0123456789abcdef\xc3\xa9\n");
}

/* A CRLF split across two feeds (two PTY reads) still gives one LF. */
static void test_model_crlf_split_across_feeds(void **state)
{
    (void)state;
    shc_model m;
    assert_int_equal(shc_model_init(&m, 4096), 0);
    assert_int_equal(shc_model_feed(&m, "abcdefghijkl\r", 13), 0);
    assert_int_equal(shc_model_feed(&m, "\nxyz\n", 5), 0);
    char *o = shc_model_render(&m, NULL);
    assert_string_equal(o, "abcdefghijkl\nxyz\n");
    free(o);
    shc_model_fini(&m);
}

static void test_model_head_tail(void **state)
{
    (void)state;
    /* 64-byte capacity: 32 head, 32 tail */
    char in[1000];
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        n += (size_t)sprintf(in + n, "%03d\n", i); /* 400 bytes */
    char *out = model(in, 64);
    assert_memory_equal(out, "000\n001\n002\n003\n004\n005\n006\n007\n", 32);
    const char *mk = strstr(out, "\n\xe2\x80\xa6 336 bytes omitted \xe2\x80\xa6\n");
    assert_non_null(mk);
    assert_string_equal(mk + strlen("\n\xe2\x80\xa6 336 bytes omitted \xe2\x80\xa6\n"),
                        "092\n093\n094\n095\n096\n097\n098\n099\n");
    free(out);
    /* a character across each cut survives whole: euro signs only */
    char eu[3 * 100 + 2];
    for (int i = 0; i < 100; i++)
        memcpy(eu + 3 * i, "\xe2\x82\xac", 3);
    eu[300] = '\n';
    eu[301] = 0;
    out = model(eu, 64);
    /* head: 10 euros (30 bytes, 32 would cut one); tail: whole euros then \n */
    assert_memory_equal(out, eu, 30);
    assert_int_equal(memcmp(out + 30, "\n\xe2\x80\xa6 ", 5), 0);
    const char *end = strstr(out, "omitted \xe2\x80\xa6\n");
    assert_non_null(end);
    end += strlen("omitted \xe2\x80\xa6\n");
    size_t tl = strlen(end);
    assert_int_equal(tl % 3, 1); /* whole euros + \n */
    assert_int_equal((unsigned char)end[0], 0xe2);
    free(out);
}

static void test_model_unbounded_line(void **state)
{
    (void)state;
    shc_model m;
    assert_int_equal(shc_model_init(&m, 1024), 0);
    char chunk[4096];
    memset(chunk, 'y', sizeof chunk);
    for (int i = 0; i < 1000; i++) /* 4 MB without a newline */
        assert_int_equal(shc_model_feed(&m, chunk, sizeof chunk), 0);
    assert_true(m.line_cap <= 2 * 65536 + 4096);
    size_t n;
    char *out = shc_model_render(&m, &n);
    assert_true(n < 1024 + 65536 + 100);
    assert_non_null(strstr(out, "bytes omitted"));
    free(out);
    shc_model_fini(&m);
}

static void test_signal_names(void **state)
{
    (void)state;
    assert_string_equal(shc_signal_name(9), "SIGKILL");
    assert_string_equal(shc_signal_name(15), "SIGTERM");
    assert_string_equal(shc_signal_name(2), "SIGINT");
    assert_string_equal(shc_signal_name(13), "SIGPIPE");
    assert_null(shc_signal_name(0));
    assert_null(shc_signal_name(200));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_euro_split_across_reads),
        cmocka_unit_test(test_emoji_split_1_3),
        cmocka_unit_test(test_invalid_bytes),
        cmocka_unit_test(test_boundary),
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_model_cr_and_ansi),
        cmocka_unit_test(test_model_crlf_split_across_feeds),
        cmocka_unit_test(test_model_head_tail),
        cmocka_unit_test(test_model_unbounded_line),
        cmocka_unit_test(test_signal_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
