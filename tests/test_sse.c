/* The server-sent-events parser: framing, line endings, comments, splits at every byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "shcard.h"
#include "model/sse.h"

typedef struct rec {
    char log[4096]; /* "event|data\n" per event */
    size_t n;
    int stop_at; /* return -99 on this event number (1-based), 0 = never */
} rec;

static int on_event(void *payload, const char *event, const char *data, size_t len)
{
    rec *r = payload;
    r->n++;
    size_t used = strlen(r->log);
    snprintf(r->log + used, sizeof r->log - used, "%s|%.*s\n", event, (int)len, data);
    assert_int_equal(strlen(data), len); /* NUL-terminated, no embedded NUL here */
    if (r->stop_at && (int)r->n == r->stop_at)
        return -99;
    return 0;
}

static void feed_all(const char *in, size_t chunk, rec *r)
{
    shc_sse *s = shc_sse_new(0);
    assert_non_null(s);
    size_t len = strlen(in);
    for (size_t i = 0; i < len; i += chunk) {
        size_t k = len - i < chunk ? len - i : chunk;
        assert_int_equal(shc_sse_feed(s, in + i, k, on_event, r), 0);
    }
    assert_false(shc_sse_pending(s));
    assert_int_equal(shc_sse_events(s), r->n);
    shc_sse_free(s);
}

static const char *stream = ": keep-alive\n"
                            "data: {\"a\":1}\n\n"
                            "data:no-space\r\n\r\n"
                            "event: ping\rdata: x\r\rdata: first\ndata: second\n"
                            "id: 7\nretry: 100\nunknown\n\n"
                            ":\n"
                            "data\n\n"
                            "data:  two spaces\n\n"
                            "data: [DONE]\n\n";

static const char *expect = "message|{\"a\":1}\n"
                            "message|no-space\n"
                            "ping|x\n"
                            "message|first\nsecond\n"
                            "message|\n"
                            "message| two spaces\n"
                            "message|[DONE]\n";

static void test_whole(void **state)
{
    (void)state;
    rec r = {0};
    feed_all(stream, strlen(stream), &r);
    assert_string_equal(r.log, expect);
    assert_int_equal(r.n, 7);
}

static void test_byte_by_byte(void **state)
{
    (void)state;
    for (size_t chunk = 1; chunk < 9; chunk++) {
        rec r = {0};
        feed_all(stream, chunk, &r);
        assert_string_equal(r.log, expect);
    }
}

/* Every split point of the stream into two pieces gives the same events. */
static void test_every_split(void **state)
{
    (void)state;
    size_t len = strlen(stream);
    for (size_t cut = 0; cut <= len; cut++) {
        rec r = {0};
        shc_sse *s = shc_sse_new(0);
        assert_int_equal(shc_sse_feed(s, stream, cut, on_event, &r), 0);
        assert_int_equal(shc_sse_feed(s, stream + cut, len - cut, on_event, &r), 0);
        assert_string_equal(r.log, expect);
        shc_sse_free(s);
    }
}

/* A CRLF split across two chunks is one line end, not two (which would dispatch early). */
static void test_crlf_split(void **state)
{
    (void)state;
    rec r = {0};
    shc_sse *s = shc_sse_new(0);
    assert_int_equal(shc_sse_feed(s, "data: a\r", 8, on_event, &r), 0);
    assert_int_equal(shc_sse_feed(s, "\ndata: b\r", 9, on_event, &r), 0);
    assert_int_equal(r.n, 0);
    assert_int_equal(shc_sse_feed(s, "\n\r\n", 3, on_event, &r), 0);
    assert_string_equal(r.log, "message|a\nb\n");
    shc_sse_free(s);
}

static void test_cut_mid_event(void **state)
{
    (void)state;
    rec r = {0};
    shc_sse *s = shc_sse_new(0);
    const char *in = "data: {\"x\":1}\n\ndata: {\"choi";
    assert_int_equal(shc_sse_feed(s, in, strlen(in), on_event, &r), 0);
    assert_int_equal(r.n, 1);
    assert_true(shc_sse_pending(s));
    shc_sse_free(s);

    /* a complete data line without its blank line is also an event that never came */
    rec r2 = {0};
    s = shc_sse_new(0);
    assert_int_equal(shc_sse_feed(s, "data: 1\n", 8, on_event, &r2), 0);
    assert_int_equal(r2.n, 0);
    assert_true(shc_sse_pending(s));
    shc_sse_free(s);
}

static void test_limit(void **state)
{
    (void)state;
    rec r = {0};
    shc_sse *s = shc_sse_new(32);
    assert_int_equal(shc_sse_feed(s, "data: short\n\n", 13, on_event, &r), 0);
    char big[100];
    memset(big, 'x', sizeof big);
    assert_int_equal(shc_sse_feed(s, "data: ", 6, on_event, &r), 0);
    assert_int_equal(shc_sse_feed(s, big, sizeof big, on_event, &r), SHC_E_LIMIT);
    assert_int_equal(shc_sse_feed(s, "\n\n", 2, on_event, &r), SHC_E_LIMIT);
    assert_int_equal(r.n, 1);
    shc_sse_free(s);

    /* many data lines that together go over the limit */
    rec r2 = {0};
    s = shc_sse_new(32);
    int rc = 0;
    for (int i = 0; i < 10 && !rc; i++)
        rc = shc_sse_feed(s, "data: 123456\n", 13, on_event, &r2);
    assert_int_equal(rc, SHC_E_LIMIT);
    shc_sse_free(s);
}

static void test_callback_stops(void **state)
{
    (void)state;
    rec r = {.stop_at = 2};
    shc_sse *s = shc_sse_new(0);
    const char *in = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
    assert_int_equal(shc_sse_feed(s, in, strlen(in), on_event, &r), -99);
    assert_int_equal(r.n, 2);
    shc_sse_free(s);
    shc_sse_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),          cmocka_unit_test(test_byte_by_byte),
        cmocka_unit_test(test_every_split),    cmocka_unit_test(test_crlf_split),
        cmocka_unit_test(test_cut_mid_event),  cmocka_unit_test(test_limit),
        cmocka_unit_test(test_callback_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
