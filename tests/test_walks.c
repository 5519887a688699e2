/* Walked trees judged with the real directory in the bridge context (opts.cwd, the tree scan):
 * fixtures made at test time in a temporary directory.  Each class came from a red team:
 * - every recursive walker has an entry bound, the roots of one command counted together
 *   (grep -r, find, ack and ls -R read no ignore file, so the old scan never ran for them);
 * - the full paths of the walked entries are bounded together (`find .` over 3,000 nested
 *   directories of 250-byte names printed 1.1 GB);
 * - ag, ack and git grep --no-index read a file to its end when its first block has no NUL:
 *   the regular files below their roots count in the command's 1 GiB input budget;
 * - the user's global files (git's global configuration, excludes and attributes files, rg's,
 *   fd's and ag's global ignore files) judged as ignore files whatever the directory;
 * - special and network file systems by type (statfs, /proc/self/mountinfo), not by name;
 * - filters that grow faster than their input (sort's temporary files, column -t's padding)
 *   and widths that pad every line;
 * - a search prints a path before every match: no path below its root over 1 KiB.
 * Each class has controls that keep their cards. */
#define _GNU_SOURCE /* unshare */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shcard.h"

static char dir[] = "/tmp/shc-walks-XXXXXX";
static shc_context context = SHC_CONTEXT_BRIDGE;

#include "classify_fixture.h"

#define EXPECT(cmd, k)                                                                            \
    do {                                                                                          \
        const char *why_;                                                                         \
        if (kind_in(cmd, &why_) != (k) && ++wrong)                                                \
            print_error("%s: want %s, got: %s\n", cmd, #k, why_[0] ? why_ : "a card");           \
    } while (0)
#define TERMINAL(cmd) EXPECT(cmd, SHC_KIND_TERMINAL)

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

/* The kind of cmd judged by a process that is not root (nobody when the test runs as root). */
static int kind_unprivileged(const char *cmd)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(100);
        _exit((int)kind_in(cmd, NULL));
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 100);
    return WEXITSTATUS(st);
}

/* Two trees of 12,000 entries: each alone is within the 20,000-entry bound, together not. */
static void test_entries_every_walker(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkdir a b && (cd a && seq 12000 | xargs touch) && (cd b && seq 12000 | xargs touch)");
    EXPECT("grep -r foo a", SHC_KIND_SEARCH);
    EXPECT("find a -name x", SHC_KIND_SEARCH);
    EXPECT("ls -R a", SHC_KIND_LIST);
    EXPECT("ls a", SHC_KIND_LIST); /* ls without -R opens only the directory it names */
    TERMINAL("grep -r foo a b");
    TERMINAL("grep -rl foo .");
    TERMINAL("find a b");
    TERMINAL("find . -type f -exec grep foo {} +");
    TERMINAL("find a b -type f -print0 | xargs -0 -r grep foo");
    TERMINAL("ls -R a b");
    TERMINAL("tree a b");
    TERMINAL("ack foo a b");
    TERMINAL("rg foo a a"); /* one root named twice is walked twice */
    TERMINAL("rg foo a b");
    /* a directory shcard cannot list (judged as nobody when root): the walkers that read no
     * ignore file cannot list it either; rg reads the ignore files git may open by name */
    sh("chmod 755 . && mkdir -p c/locked && echo foo > c/f && chmod -R a+rX c && chmod 0311 "
       "c/locked");
    if (kind_unprivileged("grep -r foo c") != SHC_KIND_SEARCH && ++wrong)
        print_error("grep -r over an unlistable directory is not a search\n");
    if (kind_unprivileged("find c -name x") != SHC_KIND_SEARCH && ++wrong)
        print_error("find over an unlistable directory is not a search\n");
    if (kind_unprivileged("rg foo c") != SHC_KIND_TERMINAL && ++wrong)
        print_error("rg over an unlistable directory is not terminal\n");
    sh("chmod 755 c/locked && rm -rf c");
    /* outside the bridge context no tree is scanned (the text and the named paths decide) */
    context = SHC_CONTEXT_ANY;
    EXPECT("grep -r foo a b", SHC_KIND_SEARCH);
    context = SHC_CONTEXT_BRIDGE;
    sh("rm -rf a b");
    DONE();
}

/* 19 nested directories of 200-byte names: each full path is under PATH_MAX, but 2,200 of them
 * hold over 8 MiB together (a listing prints every one). */
static void test_full_paths(void **state)
{
    (void)state;
    wrong = 0;
    sh("n=$(printf 'd%%.0s' $(seq 200)); p=deep; for i in $(seq 19); do p=$p/$n; done; "
       "mkdir -p $p && (cd $p && seq 1000 | xargs touch)");
    EXPECT("find deep", SHC_KIND_LIST);
    EXPECT("ls -R deep", SHC_KIND_LIST);
    sh("n=$(printf 'd%%.0s' $(seq 200)); p=deep; for i in $(seq 19); do p=$p/$n; done; "
       "(cd $p && seq 1001 2200 | xargs touch)");
    TERMINAL("find deep");
    TERMINAL("find deep -type d");
    TERMINAL("ls -R deep");
    TERMINAL("tree -f deep");
    TERMINAL("rg --files deep");
    TERMINAL("grep -rl foo deep");
    sh("rm -rf deep");
    DONE();
}

/* 24 KB of text, then a hole to 2 GiB: ag, ack and git grep --no-index read it to its end. */
static void test_whole_files(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkdir t && head -c 24000 /dev/zero | tr '\\0' a > t/s && truncate -s 2G t/s && "
       "mkdir u && echo foo > u/f");
    TERMINAL("ag -U foo t");
    TERMINAL("ack foo t");
    TERMINAL("git --no-pager grep --no-index foo t");
    TERMINAL("git --no-pager grep --no-index foo");
    TERMINAL("ag -U foo u t");
    /* GNU grep skips holes, rg quits at the first NUL of a binary file */
    EXPECT("grep -r foo t", SHC_KIND_SEARCH);
    EXPECT("rg foo t", SHC_KIND_SEARCH);
    EXPECT("ag -U foo u", SHC_KIND_SEARCH);
    EXPECT("ack foo u", SHC_KIND_SEARCH);
    EXPECT("git --no-pager grep --no-index foo u", SHC_KIND_SEARCH);
    /* 600 MiB is within the budget; twice is not */
    sh("truncate -s 600M t/s");
    EXPECT("ag -U foo t", SHC_KIND_SEARCH);
    TERMINAL("ag -U foo t t");
    sh("rm -rf t u");
    DONE();
}

/* The user's global files, with the project outside HOME: FIFOs there blocked git grep, git
 * ls-files -o --exclude-standard and ag -U. */
static void test_global_files(void **state)
{
    (void)state;
    wrong = 0;
    char home[600];
    snprintf(home, sizeof home, "%s/home", dir);
    const char *old_home = getenv("HOME"), *old_xdg = getenv("XDG_CONFIG_HOME");
    char saved[4096] = "";
    if (old_home)
        snprintf(saved, sizeof saved, "%s", old_home);
    setenv("HOME", home, 1);
    unsetenv("XDG_CONFIG_HOME");
    sh("mkdir -p home/.config/git home/.config/fd proj && cd proj && git init -q . && "
       "echo foo > a.txt && git add a.txt");
    const char *cmds[] = {"cd proj && git --no-pager grep foo",
                          "cd proj && git ls-files -o --exclude-standard", "cd proj && rg foo .",
                          "cd proj && fd a", "cd proj && ag -U foo ."};
    for (size_t i = 0; i < 5; i++)
        EXPECT(cmds[i], i == 1 ? SHC_KIND_LIST : SHC_KIND_SEARCH);
    sh("mkfifo home/.config/git/ignore");
    for (size_t i = 0; i < 4; i++)
        TERMINAL(cmds[i]);
    sh("rm home/.config/git/ignore && mkfifo home/.config/git/attributes");
    TERMINAL(cmds[0]);
    EXPECT(cmds[2], SHC_KIND_SEARCH); /* rg reads no attributes */
    sh("rm home/.config/git/attributes && mkfifo home/.agignore");
    TERMINAL(cmds[4]);
    EXPECT(cmds[2], SHC_KIND_SEARCH);
    sh("rm home/.agignore && mkfifo home/.config/fd/ignore");
    TERMINAL(cmds[3]);
    sh("rm home/.config/fd/ignore && mkfifo home/x home/y && "
       "printf '[user]\\n\\tname = x\\n[Core]\\n\\texcludesFile = ~/x\\n' > home/.gitconfig");
    TERMINAL(cmds[0]);
    TERMINAL(cmds[2]);
    sh("printf '[core]\\n  attributesfile = \\\"%s/home/y\\\"\\n' > home/.gitconfig", dir);
    TERMINAL(cmds[0]);
    EXPECT(cmds[2], SHC_KIND_SEARCH);
    /* the same bounds as the project's ignore files: size and git's `**` */
    sh("rm home/x home/y && printf '[core]\\n\\texcludesfile = ~/x\\n' > home/.gitconfig && "
       "head -c 70000 /dev/zero | tr '\\0' '\\n' > home/x");
    TERMINAL(cmds[0]);
    TERMINAL(cmds[2]);
    sh("printf '**/a/**/a/**/b\\n' > home/x");
    TERMINAL(cmds[0]);
    sh("printf 'build/\\n*.o\\n' > home/x && printf '*.c diff\\n' > home/.config/git/attributes");
    for (size_t i = 0; i < 5; i++)
        EXPECT(cmds[i], i == 1 ? SHC_KIND_LIST : SHC_KIND_SEARCH);
    if (old_home)
        setenv("HOME", saved, 1);
    else
        unsetenv("HOME");
    if (old_xdg)
        setenv("XDG_CONFIG_HOME", old_xdg, 1);
    sh("rm -rf home proj");
    DONE();
}

/* A procfs and a sysfs mounted under the project (a private mount namespace: needs root). */
static void test_special_mounts(void **state)
{
    (void)state;
    wrong = 0;
    if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        print_message("test_special_mounts needs root and a mount namespace: skipped\n");
        skip();
    }
    sh("mkdir -p p w/sub/s && echo foo > w/ok.txt && mount -t proc proc p && "
       "mount -t sysfs sysfs w/sub/s");
    TERMINAL("cat p/kmsg");
    TERMINAL("tail -n 20 p/kmsg");
    TERMINAL("cat p/self/status");
    TERMINAL("grep -r foo p");
    TERMINAL("ls p");
    TERMINAL("grep -r foo w");
    TERMINAL("find w -name x");
    TERMINAL("rg foo .");
    EXPECT("cat w/ok.txt", SHC_KIND_READ);
    EXPECT("ls w", SHC_KIND_LIST);
    EXPECT("grep foo w/ok.txt", SHC_KIND_SEARCH);
    context = SHC_CONTEXT_ANY; /* a real directory: the files are judged by type everywhere */
    TERMINAL("cat p/kmsg");
    context = SHC_CONTEXT_BRIDGE;
    sh("umount w/sub/s && umount p");
    EXPECT("grep -r foo w", SHC_KIND_SEARCH);
    DONE();
}

/* Filters whose cost or side effects grow faster than their input: GNU sort spills temporary
 * files once piped input passes its buffer (256 KiB of 2-byte lines did), column -t pads every
 * cell to its column's widest (one 500 KB cell and 250,000 short rows: 1.5 MB in, 125 GB out).
 * They get a card only when the bytes reaching them are known and small. */
static void test_growing_filters(void **state)
{
    (void)state;
    wrong = 0;
    sh("yes 'a b' | head -c 20000 > small && yes a | head -c 200000 > mid");
    EXPECT("cat small | sort", SHC_KIND_READ);
    EXPECT("cat small | sort | uniq -c | sort -rn | head", SHC_KIND_READ);
    EXPECT("cat small | column -t", SHC_KIND_READ);
    EXPECT("cat small | column", SHC_KIND_READ);
    TERMINAL("cat mid | sort");
    TERMINAL("cat mid | sort -u | head");
    TERMINAL("cat small small small small small small small | sort");
    TERMINAL("cat mid | column -t");
    TERMINAL("cat small small | column --table");
    TERMINAL("cat small | nl | sort");
    TERMINAL("cat -n small | sort");
    TERMINAL("rg a | sort");
    TERMINAL("grep -r a . | sort");
    TERMINAL("find . -type f | sort");
    sh("rm -f small mid");
    DONE();
}

/* A search may print a walked file's path before every matching line (grep -rn, git grep, rg
 * and ag piped): 4 MB of 4-byte lines under a 3,780-byte path wrote 3.8 GB.  No path below a
 * searched root may pass 1 KiB; a listing prints each path once (the full-path bound). */
static void test_paths_per_match(void **state)
{
    (void)state;
    wrong = 0;
    sh("n=$(printf 'p%%.0s' $(seq 250)); mkdir -p pm/$n/$n/$n && echo foo > pm/$n/$n/$n/f");
    EXPECT("grep -rn foo pm", SHC_KIND_SEARCH);
    EXPECT("cd pm && rg -n --no-heading foo .", SHC_KIND_SEARCH);
    sh("n=$(printf 'p%%.0s' $(seq 250)); mkdir -p pm/$n/$n/$n/$n/$n && echo foo > "
       "pm/$n/$n/$n/$n/$n/f");
    TERMINAL("grep -rn foo pm");
    TERMINAL("cd pm && grep -r foo .");
    TERMINAL("rg -n --no-heading foo pm");
    TERMINAL("find pm -type f -exec grep -H foo {} +");
    TERMINAL("ag -U --nogroup foo pm");
    EXPECT("find pm", SHC_KIND_LIST);
    EXPECT("ls -R pm", SHC_KIND_LIST);
    sh("rm -rf pm");
    DONE();
}

/* A width pads every line or entry: 256 at most (nl -w 4096 made 1 byte of input 4,097). */
static void test_line_widths(void **state)
{
    (void)state;
    wrong = 0;
    sh("printf '\n\n' > nlf");
    TERMINAL("nl -ba -w 4096 nlf");
    TERMINAL("cat nlf | nl -ba -w 4096");
    TERMINAL("nl -ba -w 257 nlf");
    TERMINAL("cat nlf | column -c 1000");
    TERMINAL("ls -w 4096");
    EXPECT("nl -ba -w 6 nlf", SHC_KIND_READ);
    EXPECT("cat nlf | column -c 120", SHC_KIND_READ);
    sh("rm -f nlf");
    DONE();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_every_walker),
        cmocka_unit_test(test_full_paths),
        cmocka_unit_test(test_whole_files),
        cmocka_unit_test(test_global_files),
        cmocka_unit_test(test_special_mounts),
        cmocka_unit_test(test_growing_filters),
        cmocka_unit_test(test_line_widths),
        cmocka_unit_test(test_paths_per_match),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
