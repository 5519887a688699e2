/* Test helper for the classifier's fixture tests (test_repo, test_walks): commands judged with
 * a real directory built at test time.  The includer defines `dir` (a mkdtemp template, made
 * in its setup) and `context` before including this. */
#ifndef SHC_TEST_CLASSIFY_FIXTURE_H
#define SHC_TEST_CLASSIFY_FIXTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"

/* The kind of cmd judged in dir; *reason_out (when given) the verdict's reason, until the next
 * call. */
static shc_kind kind_in(const char *cmd, const char **reason_out)
{
    shc_classify_opts o = SHC_CLASSIFY_OPTS_INIT;
    o.cwd = dir;
    o.context = context;
    shc_verdict *v = NULL;
    assert_int_equal(shc_classify_ex(&v, cmd, strlen(cmd), &o), 0);
    shc_kind k = v->kind;
    static char reason[512];
    snprintf(reason, sizeof reason, "%s", v->reason);
    if (reason_out)
        *reason_out = reason;
    shc_verdict_free(v);
    return k;
}

/* Runs a shell command in the fixture directory; fails the test when it fails. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
    char body[3000], cmd[3200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd %s && { %s ; }", dir, body);
    if (system(cmd) != 0)
        fail_msg("fixture failed: %s", body);
}

/* Every case is run and each wrong answer printed (the list is what a fix must cover); the
 * test fails at its end when any was wrong. */
static unsigned wrong;
#define DONE() assert_int_equal(wrong, 0)

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
