/* Shell-mode backend: prompt lines -> bash calls in order, results, summary, cancel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "agent/shell.h"

typedef struct rec {
    char calls[8][64];
    char ids[8][32];
    int ncalls;
    char msg[200];
    int done;
    shc_stop_reason reason;
} rec;

static void on_msg(void *p, const char *text, size_t len)
{
    rec *r = p;
    snprintf(r->msg, sizeof r->msg, "%.*s", (int)len, text);
}

static void on_call(void *p, const char *id, const char *cmd, const char *desc)
{
    rec *r = p;
    (void)desc;
    assert_true(r->ncalls < 8);
    snprintf(r->calls[r->ncalls], sizeof r->calls[0], "%s", cmd);
    snprintf(r->ids[r->ncalls], sizeof r->ids[0], "%s", id);
    r->ncalls++;
}

static void on_done(void *p, shc_stop_reason reason, int code, const char *error)
{
    rec *r = p;
    assert_int_equal(code, 0);
    assert_null(error);
    r->done++;
    r->reason = reason;
}

static void test_lines_in_order(void **state)
{
    (void)state;
    shc_backend *be = shc_backend_shell_new();
    rec r;
    memset(&r, 0, sizeof r);
    shc_backend_host host = {&r, on_msg, NULL, on_call, on_done};
    shc_backend_turn *t =
        be->ops->turn_start(be, NULL, "s", "/", "  ls src \n\n\techo a\r\n   \nexit 3", &host);
    assert_non_null(t);
    assert_int_equal(r.ncalls, 1); /* one at a time */
    assert_string_equal(r.calls[0], "ls src");
    shc_tool_result ok = {r.ids[0], "x", true, 0, NULL, false, false, NULL};
    be->ops->tool_result(t, &ok);
    assert_int_equal(r.ncalls, 2);
    assert_string_equal(r.calls[1], "echo a");
    assert_string_not_equal(r.ids[0], r.ids[1]);
    shc_tool_result rejected = {r.ids[1], "", false, -1, NULL, false, false, "rejected by the user"};
    be->ops->tool_result(t, &rejected);
    assert_string_equal(r.calls[2], "exit 3");
    assert_int_equal(r.done, 0);
    shc_tool_result failed = {r.ids[2], "", true, 3, NULL, false, false, NULL};
    be->ops->tool_result(t, &failed);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.reason, SHC_STOP_END_TURN);
    assert_string_equal(r.msg, "Ran 2 of 3 commands: 1 succeeded, 1 failed, some were not run.");
    be->ops->cancel(t); /* after the end: no second turn_done */
    assert_int_equal(r.done, 1);
    be->ops->turn_free(t);
    be->ops->session_end(be, "s");
    be->ops->free(be);
}

static void test_cancel(void **state)
{
    (void)state;
    shc_backend *be = shc_backend_shell_new();
    rec r;
    memset(&r, 0, sizeof r);
    shc_backend_host host = {&r, on_msg, NULL, on_call, on_done};
    shc_backend_turn *t = be->ops->turn_start(be, NULL, "s", "/", "sleep 100\necho no", &host);
    be->ops->cancel(t);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.reason, SHC_STOP_CANCELLED);
    assert_string_equal(r.msg, ""); /* no summary for a cancelled turn */
    shc_tool_result late = {r.ids[0], "", true, -1, "SIGTERM", false, true, NULL};
    be->ops->tool_result(t, &late); /* ignored */
    assert_int_equal(r.ncalls, 1);
    assert_int_equal(r.done, 1);
    be->ops->turn_free(t);
    be->ops->free(be);
}

static void test_single_line_summary(void **state)
{
    (void)state;
    shc_backend *be = shc_backend_shell_new();
    rec r;
    memset(&r, 0, sizeof r);
    shc_backend_host host = {&r, on_msg, NULL, on_call, on_done};
    shc_backend_turn *t = be->ops->turn_start(be, NULL, "s", "/", "true", &host);
    shc_tool_result ok = {r.ids[0], "", true, 0, NULL, false, false, NULL};
    be->ops->tool_result(t, &ok);
    assert_string_equal(r.msg, "Ran 1 command: it succeeded.");
    be->ops->turn_free(t);
    be->ops->free(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_in_order),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_single_line_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
