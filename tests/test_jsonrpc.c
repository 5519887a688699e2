#define _GNU_SOURCE
/* NDJSON framing and JSON-RPC envelope: input split at every byte, several messages per read,
 * invalid UTF-8, over-long lines with resynchronisation, batches, responses to our requests,
 * and a writer that stalls or fails. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/jsonrpc.h"

typedef struct sink {
    char buf[1 << 16];
    size_t len;
    int mode;      /* 0 = take all, 1 = EAGAIN, 2 = EPIPE, 3 = 7 bytes at a time */
    char methods[64][32];
    int nmsg;
    int nnotif;
} sink;

static ssize_t sink_write(void *io, const void *buf, size_t len)
{
    sink *s = io;
    if (s->mode == 1) {
        errno = EAGAIN;
        return -1;
    }
    if (s->mode == 2) {
        errno = EPIPE;
        return -1;
    }
    if (s->mode == 3 && len > 7)
        len = 7;
    assert_true(s->len + len < sizeof s->buf);
    memcpy(s->buf + s->len, buf, len);
    s->len += len;
    return (ssize_t)len;
}

/* Echo handler: answers requests with {"method": m, "params": p}; counts notifications. */
static void on_msg(void *payload, shc_rpc *rpc, json_t *id, const char *method, json_t *params)
{
    sink *s = payload;
    if (s->nmsg < 64)
        snprintf(s->methods[s->nmsg], sizeof s->methods[0], "%s", method);
    s->nmsg++;
    if (!id) {
        s->nnotif++;
        return;
    }
    if (!strcmp(method, "nope")) {
        shc_rpc_error(rpc, id, SHC_RPC_METHOD_NOT_FOUND, "Method not found", NULL);
        return;
    }
    shc_rpc_respond(rpc, id,
                    json_pack("{s:s,s:O?}", "method", method, "params", params));
}

static shc_rpc *mk(sink *s, size_t max_line)
{
    memset(s, 0, sizeof *s);
    shc_rpc_config cfg = {max_line, sink_write, s, on_msg, s, 0, NULL};
    shc_rpc *rpc = shc_rpc_new(&cfg);
    assert_non_null(rpc);
    return rpc;
}

/* Splits the sink's output into parsed lines; returns how many. */
static int lines(sink *s, json_t **out, int max)
{
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->buf[i] != '\n')
            continue;
        assert_true(n < max);
        json_error_t e;
        out[n] = json_loadb(s->buf + start, i - start, JSON_ALLOW_NUL, &e);
        if (!out[n] && (strstr(e.text, "too big") || strstr(e.text, "overflow")))
            out[n] = json_object(); /* an id jansson cannot hold: the caller reads the raw line */
        assert_non_null(out[n]);
        n++;
        start = i + 1;
    }
    assert_int_equal(start, s->len); /* every frame ends with a newline */
    return n;
}

static void free_lines(json_t **l, int n)
{
    for (int i = 0; i < n; i++)
        json_decref(l[i]);
}

static int err_code(json_t *msg)
{
    return (int)json_integer_value(json_object_get(json_object_get(msg, "error"), "code"));
}

static const char three[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"params\":{\"x\":\"caf\xc3\xa9\"}}\n"
    "{\"jsonrpc\":\"2.0\",\"method\":\"note\"}\r\n"
    "{\"jsonrpc\":\"2.0\",\"id\":\"s-2\",\"method\":\"b\",\"params\":{\"t\":\"a\\nb\"}}\n";

static void check_three(sink *s)
{
    json_t *l[8];
    assert_int_equal(lines(s, l, 8), 2);
    assert_int_equal(s->nmsg, 3);
    assert_int_equal(s->nnotif, 1);
    assert_string_equal(s->methods[0], "a");
    assert_string_equal(s->methods[1], "note");
    assert_string_equal(s->methods[2], "b");
    assert_int_equal(json_integer_value(json_object_get(l[0], "id")), 1);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(l[0], "result"), "params"), "x")),
                        "caf\xc3\xa9");
    assert_string_equal(json_string_value(json_object_get(l[1], "id")), "s-2");
    /* the escaped newline stays escaped: the frame was one line */
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(l[1], "result"), "params"), "t")),
                        "a\nb");
    free_lines(l, 2);
}

static void test_several_in_one_read(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    assert_int_equal(shc_rpc_feed(rpc, three, strlen(three)), 0);
    assert_int_equal(shc_rpc_flush(rpc), 0);
    check_three(&s);
    shc_rpc_free(rpc);
}

static void test_split_at_every_byte(void **state)
{
    (void)state;
    size_t n = strlen(three);
    for (size_t cut = 0; cut <= n; cut++) {
        sink s;
        shc_rpc *rpc = mk(&s, 0);
        shc_rpc_feed(rpc, three, cut);
        shc_rpc_feed(rpc, three + cut, n - cut);
        assert_int_equal(shc_rpc_flush(rpc), 0);
        check_three(&s);
        shc_rpc_free(rpc);
    }
    /* and one byte per read */
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    for (size_t i = 0; i < n; i++)
        shc_rpc_feed(rpc, three + i, 1);
    shc_rpc_flush(rpc);
    check_three(&s);
    shc_rpc_free(rpc);
}

static void test_errors_and_recovery(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    const char in[] = "{not json\n"
                      "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}]\n"
                      "42\n"
                      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"nope\"}\n"
                      "{\"jsonrpc\":\"1.0\",\"id\":8,\"method\":\"a\"}\n"
                      "{\"jsonrpc\":\"2.0\",\"id\":9}\n"
                      "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"a\"}\n"
                      "\n   \n"
                      "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ok\"}\n";
    shc_rpc_feed(rpc, in, sizeof in - 1);
    shc_rpc_flush(rpc);
    json_t *l[16];
    int n = lines(&s, l, 16);
    assert_int_equal(n, 8);
    assert_int_equal(err_code(l[0]), SHC_RPC_PARSE_ERROR);
    assert_true(json_is_null(json_object_get(l[0], "id")));
    assert_int_equal(err_code(l[1]), SHC_RPC_INVALID_REQUEST);
    assert_true(json_is_null(json_object_get(l[1], "id")));
    assert_int_equal(err_code(l[2]), SHC_RPC_INVALID_REQUEST);
    assert_int_equal(err_code(l[3]), SHC_RPC_METHOD_NOT_FOUND);
    assert_int_equal(json_integer_value(json_object_get(l[3], "id")), 7);
    assert_int_equal(err_code(l[4]), SHC_RPC_INVALID_REQUEST);
    assert_int_equal(json_integer_value(json_object_get(l[4], "id")), 8);
    assert_int_equal(err_code(l[5]), SHC_RPC_INVALID_REQUEST);
    assert_int_equal(err_code(l[6]), SHC_RPC_INVALID_REQUEST);
    assert_true(json_is_null(json_object_get(l[6], "id")));
    assert_int_equal(json_integer_value(json_object_get(l[7], "id")), 10);
    assert_non_null(json_object_get(l[7], "result"));
    free_lines(l, n);
    shc_rpc_free(rpc);
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    const char in[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"params\":{\"x\":\"\xff\xfe\"}}\n"
                      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"a\",\"params\":{\"x\":\"\xe2\x82\"}}\n"
                      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\"}\n";
    shc_rpc_feed(rpc, in, sizeof in - 1);
    shc_rpc_flush(rpc);
    json_t *l[8];
    int n = lines(&s, l, 8);
    assert_int_equal(n, 3);
    assert_int_equal(err_code(l[0]), SHC_RPC_PARSE_ERROR);
    assert_int_equal(err_code(l[1]), SHC_RPC_PARSE_ERROR);
    /* the parser gave up, the answer still carries each request's own id */
    assert_int_equal(json_integer_value(json_object_get(l[0], "id")), 1);
    assert_int_equal(json_integer_value(json_object_get(l[1], "id")), 2);
    assert_int_equal(json_integer_value(json_object_get(l[2], "id")), 3);
    assert_int_equal(s.nmsg, 1);
    free_lines(l, n);
    shc_rpc_free(rpc);
}

static void test_over_long_line(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 64);
    char big[300];
    memset(big, 'x', sizeof big);
    const char ok[] = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"a\"}\n";
    /* an over-long line arriving in pieces, then a good one in the same read as its end */
    shc_rpc_feed(rpc, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"", 34);
    shc_rpc_feed(rpc, big, 100);
    shc_rpc_feed(rpc, big, 200);
    char tail[128];
    snprintf(tail, sizeof tail, "xx\"}\n%s", ok);
    shc_rpc_feed(rpc, tail, strlen(tail));
    /* an over-long line in one read, ending with its newline */
    char one[200];
    memset(one, 'y', sizeof one);
    one[199] = '\n';
    shc_rpc_feed(rpc, one, sizeof one);
    shc_rpc_feed(rpc, ok, sizeof ok - 1);
    /* exactly the limit is accepted */
    char exact[80];
    snprintf(exact, sizeof exact, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"%s\"}\n",
             "abcdefghijklmnopqrstuvwxyz01");
    assert_int_equal(strlen(exact) - 1, 64);
    shc_rpc_feed(rpc, exact, strlen(exact));
    shc_rpc_flush(rpc);
    json_t *l[8];
    int n = lines(&s, l, 8);
    assert_int_equal(n, 5);
    assert_int_equal(err_code(l[0]), SHC_RPC_INVALID_REQUEST);
    assert_non_null(strstr(json_string_value(json_object_get(json_object_get(l[0], "error"),
                                                             "message")),
                           "longer than 64"));
    assert_int_equal(json_integer_value(json_object_get(l[1], "id")), 5);
    assert_int_equal(err_code(l[2]), SHC_RPC_INVALID_REQUEST);
    assert_int_equal(json_integer_value(json_object_get(l[3], "id")), 5);
    assert_int_equal(json_integer_value(json_object_get(l[4], "id")), 6);
    free_lines(l, n);
    shc_rpc_free(rpc);
}

static void test_eof_partial_line(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    const char in[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}";
    shc_rpc_feed(rpc, in, sizeof in - 1);
    assert_int_equal(s.nmsg, 0);
    shc_rpc_feed_eof(rpc);
    assert_int_equal(s.nmsg, 1);
    shc_rpc_free(rpc);
}

typedef struct got {
    int calls;
    json_t *result;
    json_t *error;
} got;

static void on_resp(void *payload, json_t *result, json_t *error)
{
    got *g = payload;
    g->calls++;
    g->result = json_incref(result);
    g->error = json_incref(error);
}

static void test_outgoing_requests(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    got a = {0}, b = {0}, c = {0};
    int64_t ida, idb, idc;
    assert_int_equal(shc_rpc_request(rpc, "terminal/create", json_pack("{s:s}", "command", "ls"),
                                     on_resp, &a, &ida), 0);
    assert_int_equal(shc_rpc_request(rpc, "x", NULL, on_resp, &b, &idb), 0);
    assert_int_equal(shc_rpc_request(rpc, "y", NULL, on_resp, &c, &idc), 0);
    assert_true(ida != idb && idb != idc);
    shc_rpc_flush(rpc);
    json_t *l[4];
    assert_int_equal(lines(&s, l, 4), 3);
    assert_string_equal(json_string_value(json_object_get(l[0], "method")), "terminal/create");
    assert_int_equal(json_integer_value(json_object_get(l[0], "id")), ida);
    free_lines(l, 3);
    char resp[256];
    snprintf(resp, sizeof resp,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32601,\"message\":\"no\"}}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"terminalId\":\"t1\"}}\n"
             "{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n",
             (long long)idb, (long long)ida);
    shc_rpc_feed(rpc, resp, strlen(resp));
    assert_int_equal(a.calls, 1);
    assert_string_equal(json_string_value(json_object_get(a.result, "terminalId")), "t1");
    assert_int_equal(b.calls, 1);
    assert_null(b.result);
    assert_int_equal(json_integer_value(json_object_get(b.error, "code")), -32601);
    assert_int_equal(c.calls, 0);
    shc_rpc_forget(rpc, idc);
    shc_rpc_free(rpc); /* c was forgotten: no call */
    assert_int_equal(c.calls, 0);
    json_decref(a.result);
    json_decref(b.error);

    /* abandoned requests get (NULL, NULL) exactly once */
    rpc = mk(&s, 0);
    got d = {0};
    shc_rpc_request(rpc, "z", NULL, on_resp, &d, NULL);
    shc_rpc_free(rpc);
    assert_int_equal(d.calls, 1);
    assert_null(d.result);
    assert_null(d.error);
}

static void test_writer_stall_and_failure(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    s.mode = 1;
    shc_rpc_notify(rpc, "session/update", json_pack("{s:s}", "a", "b"));
    size_t q = shc_rpc_queued(rpc);
    assert_true(q > 0);
    assert_int_equal(shc_rpc_flush(rpc), 1); /* EAGAIN: still queued */
    assert_int_equal(shc_rpc_queued(rpc), q);
    s.mode = 3; /* short writes */
    shc_rpc_notify(rpc, "second", NULL);
    while (shc_rpc_flush(rpc) == 1)
        ;
    assert_int_equal(shc_rpc_queued(rpc), 0);
    json_t *l[4];
    assert_int_equal(lines(&s, l, 4), 2);
    free_lines(l, 2);
    s.mode = 2; /* EPIPE */
    shc_rpc_notify(rpc, "third", NULL);
    assert_int_equal(shc_rpc_flush(rpc), -5);
    assert_true(shc_rpc_broken(rpc));
    assert_int_equal(shc_rpc_notify(rpc, "fourth", NULL), -5);
    assert_int_equal(shc_rpc_queued(rpc), 0);
    assert_int_equal(shc_rpc_request(rpc, "r", NULL, on_resp, NULL, NULL), -5);
    shc_rpc_free(rpc);
}

static void test_big_frame(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    char *big = malloc(40000);
    memset(big, 'q', 39999);
    big[39999] = 0;
    shc_rpc_notify(rpc, "n", json_pack("{s:s}", "d", big));
    assert_int_equal(shc_rpc_flush(rpc), 0);
    json_t *l[2];
    assert_int_equal(lines(&s, l, 2), 1);
    assert_int_equal(strlen(json_string_value(json_object_get(json_object_get(l[0], "params"), "d"))),
                     39999);
    free_lines(l, 1);
    free(big);
    shc_rpc_free(rpc);
}

/* The raw text of output line k (for ids jansson cannot hold exactly). */
static const char *line_at(sink *s, int k, size_t *len)
{
    size_t start = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->buf[i] != '\n')
            continue;
        if (k-- == 0) {
            *len = i - start;
            return s->buf + start;
        }
        start = i + 1;
    }
    return NULL;
}

/* Every request is answered with its own id whenever it can be read at all: NUL inside strings,
 * ids past 64 bits or not integral, invalid UTF-8, nesting and size limits. */
static void test_ids_always_echoed(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    const char in[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"params\":{\"x\":\"p\\u0000q\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"a\\u0000b\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":18446744073709551616,\"method\":\"a\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"a\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"a\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775808,\"method\":\"a\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":\"s\\u0000t\",\"method\":\"a\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"a\",\"params\":{\"x\":\"\xc3\x28\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"a\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"a\",\"params\":{\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[["
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
        "]]]]]]]]]]]]]]]]]]]]]}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"a\",\"params\":{\"x\":[{}\n";
    assert_int_equal(shc_rpc_feed(rpc, in, sizeof in - 1), 0);
    /* a line of many tiny values is refused before the parser sees it */
    size_t big = 30000 * 3 + 100;
    char *bomb = malloc(big);
    int k = snprintf(bomb, big, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"a\",\"params\":[");
    for (int i = 0; i < 30000; i++)
        k += snprintf(bomb + k, big - (size_t)k, i ? ",{}" : "{}");
    k += snprintf(bomb + k, big - (size_t)k, "]}\n");
    assert_int_equal(shc_rpc_feed(rpc, bomb, (size_t)k), 0);
    free(bomb);
    assert_int_equal(shc_rpc_flush(rpc), 0);
    json_t *l[16];
    int n = lines(&s, l, 16);
    assert_int_equal(n, 12);
    /* 1: a NUL in a value reaches the handler (which decides); its method was "a" */
    assert_int_equal(json_integer_value(json_object_get(l[0], "id")), 1);
    assert_non_null(json_object_get(l[0], "result"));
    assert_int_equal(err_code(l[1]), SHC_RPC_METHOD_NOT_FOUND);
    assert_int_equal(json_integer_value(json_object_get(l[1], "id")), 2);
    const char *want[] = {"18446744073709551616", "1.5", "1e400"};
    for (int i = 0; i < 3; i++) {
        size_t len = 0;
        const char *raw = line_at(&s, 2 + i, &len);
        assert_non_null(raw);
        char pat[64];
        snprintf(pat, sizeof pat, "\"id\":%s,", want[i]);
        assert_non_null(memmem(raw, len, pat, strlen(pat)));
        assert_non_null(memmem(raw, len, "\"code\":-32600", 13));
    }
    assert_non_null(json_object_get(l[5], "result")); /* -2^63 is a valid id */
    assert_int_equal(json_string_length(json_object_get(l[6], "id")), 3); /* "s\0t" kept */
    assert_int_equal(err_code(l[7]), SHC_RPC_PARSE_ERROR);
    assert_int_equal(json_integer_value(json_object_get(l[7], "id")), 7);
    assert_int_equal(err_code(l[8]), SHC_RPC_PARSE_ERROR); /* the id itself is unreadable */
    assert_true(json_is_null(json_object_get(l[8], "id")));
    assert_int_equal(err_code(l[9]), SHC_RPC_INVALID_REQUEST); /* nesting past the limit */
    assert_int_equal(json_integer_value(json_object_get(l[9], "id")), 8);
    assert_int_equal(err_code(l[10]), SHC_RPC_PARSE_ERROR); /* truncated */
    assert_int_equal(json_integer_value(json_object_get(l[10], "id")), 9);
    assert_int_equal(err_code(l[11]), SHC_RPC_INVALID_REQUEST); /* too many values */
    assert_int_equal(json_integer_value(json_object_get(l[11], "id")), 10);
    free_lines(l, n);
    shc_rpc_free(rpc);
}

static int answered;
static void on_answer(void *payload, json_t *result, json_t *error)
{
    (void)payload;
    answered = result ? 1 : error ? (int)json_integer_value(json_object_get(error, "code")) : -1;
}

/* A client's answer that cannot be parsed still ends the request it answers (with an error),
 * and is never itself answered. */
static void test_unreadable_response_ends_request(void **state)
{
    (void)state;
    sink s;
    shc_rpc *rpc = mk(&s, 0);
    int64_t id = 0;
    assert_int_equal(shc_rpc_request(rpc, "x/y", NULL, on_answer, NULL, &id), 0);
    assert_int_equal(shc_rpc_flush(rpc), 0);
    size_t before = s.len;
    char in[128];
    snprintf(in, sizeof in, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"x\":\"\xff\"}}\n",
             (long long)id);
    answered = 0;
    assert_int_equal(shc_rpc_feed(rpc, in, strlen(in)), 0);
    assert_int_equal(shc_rpc_flush(rpc), 0);
    assert_int_equal(answered, SHC_RPC_PARSE_ERROR);
    assert_int_equal(s.len, before); /* nothing sent back */
    shc_rpc_free(rpc);
}

static int invalid_seen;
static char invalid_last[128];

static void on_invalid(void *payload, const char *why)
{
    (void)payload;
    invalid_seen++;
    snprintf(invalid_last, sizeof invalid_last, "%s", why);
}

/* The client role (on_invalid set, as the MCP client has it): nothing that is not a message it
 * takes is answered, whatever is wrong with it; each is reported once; a valid request after
 * them is answered as usual. */
static void test_invalid_reported_not_answered(void **state)
{
    (void)state;
    sink s;
    memset(&s, 0, sizeof s);
    shc_rpc_config cfg = {64, sink_write, &s, on_msg, &s, 0, on_invalid};
    shc_rpc *rpc = shc_rpc_new(&cfg);
    assert_non_null(rpc);
    static const char *const bad[] = {
        "x\n",                                            /* not JSON */
        "{\"jsonrpc\":\"2.0\",\"id\":1}\n",                 /* an id, no method */
        "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"a\"}\n",  /* a wrong version */
        "{\"jsonrpc\":\"1.0\"}\n",                          /* a wrong version, no id */
        "{\"jsonrpc\":\"2.0\"}\n",                          /* nothing */
        "[1]\n",                                          /* a batch */
        "7\n",                                            /* not an object */
        "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"a\"}\n",/* a bad id */
        "{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"a\"}\n", /* a raw id */
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\\u0000\"}\n", /* a NUL in the method */
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n",
    };
    invalid_seen = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(shc_rpc_feed(rpc, bad[i], strlen(bad[i])), 0);
    assert_int_equal(shc_rpc_flush(rpc), 0);
    assert_int_equal(s.len, 0); /* not one answer */
    assert_int_equal(invalid_seen, (int)(sizeof bad / sizeof *bad));
    assert_non_null(strstr(invalid_last, "line longer than 64 bytes"));
    static const char good[] = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"a\"}\n";
    assert_int_equal(shc_rpc_feed(rpc, good, strlen(good)), 0);
    assert_int_equal(shc_rpc_flush(rpc), 0);
    json_t *l[2];
    assert_int_equal(lines(&s, l, 2), 1);
    assert_int_equal(json_integer_value(json_object_get(l[0], "id")), 5);
    free_lines(l, 1);
    assert_int_equal(invalid_seen, (int)(sizeof bad / sizeof *bad));
    shc_rpc_free(rpc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_several_in_one_read),
        cmocka_unit_test(test_split_at_every_byte),
        cmocka_unit_test(test_errors_and_recovery),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_over_long_line),
        cmocka_unit_test(test_eof_partial_line),
        cmocka_unit_test(test_outgoing_requests),
        cmocka_unit_test(test_writer_stall_and_failure),
        cmocka_unit_test(test_big_frame),
        cmocka_unit_test(test_ids_always_echoed),
        cmocka_unit_test(test_unreadable_response_ends_request),
        cmocka_unit_test(test_invalid_reported_not_answered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
