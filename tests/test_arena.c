/* Arena and diagnostics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/arena.h"
#include "shell/diag.h"

static void test_alloc_zeroed_aligned(void **state)
{
    (void)state;
    shc_arena *a = shc_arena_new(0);
    assert_non_null(a);
    for (size_t i = 1; i < 5000; i += 7) {
        unsigned char *p = shc_arena_alloc(a, i);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (size_t j = 0; j < i; j++)
            assert_int_equal(p[j], 0);
        memset(p, 0xab, i);
    }
    shc_arena_free(a);
}

static void test_cap(void **state)
{
    (void)state;
    shc_arena *a = shc_arena_new(1000);
    assert_non_null(shc_arena_alloc(a, 500));
    assert_false(shc_arena_hit_cap(a));
    assert_null(shc_arena_alloc(a, 600));
    assert_true(shc_arena_hit_cap(a));
    shc_arena_free(a);
}

/* An arena in the caller's buffer: allocations start inside it, go on to the heap once it is
 * full, keep the cap, and shc_arena_free frees only what the heap gave (ASan checks that; with
 * SHC_ARENA_DEBUG the buffer is not used and every allocation is its own). */
static void test_in_caller_buffer(void **state)
{
    (void)state;
    shc_arena_buf buf;
    shc_arena *a = shc_arena_in(&buf, 0);
    assert_non_null(a);
    unsigned char *lo = buf.bytes, *hi = buf.bytes + sizeof buf.bytes;
    unsigned char *first = shc_arena_alloc(a, 100);
    assert_non_null(first);
#ifndef SHC_ARENA_DEBUG
    assert_true(first >= lo && first + 100 <= hi);
#endif
    size_t inside = 0, outside = 0;
    for (int i = 0; i < 200; i++) {
        unsigned char *p = shc_arena_alloc(a, 64);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        memset(p, 0xcd, 64);
        if (p >= lo && p < hi)
            inside++;
        else
            outside++;
    }
#ifndef SHC_ARENA_DEBUG
    assert_true(inside > 40 && outside > 0); /* the buffer filled, then the heap */
#endif
    assert_int_equal(first[0], 0); /* later allocations never overlap earlier ones */
    shc_arena_free(a);

    a = shc_arena_in(&buf, 1000); /* the cap counts as for shc_arena_new */
    assert_non_null(shc_arena_alloc(a, 500));
    assert_null(shc_arena_alloc(a, 600));
    assert_true(shc_arena_hit_cap(a));
    shc_arena_free(a);

    a = shc_arena_in(NULL, 0); /* no buffer: a heap arena */
    assert_non_null(shc_arena_alloc(a, 10));
    shc_arena_free(a);
}

static void test_strndup(void **state)
{
    (void)state;
    shc_arena *a = shc_arena_new(0);
    char *s = shc_arena_strndup(a, "hello world", 5);
    assert_string_equal(s, "hello");
    shc_arena_free(a);
}

static void test_first_error_wins(void **state)
{
    (void)state;
    shc_diag d = {0};
    assert_int_equal(shc__diag_set(&d, SHC_E_UNSUPPORTED, 3, 5, "first %d", 1), SHC_E_UNSUPPORTED);
    shc__diag_set(&d, SHC_E_SYNTAX, 0, 1, "second");
    assert_int_equal(d.code, SHC_E_UNSUPPORTED);
    assert_string_equal(d.text, "first 1");
    assert_int_equal(d.span.start, 3);
}

static void test_render_caret(void **state)
{
    (void)state;
    shc_diag d = {0};
    const char *src = "ls\ncat $(id) x";
    shc__diag_set(&d, SHC_E_UNSUPPORTED, 7, 9, "command substitution `$(` is outside the supported subset");
    char buf[512];
    size_t n = shc_diag_render(buf, sizeof buf, &d, src, strlen(src));
    assert_int_equal(n, strlen(buf));
    assert_string_equal(buf, "input:2:5: unsupported error: command substitution `$(` is outside "
                             "the supported subset\ncat $(id) x\n    ^~\n");
    /* truncation keeps the would-be length */
    char small[8];
    assert_int_equal(shc_diag_render(small, sizeof small, &d, src, strlen(src)), n);
    assert_int_equal(strlen(small), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_zeroed_aligned), cmocka_unit_test(test_cap),
        cmocka_unit_test(test_in_caller_buffer),
        cmocka_unit_test(test_strndup), cmocka_unit_test(test_first_error_wins),
        cmocka_unit_test(test_render_caret),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
