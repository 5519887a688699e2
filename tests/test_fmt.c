/* shc_vformat (src/base/fmt.c) gives exactly what vsnprintf gives: the fast formats (%s, %c,
 * %d, %%) over many values and buffer sizes (truncation), and the fallback for the others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/fmt.h"

static void fmt(char *buf, size_t cap, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t cap, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    shc_vformat(buf, cap, f, ap);
    va_end(ap);
}

static void ref(char *buf, size_t cap, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void ref(char *buf, size_t cap, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, cap, f, ap);
    va_end(ap);
}

#define SAME(cap, ...)                       \
    do {                                     \
        char a[64], b[64];                   \
        memset(a, 'x', sizeof a);            \
        memset(b, 'x', sizeof b);            \
        fmt(a, cap, __VA_ARGS__);            \
        ref(b, cap, __VA_ARGS__);            \
        assert_memory_equal(a, b, sizeof a); \
    } while (0)

static void test_fast_formats(void **state)
{
    (void)state;
    const char *words[] = {"", "x", "sed", "a longer option value -i.bak"};
    const int nums[] = {0, 7, -1, 42, -2147483647 - 1, 2147483647};
    for (size_t cap = 0; cap <= 48; cap++) {
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
            SAME(cap, "%s: not an allowlisted command", words[i]);
            SAME(cap, "%s%s", words[i], words[i]);
            SAME(cap, "100%% %s", words[i]);
            SAME(cap, "%c%s%c", '[', words[i], ']');
        }
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
            SAME(cap, "fd %d is not allowed", nums[i]);
        SAME(cap, "plain text");
    }
}

static void test_other_formats_fall_back(void **state)
{
    (void)state;
    for (size_t cap = 0; cap <= 40; cap++) {
        SAME(cap, "control 0x%02x at %zu", 7u, (size_t)12);
        SAME(cap, "'%.*s'", 3, "abcdef");
        SAME(cap, "%.60s", "short");
        SAME(cap, "%s then %ld", "x", 5L);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_formats),
        cmocka_unit_test(test_other_formats_fall_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
