/* Stream delta accumulation: content, reasoning, tool calls by index, errors, [DONE]. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "model/oai_delta.h"
#include "shcard.h"
#include "model/sse.h"

typedef struct seen {
    char content[1024];
    char reasoning[1024];
    int ncontent, nreasoning;
} seen;

static void on_content(void *p, const char *t, size_t n)
{
    seen *s = p;
    strncat(s->content, t, n);
    s->ncontent++;
}

static void on_reasoning(void *p, const char *t, size_t n)
{
    seen *s = p;
    strncat(s->reasoning, t, n);
    s->nreasoning++;
}

static const shc_oai_delta_cbs cbs = {on_content, on_reasoning};

static int feed(shc_oai_delta *d, const char *data, seen *s, char *err)
{
    return shc_oai_delta_feed(d, data, strlen(data), &cbs, s, err, 200);
}

static void test_text_and_reasoning(void **state)
{
    (void)state;
    shc_oai_delta *d = shc_oai_delta_new();
    seen s = {0};
    char err[200] = "";
    assert_int_equal(feed(d,
                          "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
                          "\"content\":null,\"reasoning_content\":\"Let me \"}}]}",
                          &s, err),
                     0);
    assert_int_equal(
        feed(d, "{\"choices\":[{\"delta\":{\"reasoning_content\":\"think.\"}}]}", &s, err), 0);
    assert_int_equal(feed(d, "{\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}", &s, err), 0);
    assert_int_equal(feed(d, "{\"choices\":[{\"delta\":{\"content\":\"lo \\u00e9\"}}]}", &s, err),
                     0);
    assert_int_equal(feed(d, "{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}", &s, err),
                     0);
    assert_int_equal(feed(d, "{\"choices\":[],\"usage\":{\"total_tokens\":5}}", &s, err), 0);
    assert_false(shc_oai_delta_done(d));
    assert_int_equal(feed(d, " [DONE] ", &s, err), 0);
    assert_true(shc_oai_delta_done(d));
    assert_string_equal(s.content, "Hello \xc3\xa9");
    assert_string_equal(s.reasoning, "Let me think.");
    assert_int_equal(s.ncontent, 2);
    assert_int_equal(s.nreasoning, 2);
    size_t n;
    assert_string_equal(shc_oai_delta_content(d, &n), "Hello \xc3\xa9");
    assert_int_equal(n, 8);
    assert_string_equal(shc_oai_delta_reasoning(d, NULL), "Let me think.");
    assert_string_equal(shc_oai_delta_finish(d), "stop");
    assert_int_equal(shc_oai_delta_ntools(d), 0);
    json_t *m = shc_oai_delta_message(d, "p");
    assert_string_equal(json_string_value(json_object_get(m, "role")), "assistant");
    assert_string_equal(json_string_value(json_object_get(m, "content")), "Hello \xc3\xa9");
    assert_null(json_object_get(m, "tool_calls"));
    assert_null(json_object_get(m, "reasoning_content")); /* DeepSeek refuses it in input */
    json_decref(m);
    shc_oai_delta_free(d);
}

/* Two tool calls whose argument deltas arrive interleaved and split in the middle of tokens. */
static void test_tool_calls_by_index(void **state)
{
    (void)state;
    const char *chunks[] = {
        "{\"choices\":[{\"delta\":{\"content\":\"Running.\",\"tool_calls\":[{\"index\":0,"
        "\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"bash\","
        "\"arguments\":\"\"}}]}}]}",
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
        "\"{\\\"comm\"}}]}}]}",
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\","
        "\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"command\\\":\"}}]}}]}",
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
        "\"and\\\": \\\"ls\"}}]}}]}",
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":"
        "\"\\\"pwd\\\"}\"}},{\"index\":0,\"function\":{\"arguments\":\"\\\"}\"}}]}}]}",
        "{\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}",
    };
    shc_oai_delta *d = shc_oai_delta_new();
    seen s = {0};
    char err[200] = "";
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++)
        assert_int_equal(feed(d, chunks[i], &s, err), 0);
    assert_int_equal(shc_oai_delta_ntools(d), 2);
    shc_oai_tool_call tc;
    assert_true(shc_oai_delta_tool(d, 0, &tc));
    assert_string_equal(tc.id, "call_a");
    assert_string_equal(tc.name, "bash");
    assert_string_equal(tc.args, "{\"command\": \"ls\"}");
    assert_true(shc_oai_delta_tool(d, 1, &tc));
    assert_string_equal(tc.id, "call_b");
    assert_string_equal(tc.args, "{\"command\":\"pwd\"}");
    assert_false(shc_oai_delta_tool(d, 2, &tc));
    assert_string_equal(shc_oai_delta_finish(d), "tool_calls");
    json_t *m = shc_oai_delta_message(d, "p");
    json_t *tcs = json_object_get(m, "tool_calls");
    assert_int_equal(json_array_size(tcs), 2);
    json_t *t1 = json_array_get(tcs, 1);
    assert_string_equal(json_string_value(json_object_get(t1, "id")), "call_b");
    assert_string_equal(json_string_value(json_object_get(t1, "type")), "function");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(t1, "function"), "arguments")),
        "{\"command\":\"pwd\"}");
    assert_string_equal(json_string_value(json_object_get(m, "content")), "Running.");
    assert_null(json_object_get(m, "reasoning_content")); /* none was streamed */
    json_decref(m);

    /* with reasoning, a message with tool calls keeps it (DeepSeek thinking mode needs it) */
    assert_int_equal(
        feed(d, "{\"choices\":[{\"delta\":{\"reasoning_content\":\"why\"}}]}", &s, err), 0);
    m = shc_oai_delta_message(d, "p");
    assert_string_equal(json_string_value(json_object_get(m, "reasoning_content")), "why");
    json_decref(m);
    shc_oai_delta_free(d);
}

/* Servers that send tool calls without index (and without id): continue the last call. */
static void test_tool_calls_without_index(void **state)
{
    (void)state;
    shc_oai_delta *d = shc_oai_delta_new();
    seen s = {0};
    char err[200] = "";
    assert_int_equal(feed(d,
                          "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":"
                          "\"bash\",\"arguments\":\"{\\\"command\\\"\"}}]}}]}",
                          &s, err),
                     0);
    assert_int_equal(feed(d,
                          "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{"
                          "\"arguments\":\":\\\"id\\\"}\"}}]}}]}",
                          &s, err),
                     0);
    assert_int_equal(feed(d,
                          "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c2\",\"function\":"
                          "{\"name\":\"bash\",\"arguments\":\"{}\"}}]}}]}",
                          &s, err),
                     0);
    assert_int_equal(shc_oai_delta_ntools(d), 2);
    shc_oai_tool_call tc;
    assert_true(shc_oai_delta_tool(d, 0, &tc));
    assert_string_equal(tc.args, "{\"command\":\"id\"}");
    assert_string_equal(tc.id, "");
    json_t *m = shc_oai_delta_message(d, "t3");
    json_t *t0 = json_array_get(json_object_get(m, "tool_calls"), 0);
    assert_string_equal(json_string_value(json_object_get(t0, "id")), "call_t3_0");
    assert_true(json_is_null(json_object_get(m, "content")));
    json_decref(m);
    shc_oai_delta_free(d);
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *data;
        int code;
        const char *msg;
    } cases[] = {
        {"not json", SHC_E_SYNTAX, "not a JSON object"},
        {"[1,2]", SHC_E_SYNTAX, "not a JSON object"},
        {"{\"object\":\"chat.completion.chunk\"}", SHC_E_SYNTAX, "no choices"},
        {"{\"choices\":[{\"delta\":{\"content\":5}}]}", SHC_E_SYNTAX, "not a string"},
        {"{\"choices\":[{\"delta\":[]}]}", SHC_E_SYNTAX, "delta is not an object"},
        {"{\"choices\":[{\"delta\":{\"tool_calls\":{}}}]}", SHC_E_SYNTAX, "not an array"},
        {"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":999}]}}]}", SHC_E_LIMIT,
         "out of range"},
        {"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":\"0\"}]}}]}", SHC_E_SYNTAX,
         "not an integer"},
        {"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":{}}}]}"
         "}"
         "]}",
         SHC_E_SYNTAX, "arguments are not a string"},
        {"{\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}", SHC_E_IO,
         "reported an error: overloaded"},
        {"{\"choices\":[{\"delta\":{},\"finish_reason\":7}]}", SHC_E_SYNTAX, "finish_reason"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        shc_oai_delta *d = shc_oai_delta_new();
        seen s = {0};
        char err[200] = "";
        int rc = feed(d, cases[i].data, &s, err);
        if (rc != cases[i].code || !strstr(err, cases[i].msg))
            fail_msg("case %zu: rc %d err '%s'", i, rc, err);
        shc_oai_delta_free(d);
    }
    shc_oai_delta_free(NULL);
}

/* SSE and delta together, fed one byte at a time. */
typedef struct pipe_ctx {
    shc_oai_delta *d;
    seen s;
} pipe_ctx;

static int on_event(void *p, const char *ev, const char *data, size_t len)
{
    (void)ev;
    pipe_ctx *c = p;
    char err[200];
    return shc_oai_delta_feed(c->d, data, len, &cbs, &c->s, err, sizeof err);
}

static void test_sse_byte_split(void **state)
{
    (void)state;
    const char *wire =
        ": keep-alive\r\n\r\n"
        "data: {\"choices\":[{\"delta\":{\"content\":\"a\\nb\"}}]}\r\n\r\n"
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":"
        "{\"name\":\"bash\",\"arguments\":\"{\\\"command\\\":\\\"echo hi\\\"}\"}}]}}]}\n\n"
        ": ping\n\n"
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
        "data: [DONE]\n\n";
    pipe_ctx c = {.d = shc_oai_delta_new()};
    shc_sse *s = shc_sse_new(0);
    for (size_t i = 0; wire[i]; i++)
        assert_int_equal(shc_sse_feed(s, wire + i, 1, on_event, &c), 0);
    assert_true(shc_oai_delta_done(c.d));
    assert_string_equal(c.s.content, "a\nb");
    shc_oai_tool_call tc;
    assert_true(shc_oai_delta_tool(c.d, 0, &tc));
    assert_string_equal(tc.args, "{\"command\":\"echo hi\"}");
    shc_sse_free(s);
    shc_oai_delta_free(c.d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_and_reasoning),       cmocka_unit_test(test_tool_calls_by_index),
        cmocka_unit_test(test_tool_calls_without_index), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sse_byte_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
