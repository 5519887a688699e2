/* The workspace git check's snapshot kept from one sandboxed command to the next
 * (src/confine/gitcache.c): a command's "after" is the next "before" only when nothing changed
 * since; a hook, a config, an implicit bare git directory or a global config planted between
 * two commands, a file rewritten in place, a change in the clock's last tick, or a symlinked
 * .git each make it take the workspace again, and the planted files are in the new snapshot
 * (the next command's own changes are still told against them).  Real files in a real git
 * repository (git init). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "confine/confine.h"
#include "confine/gitsnap.h"

static char ws[256];

/* cmd through sh, with $WS the workspace */
static void sh(const char *cmd, const char *ws_)
{
    assert_int_equal(setenv("WS", ws_, 1), 0);
    assert_int_equal(system(cmd), 0);
}

static void settle(void)
{
    struct timespec t = {0, 250 * 1000 * 1000}; /* past the snapshot's racy window */
    nanosleep(&t, NULL);
}

/* A command that changed nothing: its "after", kept. */
static shc_gitsnap *after_of(shc_gitsnap *before)
{
    shc_gitsnap *after = NULL;
    settle(); /* what it changed is not in the clock's last tick */
    char *what = shc_gitsnap_changed_keep(before, &after); /* takes before */
    assert_null(what);
    assert_ptr_equal(after, before); /* nothing changed: no scan */
    return after;
}

static int setup(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/shc-gitcache-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *real = realpath(tmpl, NULL);
    snprintf(ws, sizeof ws, "%s", real);
    free(real);
    sh("cd $WS && git init -q . && mkdir -p a/b c && echo x >a/b/f && echo y >c/g", ws);
    char home[300];
    snprintf(home, sizeof home, "%s/home", ws);
    mkdir(home, 0700);
    setenv("HOME", home, 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("GIT_CONFIG_GLOBAL");
    settle();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sh("rm -rf $WS", ws);
    return 0;
}

static void test_reused_when_nothing_changed(void **state)
{
    (void)state;
    shc_gitsnap *cache = NULL;
    shc_gitsnap *b = shc_gitsnap_take_reuse(ws, &cache);
    assert_non_null(b);
    cache = after_of(b);
    settle();
    shc_gitsnap *kept = cache;
    b = shc_gitsnap_take_reuse(ws, &cache);
    assert_ptr_equal(b, kept); /* no scan */
    assert_null(cache);
    /* ordinary work outside the git directories is no reason to scan again */
    sh("echo more >>$WS/a/b/f", ws);
    cache = after_of(b);
    settle();
    kept = cache;
    b = shc_gitsnap_take_reuse(ws, &cache);
    assert_ptr_equal(b, kept);
    shc_gitsnap_free(b);
}

/* plant between two commands: never reused; the next command's change is told */
static void planted(const char *plant, const char *then, const char *told)
{
    shc_gitsnap *cache = NULL;
    shc_gitsnap *b = shc_gitsnap_take_reuse(ws, &cache);
    cache = after_of(b);
    settle();
    sh(plant, ws);
    assert_false(shc__gs_still(cache));
    b = shc_gitsnap_take_reuse(ws, &cache);
    assert_non_null(b);
    char *what = shc_gitsnap_changed(b); /* what was planted is the before of the next */
    assert_null(what);
    sh(then, ws); /* the next command's own change: told, though nothing else changed */
    shc_gitsnap *after = NULL;
    what = shc_gitsnap_changed_keep(b, &after);
    assert_non_null(what);
    assert_non_null(strstr(what, told));
    assert_non_null(after);
    free(what);
    shc_gitsnap_free(after);
}

static void test_hook_planted(void **state)
{
    (void)state;
    planted("printf '#!/bin/sh\\n' >$WS/.git/hooks/pre-commit",
            "echo 'echo pwned' >>$WS/.git/hooks/pre-commit", "'.git/hooks/pre-commit' (changed)");
}

static void test_config_rewritten_in_place(void **state)
{
    (void)state;
    planted("printf '[core]\\n\\tbare = false\\n' >>$WS/.git/config",
            "printf '\\tfsmonitor = x\\n' >>$WS/.git/config", "'.git/config' (changed)");
}

static void test_implicit_bare_planted(void **state)
{
    (void)state;
    planted("mkdir -p $WS/c/objects $WS/c/refs && echo 'ref: refs/heads/main' >$WS/c/HEAD",
            "printf '[core]\\n\\tfsmonitor = x\\n' >$WS/c/config", "'c/config' (created)");
}

static void test_global_config_planted(void **state)
{
    (void)state;
    /* the user's global config gains a hooksPath inside the workspace */
    planted("mkdir -p $WS/tools && printf '[core]\\n\\thooksPath = %s/tools\\n' \"$WS\" "
            ">$WS/home/.gitconfig",
            "echo x >$WS/tools/pre-commit", "'tools/pre-commit' (created)");
}

static void test_racy_and_symlink_not_reused(void **state)
{
    (void)state;
    shc_gitsnap *cache = NULL;
    /* another directory: never the cache of this one */
    shc_gitsnap *b = shc_gitsnap_take_reuse(ws, &cache);
    cache = after_of(b);
    settle();
    char sub[300];
    snprintf(sub, sizeof sub, "%s/a", ws);
    assert_true(shc__gs_still(cache)); /* still good for its own directory, */
    b = shc_gitsnap_take_reuse(sub, &cache);
    assert_non_null(b);
    assert_string_equal(b->dir, sub); /* but taken anew for another */
    shc_gitsnap_free(b);
    cache = NULL;
    /* a directory whose time is not before the snapshot: a change in the same tick of the
     * clock would leave it as it is */
    sh("touch -d \"@$(($(date +%s) + 5))\" $WS/a", ws);
    b = shc_gitsnap_take_reuse(ws, &cache);
    shc_gitsnap *after = NULL;
    settle();
    free(shc_gitsnap_changed_keep(b, &after)); /* took the workspace again */
    assert_non_null(after);
    assert_false(shc__gs_still(after));
    cache = after;
    b = shc_gitsnap_take_reuse(ws, &cache);
    shc_gitsnap_free(b);
    /* a .git that is a symlink: what it resolves through is not noted */
    sh("mkdir -p $WS/d && git -C $WS/d init -q --separate-git-dir=$WS/real.git", ws);
    sh("cd $WS/d && rm .git && ln -s ../real.git .git", ws);
    settle();
    cache = NULL;
    b = shc_gitsnap_take_reuse(ws, &cache);
    assert_false(shc__gs_still(b));
    after = NULL;
    assert_null(shc_gitsnap_changed_keep(b, &after));
    assert_non_null(after);
    assert_false(shc__gs_still(after));
    shc_gitsnap_free(after);
}

/* One command: run cmd, then the check with the kept snapshot; what it said (malloc'd or
 * NULL); *cache the "after" for the next. */
static char *command(shc_gitsnap **cache, const char *cmd)
{
    shc_gitsnap *b = shc_gitsnap_take_reuse(ws, cache), *after = NULL;
    assert_non_null(b);
    settle();
    sh(cmd, ws);
    char *what = shc_gitsnap_changed_keep(b, &after);
    assert_non_null(after);
    *cache = after;
    settle();
    return what;
}

#define BARE(d) "mkdir -p " d "/objects " d "/refs && echo 'ref: refs/heads/main' >" d "/HEAD && " \
                "printf '[core]\\n\\tfsmonitor = x\\n' >" d "/config"

/* A cache tag a command makes is told (later checks skip its directory), and does not hide a
 * git directory the same command makes below it: skips are those of the "before". */
static void test_tag_made(void **state)
{
    (void)state;
    shc_gitsnap *cache = NULL;
    char *what = command(&cache, "echo 'Signature: 8a477f597d28d172789f06886806bc55' >$WS/a/CACHEDIR.TAG");
    assert_non_null(what);
    assert_non_null(strstr(what, "'a/CACHEDIR.TAG' (created"));
    free(what);
    what = command(&cache, "echo 'Signature: 8a477f597d28d172789f06886806bc55' >$WS/CACHEDIR.TAG && cd $WS && " BARE("c"));
    assert_non_null(what);
    assert_non_null(strstr(what, "'CACHEDIR.TAG' (created"));
    assert_non_null(strstr(what, "'c' (became a git directory)"));
    free(what);
    shc_gitsnap_free(cache);
}

/* A dependency directory there before is still not searched; one a command makes, or remakes
 * in its place, is told and searched. */
static void test_dep_dir_before_and_made(void **state)
{
    (void)state;
    sh("mkdir -p $WS/node_modules/p $WS/c/.venv", ws);
    settle();
    shc_gitsnap *cache = NULL;
    char *what = command(&cache, "cd $WS/node_modules && " BARE("p"));
    assert_null(what); /* skipped as before: the cost of node_modules is not paid */
    what = command(&cache, "cd $WS && mv node_modules nm.old && mkdir node_modules && cd node_modules && " BARE("q"));
    assert_non_null(what);
    assert_non_null(strstr(what, "'node_modules' (changed)"));
    assert_non_null(strstr(what, "'node_modules/q' (became a git directory)"));
    free(what);
    what = command(&cache, "cd $WS/a && mkdir __pycache__ && cd __pycache__ && " BARE("r"));
    assert_non_null(what);
    assert_non_null(strstr(what, "'a/__pycache__' (created"));
    assert_non_null(strstr(what, "'a/__pycache__/r' (became a git directory)"));
    free(what);
    shc_gitsnap_free(cache);
}

/* A config file an include names inside the workspace is a control file; a hook's words and
 * its manager's config too. */
static void test_included_and_hook_files(void **state)
{
    (void)state;
    sh("cd $WS && printf '[alias]\\n\\tst = status\\n' >shared.gitconfig && "
       "git config include.path ../shared.gitconfig && "
       "git config 'includeIf.gitdir:/nowhere/.path' ../cond.gitconfig && echo >cond.gitconfig && "
       "mkdir -p scripts && echo 'exit 0' >scripts/check.sh && echo 'pre-commit: []' >lefthook.yml && "
       "printf '#!/bin/sh\\nsh ./scripts/check.sh && lefthook run pre-commit\\n' >.git/hooks/pre-commit",
       ws);
    settle();
    shc_gitsnap *cache = NULL;
    char *what = command(&cache, "cd $WS && echo '[core] fsmonitor = x' >>shared.gitconfig");
    assert_non_null(what);
    assert_non_null(strstr(what, "'shared.gitconfig' (changed)"));
    free(what);
    what = command(&cache, "cd $WS && echo '[core] fsmonitor = x' >>cond.gitconfig");
    assert_non_null(what);
    assert_non_null(strstr(what, "'cond.gitconfig' (changed)"));
    free(what);
    what = command(&cache, "cd $WS && echo 'touch /tmp/x' >>scripts/check.sh");
    assert_non_null(what);
    assert_non_null(strstr(what, "'scripts/check.sh' (changed)"));
    free(what);
    what = command(&cache, "cd $WS && echo 'pre-commit: {commands: {x: {run: id}}}' >lefthook.yml");
    assert_non_null(what);
    assert_non_null(strstr(what, "'lefthook.yml' (changed)"));
    free(what);
    what = command(&cache, "cd $WS && echo '{}' >package.json && echo z >>c/g");
    assert_null(what); /* nothing a hook names */
    shc_gitsnap_free(cache);
}

/* A hook's words outside the workspace (/bin/sh, through the /bin symlink) are not resolved:
 * the snapshot is still reused. */
static void test_hook_words_outside_reused(void **state)
{
    (void)state;
    sh("printf '#!/bin/sh\\nexec /bin/sh -c /usr/bin/true\\n' >$WS/.git/hooks/pre-commit", ws);
    settle();
    shc_gitsnap *cache = NULL;
    shc_gitsnap *b = shc_gitsnap_take_reuse(ws, &cache);
    assert_non_null(b);
    cache = after_of(b);
    settle();
    shc_gitsnap *kept = cache;
    b = shc_gitsnap_take_reuse(ws, &cache);
    assert_ptr_equal(b, kept); /* no scan */
    shc_gitsnap_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reused_when_nothing_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_planted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_config_rewritten_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_implicit_bare_planted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_global_config_planted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_racy_and_symlink_not_reused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tag_made, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dep_dir_before_and_made, setup, teardown),
        cmocka_unit_test_setup_teardown(test_included_and_hook_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_words_outside_reused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
