/* The shared UTF-8 decoder and the lossy JSON string built on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/utf8.h"

static void test_decoder(void **state)
{
    (void)state;
    size_t adv;
    const unsigned char euro[] = {0xE2, 0x82, 0xAC};
    assert_int_equal(shc_utf8_dec(euro, 3, &adv), SHC_UTF8_OK);
    assert_int_equal(adv, 3);
    /* input ends inside a valid prefix */
    assert_int_equal(shc_utf8_dec(euro, 2, &adv), SHC_UTF8_SHORT);
    assert_int_equal(adv, 2);
    /* a lone continuation byte, a lone 0xFF, overlong and surrogate forms */
    const unsigned char ff[] = {0xFF}, cont[] = {0x80}, overlong[] = {0xC0, 0xAF},
                        surrogate[] = {0xED, 0xA0, 0x80}, e0bad[] = {0xE0, 0x80, 0x80};
    assert_int_equal(shc_utf8_dec(ff, 1, &adv), SHC_UTF8_BAD);
    assert_int_equal(adv, 1);
    assert_int_equal(shc_utf8_dec(cont, 1, &adv), SHC_UTF8_BAD);
    assert_int_equal(shc_utf8_dec(overlong, 2, &adv), SHC_UTF8_BAD);
    assert_int_equal(adv, 1);
    assert_int_equal(shc_utf8_dec(surrogate, 3, &adv), SHC_UTF8_BAD);
    assert_int_equal(adv, 1);
    assert_int_equal(shc_utf8_dec(e0bad, 3, &adv), SHC_UTF8_BAD);
    /* a valid lead and one good continuation, then a bad byte: one maximal subpart of 2 */
    const unsigned char cut[] = {0xE2, 0x82, 0x41};
    assert_int_equal(shc_utf8_dec(cut, 3, &adv), SHC_UTF8_BAD);
    assert_int_equal(adv, 2);
    const unsigned char emoji[] = {0xF0, 0x9F, 0x98, 0x80};
    assert_int_equal(shc_utf8_dec(emoji, 4, &adv), SHC_UTF8_OK);
    assert_int_equal(adv, 4);
    const unsigned char toobig[] = {0xF4, 0x90, 0x80, 0x80};
    assert_int_equal(shc_utf8_dec(toobig, 4, &adv), SHC_UTF8_BAD);
}

static void test_json_str(void **state)
{
    (void)state;
    /* E2 82 (cut) + 'A' + FF + valid euro: two replacement characters */
    const char in[] = "\xE2\x82" "A\xFF\xE2\x82\xAC";
    json_t *j = shc_json_str(in, sizeof in - 1);
    assert_non_null(j);
    assert_string_equal(json_string_value(j), "\xEF\xBF\xBD" "A\xEF\xBF\xBD\xE2\x82\xAC");
    json_decref(j);
    /* NUL bytes are kept */
    j = shc_json_str("a\0b", 3);
    assert_int_equal(json_string_length(j), 3);
    json_decref(j);
    /* valid input is taken as it is */
    j = shc_json_str("plain", 5);
    assert_string_equal(json_string_value(j), "plain");
    json_decref(j);
    j = shc_json_cstr(NULL);
    assert_true(json_is_null(j));
    json_decref(j);
}

/* Text from outside cut to a byte budget: never inside a character, invalid bytes U+FFFD. */
static void test_cut(void **state)
{
    (void)state;
    char out[16];
    /* "ab€": a cut at 4 bytes would split the euro sign: it goes whole */
    assert_int_equal(shc_utf8_cut(out, "ab\xE2\x82\xAC", 5, 4), 2);
    assert_string_equal(out, "ab");
    assert_int_equal(shc_utf8_cut(out, "ab\xE2\x82\xAC", 5, 5), 5);
    assert_string_equal(out, "ab\xE2\x82\xAC");
    /* an input that itself ends inside a character, a lone byte, a NUL */
    assert_int_equal(shc_utf8_cut(out, "a\xE2\x82", 3, 15), 4);
    assert_string_equal(out, "a\xEF\xBF\xBD");
    assert_int_equal(shc_utf8_cut(out, "\xFFz", 2, 15), 4);
    assert_string_equal(out, "\xEF\xBF\xBDz");
    assert_int_equal(shc_utf8_cut(out, "a\0b", 3, 15), 5);
    assert_string_equal(out, "a\xEF\xBF\xBD" "b");
    /* a replacement that does not fit is left out, not split */
    assert_int_equal(shc_utf8_cut(out, "ab\xFF", 3, 4), 2);
    assert_int_equal(shc_utf8_cut(out, "abc", 3, 0), 0);
    assert_string_equal(out, "");
    char *d = shc_utf8_dup("\xC3\xA9\xC3\xA9", 4, 3);
    assert_non_null(d);
    assert_string_equal(d, "\xC3\xA9");
    assert_true(shc_utf8_valid(d, strlen(d)));
    free(d);
    d = shc_utf8_dup("\xFF\xFF", 2, 1000);
    assert_string_equal(d, "\xEF\xBF\xBD\xEF\xBF\xBD");
    free(d);
    d = shc_utf8_dup(NULL, 0, 10);
    assert_string_equal(d, "");
    free(d);
}

static int put_buf(const char *b, size_t n, void *ctx)
{
    char **out = ctx;
    size_t have = *out ? strlen(*out) : 0;
    char *p = realloc(*out, have + n + 1);
    if (!p)
        return -1;
    memcpy(p + have, b, n);
    p[have + n] = '\0';
    *out = p;
    return 0;
}

/* The fast writer gives compact JSON that parses back to the same value. */
static void test_json_write(void **state)
{
    (void)state;
    json_t *v = json_pack("{s:s,s:i,s:f,s:b,s:n,s:[s,s,i],s:{s:s}}", "text",
                          "quote \" back \\ nl \n cr \r tab \t bell \a esc \x1b del \x7f \xe2\x82\xac",
                          "int", -42, "real", 1.5, "yes", 1, "none", "list", "a", "", 7, "obj",
                          "k", "v");
    json_object_set_new(v, "nul", json_stringn("a\0b", 3));
    json_object_set_new(v, "whole", json_real(2.0));
    char *out = NULL;
    assert_int_equal(shc_json_write(v, put_buf, &out), 0);
    assert_null(strchr(out, '\n')); /* one line */
    assert_null(strchr(out, '\r'));
    json_error_t err;
    json_t *back = json_loads(out, JSON_ALLOW_NUL, &err);
    if (!back)
        fail_msg("does not parse: %s: %s", err.text, out);
    assert_true(json_equal(v, back));
    /* insertion order and compact form */
    assert_int_equal(strncmp(out, "{\"text\":\"quote \\\" back \\\\ nl \\n", 31), 0);
    assert_non_null(strstr(out, "\"nul\":\"a\\u0000b\""));
    assert_non_null(strstr(out, "\"whole\":2.0"));
    json_decref(back);
    json_decref(v);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoder),
        cmocka_unit_test(test_json_str),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_json_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
