#define _GNU_SOURCE
/* The model request's functions within the model API's limits (model/body.c): names the API
 * refuses left out, descriptions (bash's included) cut to 1,024 UTF-16 units at a character
 * boundary with an ellipsis, at most 128 functions, and the session's own tools untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/openai.h"

/* UTF-16 code units of valid UTF-8 text. */
static size_t units(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p & 0xc0) != 0x80)
            n += *p >= 0xf0 ? 2 : 1;
    }
    return n;
}

static json_t *fn(const char *name, const char *desc)
{
    return json_pack("{s:s, s:{s:s, s:s, s:{s:s}}}", "type", "function", "function", "name", name,
                     "description", desc, "parameters", "type", "object");
}

/* The request body for tools (borrowed) and tool_note, parsed; its "tools" array borrowed from
 * *req (json_decref it). */
static json_t *body(json_t *tools, const char *tool_note, json_t **req)
{
    char *text = shc_openai_request_body_ex("m", NULL, "/w", NULL, NULL, tool_note, tools);
    assert_non_null(text);
    *req = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(*req);
    return json_object_get(*req, "tools");
}

static const char *desc_of(json_t *tools, size_t i)
{
    return json_string_value(
        json_object_get(json_object_get(json_array_get(tools, i), "function"), "description"));
}

static const char *name_of(json_t *tools, size_t i)
{
    return json_string_value(
        json_object_get(json_object_get(json_array_get(tools, i), "function"), "name"));
}

static void test_names(void **state)
{
    (void)state;
    char long_name[66];
    memset(long_name, 'n', 65);
    long_name[65] = 0;
    char max_name[65];
    memset(max_name, 'm', 64);
    max_name[64] = 0;
    json_t *in = json_array();
    const char *names[] = {"a.b", "", long_name, "caf\xc3\xa9", "has space", max_name, "ok_-9"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        json_array_append_new(in, fn(names[i], "d"));
    json_t *req;
    json_t *tools = body(in, NULL, &req);
    assert_int_equal(json_array_size(tools), 3);
    assert_string_equal(name_of(tools, 0), "bash");
    assert_string_equal(name_of(tools, 1), max_name);
    assert_string_equal(name_of(tools, 2), "ok_-9");
    json_decref(req);
    json_decref(in);
}

static void test_at_most_128(void **state)
{
    (void)state;
    json_t *in = json_array();
    for (int i = 0; i < 200; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        json_array_append_new(in, fn(name, "d"));
    }
    json_t *req;
    json_t *tools = body(in, NULL, &req);
    assert_int_equal(json_array_size(tools), SHC_OPENAI_FN_MAX);
    assert_string_equal(name_of(tools, 0), "bash");
    assert_string_equal(name_of(tools, 127), "f126");
    json_decref(req);
    json_decref(in);
}

static void test_descriptions(void **state)
{
    (void)state;
    char *ascii = malloc(3001), *emoji = malloc(4 * 600 + 2), *exact = malloc(1025);
    assert_non_null(ascii);
    assert_non_null(emoji);
    assert_non_null(exact);
    memset(ascii, 'x', 3000);
    ascii[3000] = 0;
    emoji[0] = 'e'; /* then 600 emoji: 1,201 units, the cut falls between two of them */
    for (int i = 0; i < 600; i++)
        memcpy(emoji + 1 + 4 * i, "\xf0\x9f\x98\x80", 4);
    emoji[1 + 4 * 600] = 0;
    memset(exact, 'y', 1024);
    exact[1024] = 0;
    json_t *in = json_array();
    json_array_append_new(in, fn("ascii", ascii));
    json_array_append_new(in, fn("emoji", emoji));
    json_array_append_new(in, fn("exact", exact));
    json_t *bad = fn("bad", "d"); /* jansson checks UTF-8: set past the check */
    json_object_set_new(json_object_get(bad, "function"), "description",
                        json_string_nocheck("ok \xff\xfe end"));
    json_array_append_new(in, bad);
    char *note = malloc(2001);
    assert_non_null(note);
    memset(note, 'z', 2000);
    note[2000] = 0;
    json_t *req;
    json_t *tools = body(in, note, &req);
    assert_int_equal(json_array_size(tools), 5);
    for (size_t i = 0; i < 5; i++)
        assert_true(units(desc_of(tools, i)) <= SHC_OPENAI_FN_DESC_MAX);
    /* bash: its description with a long note, cut too */
    assert_int_equal(units(desc_of(tools, 0)), 1024);
    assert_non_null(strstr(desc_of(tools, 0), "\xe2\x80\xa6"));
    /* 1,023 x and the ellipsis */
    assert_int_equal(strlen(desc_of(tools, 1)), 1023 + 3);
    assert_int_equal(strspn(desc_of(tools, 1), "x"), 1023);
    assert_string_equal(desc_of(tools, 1) + 1023, "\xe2\x80\xa6");
    /* "e", 511 emoji (1,023 units), the ellipsis: never half a surrogate pair */
    assert_int_equal(units(desc_of(tools, 2)), 1024);
    assert_int_equal(strlen(desc_of(tools, 2)), 1 + 4 * 511 + 3);
    /* exactly the limit: kept whole */
    assert_string_equal(desc_of(tools, 3), exact);
    /* invalid bytes: U+FFFD each (the request is JSON) */
    assert_string_equal(desc_of(tools, 4), "ok \xef\xbf\xbd\xef\xbf\xbd end");
    /* the session's own copy is not changed */
    const char *orig = json_string_value(
        json_object_get(json_object_get(json_array_get(in, 0), "function"), "description"));
    assert_string_equal(orig, ascii);
    json_decref(req);
    json_decref(in);
    free(ascii);
    free(emoji);
    free(exact);
    free(note);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_at_most_128),
        cmocka_unit_test(test_descriptions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
