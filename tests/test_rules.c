/* One test per safety rule family: commands each rule exists to refuse, as a user or model would
 * write them, must be terminal with the rule's reason.  These are the fast killers of the planted
 * bugs in tests/mutants/ (a rule dropped or loosened); the corpus and the oracles cover the same
 * ground at length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "shcard.h"

/* cmd must be terminal and its reason must contain why. */
static void terminal(const char *cmd, const char *why)
{
    shc_verdict *v = NULL;
    assert_int_equal(shc_classify(&v, cmd, strlen(cmd), true), 0);
    assert_non_null(v);
    if (v->kind != SHC_KIND_TERMINAL || !strstr(v->reason, why)) {
        print_error("%s: %s (%s), want terminal with \"%s\"\n", cmd, shc_kind_name(v->kind),
                    v->reason, why);
        shc_verdict_free(v);
        fail();
    }
    shc_verdict_free(v);
}

static void accepted(const char *cmd)
{
    shc_verdict *v = NULL;
    assert_int_equal(shc_classify(&v, cmd, strlen(cmd), true), 0);
    assert_non_null(v);
    if (v->kind == SHC_KIND_TERMINAL) {
        print_error("%s: terminal (%s), want accepted\n", cmd, v->reason);
        shc_verdict_free(v);
        fail();
    }
    shc_verdict_free(v);
}

/* find -exec and xargs run grep alone on the names: any other program, even an allowlisted
 * one, may read stdin or run what follows it (xargs rm). */
static void test_exec_only_grep(void **state)
{
    (void)state;
    accepted("find . -type f -exec grep -n foo {} +");
    terminal("find . -type f -exec xargs rm {} +", "only grep may be run on the names");
    terminal("find . -type f -exec cat foo {} +", "only grep may be run on the names");
    terminal("find . -type f -print0 | xargs -0 -r xargs rm", "only grep may be run on the names");
    terminal("find . -type f -print0 | xargs -0 -r sed -n 1p", "only grep may be run on the names");
}

/* xargs without -0 splits names at blanks and reads quotes: a name makes an operand. */
static void test_xargs_nul(void **state)
{
    (void)state;
    accepted("find . -type f -print0 | xargs -0 -r grep foo");
    terminal("find . -type f | xargs -r grep foo", "");
    terminal("find . -type f -print0 | xargs -r grep foo", "without -0");
}

/* find's actions that write or run. */
static void test_find_actions(void **state)
{
    (void)state;
    terminal("find . -delete", "deletes");
    terminal("find . -name x -execdir rm {} \\;", "runs a program");
    terminal("find . -fprint out", "writes a file");
    terminal("find . -ok rm {} \\;", "runs a program");
}

/* Options that run programs. */
static void test_options_run_programs(void **state)
{
    (void)state;
    terminal("rg --pre cat foo", "--pre");
    terminal("rg --pre=cat foo", "--pre");
    terminal("fd -x rm", "-x");
    terminal("fd foo -X rm", "-X");
    terminal("cat f | sort --compress-program=gzip", "--compress-program");
    terminal("rg -z foo", "-z");
}

/* sed: only `-n N,Mp` ranges; w writes, e runs the pattern space, -i edits. */
static void test_sed_commands(void **state)
{
    (void)state;
    accepted("sed -n 1,5p f");
    terminal("sed -n 1e f", "");
    terminal("sed -n 1,5e f", "");
    terminal("sed -n '1w out' f", "");
    terminal("sed -n 1,5p -i f", "-i");
}

/* Redirections write files; tee writes files. */
static void test_writes(void **state)
{
    (void)state;
    accepted("cat f 2>/dev/null");
    terminal("cat f > out", "writes the file");
    terminal("cat f >> out", "writes the file");
    terminal("rg foo &> out", "writes the file");
    terminal("rg foo . | tee out.txt", "not a pure filter");
    terminal("cat f | tee -a log", "not a pure filter");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exec_only_grep), cmocka_unit_test(test_xargs_nul),
        cmocka_unit_test(test_find_actions),   cmocka_unit_test(test_options_run_programs),
        cmocka_unit_test(test_sed_commands),   cmocka_unit_test(test_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
