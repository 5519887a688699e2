/* shc_classify end to end over the real parser: verdict fields, titles, reasons and spans,
 * the wrapper, parse errors, and the JSON form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "shcard.h"
#include "classify/verdict.h"

static shc_verdict *classify(const char *cmd)
{
    shc_verdict *v = NULL;
    assert_int_equal(shc_classify(&v, cmd, strlen(cmd), true), 0);
    assert_non_null(v);
    assert_non_null(v->title);
    assert_non_null(v->reason);
    return v;
}

/* The text of the reason span in the script. */
static void assert_span(const shc_verdict *v, const char *want)
{
    size_t n = v->reason_span.end - v->reason_span.start;
    assert_true(v->reason_span.end <= strlen(v->script));
    assert_int_equal(n, strlen(want));
    assert_memory_equal(v->script + v->reason_span.start, want, n);
}

static void test_read_fields(void **state)
{
    (void)state;
    shc_verdict *v = classify("bash -lc \"nl -ba src/foo.ts | sed -n '1,40p'\"");
    assert_int_equal(v->kind, SHC_KIND_READ);
    assert_string_equal(v->title, "Read file 'src/foo.ts' (lines 1-40)");
    assert_string_equal(v->path, "src/foo.ts");
    assert_null(v->query);
    assert_int_equal(v->line, 1);
    assert_int_equal(v->nlocations, 1);
    assert_string_equal(v->locations[0].path, "src/foo.ts");
    assert_int_equal(v->locations[0].line, 1);
    assert_true(v->wrapped);
    assert_int_equal(v->argc, 3);
    assert_string_equal(v->argv[0], "nl");
    assert_string_equal(v->argv[2], "src/foo.ts");
    assert_null(v->argv[3]);
    assert_string_equal(v->script, "nl -ba src/foo.ts | sed -n '1,40p'");
    shc_verdict_free(v);

    v = classify("cd web && sed -n 120,180p app.js");
    assert_string_equal(v->path, "web/app.js");
    assert_string_equal(v->title, "Read file 'web/app.js' (lines 120-180)");
    assert_int_equal(v->line, 120);
    shc_verdict_free(v);

    v = classify("tail -n +30 log.txt");
    assert_string_equal(v->title, "Read file 'log.txt' (from line 30)");
    shc_verdict_free(v);

    v = classify("cat < notes.md 2>/dev/null");
    assert_int_equal(v->kind, SHC_KIND_READ);
    assert_string_equal(v->path, "notes.md");
    shc_verdict_free(v);
}

static void test_search_and_list(void **state)
{
    (void)state;
    shc_verdict *v = classify("rg -n 'fn main' src | head -n 20");
    assert_int_equal(v->kind, SHC_KIND_SEARCH);
    assert_string_equal(v->title, "Search for 'fn main' in src");
    assert_string_equal(v->query, "fn main");
    assert_string_equal(v->path, "src");
    assert_int_equal(v->line, 0);
    shc_verdict_free(v);

    v = classify("grep -rn TODO");
    assert_string_equal(v->title, "Search for 'TODO'");
    assert_null(v->path);
    assert_int_equal(v->nlocations, 0);
    shc_verdict_free(v);

    v = classify("rg foo a b");
    assert_string_equal(v->title, "Search for 'foo' in a, b");
    assert_int_equal(v->nlocations, 2);
    shc_verdict_free(v);

    v = classify("ls -la src");
    assert_int_equal(v->kind, SHC_KIND_LIST);
    assert_string_equal(v->title, "List files in 'src'");
    shc_verdict_free(v);

    v = classify("rg --files | wc -l");
    assert_int_equal(v->kind, SHC_KIND_LIST);
    assert_string_equal(v->title, "List files");
    assert_null(v->path);
    shc_verdict_free(v);

    v = classify("cd pkg && ls");
    assert_string_equal(v->title, "List files in 'pkg'");
    shc_verdict_free(v);
}

static void test_terminal_reasons(void **state)
{
    (void)state;
    shc_verdict *v = classify("bash -lc 'sed -n 1,5p f --in-place'");
    assert_int_equal(v->kind, SHC_KIND_TERMINAL);
    assert_string_equal(v->title, "sed -n 1,5p f --in-place");
    assert_string_equal(v->reason, "sed: -i edits the file in place");
    assert_span(v, "--in-place");
    assert_null(v->path);
    assert_null(v->argv);
    shc_verdict_free(v);

    v = classify("rg foo . | tee out.txt");
    assert_int_equal(v->kind, SHC_KIND_TERMINAL);
    assert_span(v, "tee");
    shc_verdict_free(v);

    v = classify("cat f > out");
    assert_span(v, "> out");
    shc_verdict_free(v);

    v = classify("FOO=1 cat x");
    assert_span(v, "FOO=1");
    shc_verdict_free(v);

    v = classify("find . -name '*.rs' -delete");
    assert_string_equal(v->reason, "find: -delete deletes files");
    assert_span(v, "-delete");
    shc_verdict_free(v);

    v = classify("cat *.md");
    assert_non_null(strstr(v->reason, "glob"));
    assert_span(v, "*.md");
    shc_verdict_free(v);

    v = classify("cat f; rm -rf x");
    assert_non_null(strstr(v->reason, "several commands"));
    shc_verdict_free(v);

    v = classify("  git status  ");
    assert_string_equal(v->title, "git status");
    shc_verdict_free(v);
}

static void test_parse_error(void **state)
{
    (void)state;
    shc_verdict *v = classify("cat $(echo f)");
    assert_int_equal(v->kind, SHC_KIND_TERMINAL);
    assert_int_equal(v->parse_error, SHC_E_UNSUPPORTED);
    assert_non_null(strstr(v->reason, "command substitution"));
    assert_int_equal(v->reason_span.start, 4);
    shc_verdict_free(v);

    v = classify("cat 'unterminated");
    assert_int_equal(v->parse_error, SHC_E_SYNTAX);
    shc_verdict_free(v);

    /* NUL bytes are data, not terminators */
    shc_verdict *w = NULL;
    assert_int_equal(shc_classify(&w, "cat f\0; rm x", 12, true), 0);
    assert_int_equal(w->kind, SHC_KIND_TERMINAL);
    shc_verdict_free(w);
    shc_verdict_free(NULL);

    /* without unwrap the wrapper is just bash */
    assert_int_equal(shc_classify(&w, "bash -lc 'cat f'", 16, false), 0);
    assert_int_equal(w->kind, SHC_KIND_TERMINAL);
    assert_false(w->wrapped);
    shc_verdict_free(w);
}

static shc_kind kind_in(const char *cwd, const char *cmd, const char **reason_out)
{
    shc_classify_opts o = SHC_CLASSIFY_OPTS_INIT;
    o.cwd = cwd;
    shc_verdict *v = NULL;
    assert_int_equal(shc_classify_ex(&v, cmd, strlen(cmd), &o), 0);
    shc_kind k = v->kind;
    static char reason[256];
    snprintf(reason, sizeof reason, "%s", v->reason);
    if (reason_out)
        *reason_out = reason;
    shc_verdict_free(v);
    return k;
}

/* Writes text to dir/name (mode "w"). */
static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* What the tools read from the repository without being told (red team 2, classes H, I, J):
 * ignore files that are FIFOs or lead to devices, git's files as FIFOs, a git configuration
 * that runs programs (core.fsmonitor) or reads other files (include.path), and files over
 * 1 GiB are terminal with a real directory; an ordinary repository keeps its cards. */
static void test_cwd_repo(void **state)
{
    (void)state;
    char dir[] = "/tmp/shc-repo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[512], cmd[600];
    const char *why = NULL;
    snprintf(cmd, sizeof cmd, "cd %s && git init -q . && mkdir src && echo foo > src/a.c && "
             "echo foo > README.md", dir);
    assert_int_equal(system(cmd), 0);
    /* an ordinary repository */
    assert_int_equal(kind_in(dir, "rg foo .", NULL), SHC_KIND_SEARCH);
    assert_int_equal(kind_in(dir, "fd a", NULL), SHC_KIND_SEARCH);
    assert_int_equal(kind_in(dir, "git ls-files", NULL), SHC_KIND_LIST);
    assert_int_equal(kind_in(dir, "git --no-pager grep foo", NULL), SHC_KIND_SEARCH);
    assert_int_equal(kind_in(dir, "bat -P -p README.md", NULL), SHC_KIND_READ);
    /* bat's change gutter reads the index blob whole (classifier-repositories.md) */
    assert_int_equal(kind_in(dir, "bat -P README.md", NULL), SHC_KIND_TERMINAL);
    put(dir, ".gitignore", "build/\n");
    assert_int_equal(kind_in(dir, "rg foo src", NULL), SHC_KIND_SEARCH);
    /* H: ignore files that lead to a device, or are FIFOs, here or in a parent */
    snprintf(p, sizeof p, "%s/.ignore", dir);
    assert_int_equal(symlink("/dev/zero", p), 0);
    assert_int_equal(kind_in(dir, "rg foo .", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, ".ignore"));
    assert_int_equal(kind_in(dir, "rg foo src", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in(dir, "cd src && fd a", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in(dir, "tree --gitignore", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in(dir, "cat README.md", NULL), SHC_KIND_READ);
    unlink(p);
    snprintf(p, sizeof p, "%s/src/.rgignore", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(kind_in(dir, "rg --files src", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "FIFO"));
    unlink(p);
    snprintf(p, sizeof p, "%s/.git/info/exclude", dir);
    unlink(p);
    assert_int_equal(symlink("/dev/tty", p), 0);
    assert_int_equal(kind_in(dir, "fd a", NULL), SHC_KIND_TERMINAL);
    unlink(p);
    assert_int_equal(kind_in(dir, "fd a", NULL), SHC_KIND_SEARCH);
    /* I: git's configuration and files */
    snprintf(cmd, sizeof cmd, "git -C %s config core.fsmonitor 'touch PWNED; false'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(kind_in(dir, "git ls-files", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "git configuration"));
    assert_int_equal(kind_in(dir, "cd src && git --no-pager grep foo", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in(dir, "bat -P -p README.md", NULL), SHC_KIND_TERMINAL);
    snprintf(cmd, sizeof cmd, "git -C %s config --unset core.fsmonitor && "
             "git -C %s config include.path /dev/stdin", dir, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(kind_in(dir, "git ls-files", NULL), SHC_KIND_TERMINAL);
    snprintf(cmd, sizeof cmd, "git -C %s config --unset include.path", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(kind_in(dir, "git ls-files", NULL), SHC_KIND_LIST);
    snprintf(p, sizeof p, "%s/.git/HEAD", dir);
    unlink(p);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(kind_in(dir, "git ls-files", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "HEAD"));
    unlink(p);
    put(dir, ".git/HEAD", "ref: refs/heads/main\n");
    /* a .git file (a worktree) is followed to its git directory */
    snprintf(cmd, sizeof cmd, "mkdir %s/wt && printf 'gitdir: %s/.git\\n' > %s/wt/.git", dir,
             dir, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(kind_in(dir, "cd wt && git ls-files", NULL), SHC_KIND_LIST);
    put(dir, "wt/.git", "nonsense\n");
    assert_int_equal(kind_in(dir, "cd wt && git ls-files", NULL), SHC_KIND_TERMINAL);
    /* an embedded directory that git takes for a bare repository (HEAD and objects) */
    snprintf(cmd, sizeof cmd, "mkdir -p %s/evil/objects %s/evil/refs && "
             "echo 'ref: refs/heads/main' > %s/evil/HEAD", dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(kind_in(dir, "cd evil && git ls-files", NULL), SHC_KIND_LIST);
    put(dir, "evil/config", "[core]\n\tworktree = ..\n\tfsmonitor = touch PWNED\n");
    assert_int_equal(kind_in(dir, "cd evil && git ls-files", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "evil/config"));
    assert_int_equal(kind_in(dir, "git ls-files", NULL), SHC_KIND_LIST);
    /* J: a file over 1 GiB */
    snprintf(cmd, sizeof cmd, "truncate -s 2G %s/big", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(kind_in(dir, "head -n 1 big", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "1 GiB"));
    assert_int_equal(kind_in(NULL, "head -n 1 big", NULL), SHC_KIND_READ);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* With the real directory, what a command would read is stat()ed: FIFOs, devices and sockets,
 * also behind a symlink in the project, are terminal; regular files and directories are not. */
static void test_cwd_stat(void **state)
{
    (void)state;
    char dir[] = "/tmp/shc-classify-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[512];
    snprintf(p, sizeof p, "%s/fifo", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    snprintf(p, sizeof p, "%s/zero", dir);
    assert_int_equal(symlink("/dev/zero", p), 0);
    snprintf(p, sizeof p, "%s/tolink", dir);
    assert_int_equal(symlink("fifo", p), 0);
    snprintf(p, sizeof p, "%s/sub", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/toproc", dir);
    assert_int_equal(symlink("/proc", p), 0);
    snprintf(p, sizeof p, "%s/toroot", dir);
    assert_int_equal(symlink("/", p), 0);
    snprintf(p, sizeof p, "%s/sub/ok.txt", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("hi\n", f);
    fclose(f);
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/sock", dir);
    assert_int_equal(bind(sock, (struct sockaddr *)&sa, sizeof sa), 0);

    const char *why = NULL;
    assert_int_equal(kind_in(dir, "cat fifo", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "FIFO"));
    assert_int_equal(kind_in(dir, "head -n 3 zero", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "device"));
    assert_int_equal(kind_in(dir, "cat tolink", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in(dir, "cat sock", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "socket"));
    assert_int_equal(kind_in(dir, "sed -n 1,5p < fifo", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in(dir, "cd sub/.. && cat fifo", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in(dir, "rg foo zero", NULL), SHC_KIND_TERMINAL);
    /* a symlink in the project to /proc or / is judged where it leads */
    assert_int_equal(kind_in(dir, "rg foo toproc", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "leads to a device or process file"));
    assert_int_equal(kind_in(dir, "cat toproc/self/status", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in(dir, "ls -R toroot", &why), SHC_KIND_TERMINAL);
    assert_non_null(strstr(why, "whole filesystem"));
    assert_int_equal(kind_in(dir, "cd toproc && cat self/status", NULL), SHC_KIND_TERMINAL);
    /* regular files, directories and missing names keep their card */
    assert_int_equal(kind_in(dir, "cat sub/ok.txt", NULL), SHC_KIND_READ);
    assert_int_equal(kind_in(dir, "cd sub && cat ok.txt", NULL), SHC_KIND_READ);
    assert_int_equal(kind_in(dir, "cat missing.txt", NULL), SHC_KIND_READ);
    assert_int_equal(kind_in(dir, "rg foo sub", NULL), SHC_KIND_SEARCH);
    assert_int_equal(kind_in(dir, "ls sub", NULL), SHC_KIND_LIST);
    /* without a directory the text alone decides */
    assert_int_equal(kind_in(NULL, "cat fifo", NULL), SHC_KIND_READ);
    /* relative names are judged from the real directory: from / they reach /proc */
    assert_int_equal(kind_in("/", "cat proc/self/status", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in("/", "ls -R", NULL), SHC_KIND_TERMINAL);
    /* ls without -R opens only the directory it lists: / and /proc may be listed */
    assert_int_equal(kind_in("/", "ls", NULL), SHC_KIND_LIST);
    assert_int_equal(kind_in("/", "ls proc", NULL), SHC_KIND_LIST);
    assert_int_equal(kind_in("/", "ls proc/self", NULL), SHC_KIND_TERMINAL);
    assert_int_equal(kind_in("/usr", "cat ../dev/zero", NULL), SHC_KIND_TERMINAL);
    /* a bad version is a usage error */
    shc_classify_opts bad = SHC_CLASSIFY_OPTS_INIT;
    bad.version = 99;
    shc_verdict *v = NULL;
    assert_int_equal(shc_classify_ex(&v, "ls", 2, &bad), SHC_E_USAGE);
    assert_null(v);
    close(sock);
    const char *names[] = {"fifo", "zero", "tolink", "sub/ok.txt", "sub", "sock", "toproc", "toroot"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        remove(p);
    }
    rmdir(dir);
}

/* Paths are normalised before they are judged; a .. chain that climbs out may reach /. */
static void test_paths_normalised(void **state)
{
    (void)state;
    static const char *const terminal[] = {
        "cat /./proc/self/status", "rg foo /proc", "cat /usr/../dev/zero", "ls /usr/..",
        "rg foo ../../../../../../../..", "cat ../../../../../../../../dev/zero", "rg foo ..",
        "cd /usr/.. && ls", "cd /./dev && cat zero", "cd ../../../../../../.. && cat dev/zero",
        "cat //dev//zero", "cat /var/run/x", "grep -r foo /sys", "cat < /./dev/stdin",
    };
    for (size_t i = 0; i < sizeof terminal / sizeof terminal[0]; i++)
        if (kind_in(NULL, terminal[i], NULL) != SHC_KIND_TERMINAL)
            fail_msg("not terminal: %s", terminal[i]);
    static const char *const fine[] = {"cat ../README.md", "ls ./src/", "cd src && cd .. && ls",
                                       "cd a/b && cat c"};
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++)
        if (kind_in(NULL, fine[i], NULL) == SHC_KIND_TERMINAL)
            fail_msg("terminal: %s", fine[i]);
    /* the kernel resolves `..` after the link: without the real directory it is terminal */
    static const char *const linkup[] = {"cat a/../b.txt", "rg foo src/..",
                                         "cd src && cat ../README.md", "cd a/../b && ls",
                                         "grep -r --exclude-from=a/../x foo .", "cd -P a && cd -P .. && ls"};
    for (size_t i = 0; i < sizeof linkup / sizeof linkup[0]; i++)
        if (kind_in(NULL, linkup[i], NULL) != SHC_KIND_TERMINAL)
            fail_msg("not terminal: %s", linkup[i]);
}

static void test_json(void **state)
{
    (void)state;
    shc_verdict *v = classify("sed -n '5,9p' a.c");
    json_t *j = shc_verdict_json(v, "sed -n '5,9p' a.c");
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "read");
    assert_string_equal(json_string_value(json_object_get(j, "cmd")), "sed -n '5,9p' a.c");
    assert_string_equal(json_string_value(json_object_get(j, "path")), "a.c");
    assert_true(json_is_null(json_object_get(j, "query")));
    assert_int_equal(json_integer_value(json_object_get(j, "line")), 5);
    json_t *loc = json_array_get(json_object_get(j, "locations"), 0);
    assert_string_equal(json_string_value(json_object_get(loc, "path")), "a.c");
    assert_int_equal(json_integer_value(json_object_get(loc, "line")), 5);
    assert_non_null(json_string_value(json_object_get(j, "reason")));
    assert_int_equal(json_array_size(json_object_get(j, "argv")), 4);
    json_decref(j);
    shc_verdict_free(v);

    v = classify("cat \xff\xfe");
    j = shc_verdict_json(v, "cat \xff\xfe");
    assert_non_null(j); /* invalid UTF-8 is replaced, the object still exists */
    json_decref(j);
    shc_verdict_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_fields),   cmocka_unit_test(test_search_and_list),
        cmocka_unit_test(test_terminal_reasons), cmocka_unit_test(test_parse_error),
        cmocka_unit_test(test_json),            cmocka_unit_test(test_cwd_stat), cmocka_unit_test(test_cwd_repo),
        cmocka_unit_test(test_paths_normalised),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
