/* base64 for ACP v2's terminal bytes: the RFC 4648 test vectors, every byte value, and lengths
 * around the 3-byte groups (each chunk is encoded on its own, so padding must be exact). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"

static void test_rfc4648_vectors(void **state)
{
    (void)state;
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        char *e = shc_base64(in[i], strlen(in[i]));
        assert_non_null(e);
        assert_string_equal(e, out[i]);
        assert_int_equal(strlen(e), shc_base64_len(strlen(in[i])));
        free(e);
    }
}

/* A small decoder written independently of the encoder, to round-trip every byte value. */
static int val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static size_t decode(const char *s, unsigned char *out)
{
    size_t n = 0, len = strlen(s);
    for (size_t i = 0; i + 4 <= len; i += 4) {
        int a = val(s[i]), b = val(s[i + 1]), c = s[i + 2] == '=' ? 0 : val(s[i + 2]),
            d = s[i + 3] == '=' ? 0 : val(s[i + 3]);
        assert_true(a >= 0 && b >= 0 && c >= 0 && d >= 0);
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        out[n++] = (unsigned char)(v >> 16);
        if (s[i + 2] != '=')
            out[n++] = (unsigned char)(v >> 8);
        if (s[i + 3] != '=')
            out[n++] = (unsigned char)v;
    }
    return n;
}

static void test_every_byte_and_length(void **state)
{
    (void)state;
    unsigned char bytes[259], back[259];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(255 - i % 256);
    for (size_t n = 0; n <= sizeof bytes; n++) {
        char *e = shc_base64(bytes, n);
        assert_non_null(e);
        assert_int_equal(strlen(e) % 4, 0);
        assert_int_equal(decode(e, back), n);
        assert_memory_equal(back, bytes, n);
        free(e);
    }
}

/* A UTF-8 character split between two chunks: each chunk encodes its own bytes, and the
 * decoded chunks joined are the original bytes. */
static void test_split_character(void **state)
{
    (void)state;
    char *a = shc_base64("caf\xc3", 4), *b = shc_base64("\xa9!", 2);
    assert_string_equal(a, "Y2Fmww==");
    assert_string_equal(b, "qSE=");
    unsigned char out[8];
    size_t n = decode(a, out);
    n += decode(b, out + n);
    assert_int_equal(n, 6);
    assert_memory_equal(out, "caf\xc3\xa9!", 6);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc4648_vectors),
        cmocka_unit_test(test_every_byte_and_length),
        cmocka_unit_test(test_split_character),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
