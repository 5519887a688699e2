/* Hostile repository states, made at test time in a temporary directory, judged with the real
 * directory (opts.cwd): paths as the kernel resolves them (links whose `..` leads elsewhere,
 * links into other repositories, into /usr and /proc), the whole git control directory (split
 * index, alternates, loose objects, submodules' and worktrees' configs, links, FIFOs, too many
 * entries), ignore files and pattern files over the bound, names read in every directory.
 * Each class has controls: the ordinary repository keeps its cards.  Where the danger can be
 * shown cheaply it is: the fsmonitor fixtures really run `touch` under git. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shcard.h"

static char dir[] = "/tmp/shc-hostile-XXXXXX";
static shc_context context = SHC_CONTEXT_ANY; /* the subtree walk is the bridge's */

#include "classify_fixture.h"

#define TERMINAL(cmd)                                                                             \
    do {                                                                                          \
        const char *why_;                                                                         \
        if (kind_in(cmd, &why_) != SHC_KIND_TERMINAL && ++wrong)                                  \
            print_error("not terminal: %s\n", cmd);                                               \
    } while (0)
#define CARD(cmd, k)                                                                              \
    do {                                                                                          \
        const char *why_;                                                                         \
        if (kind_in(cmd, &why_) != (k) && ++wrong)                                                \
            print_error("control %s: %s\n", cmd, why_);                                           \
    } while (0)

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    /* an ordinary repository, plus a directory outside any repository for the controls */
    sh("git init -q . && mkdir -p src hidden/inner other plain && echo foo > src/a.c && "
       "echo foo > hidden/inner/f && echo foo > README.md && printf 'build/\\n' > .gitignore");
    return 0;
}

/* 1 and 2: the kernel resolves links before `..`, and tools find repositories and ignore
 * files from the resolved directory. */
static void test_resolved_paths(void **state)
{
    (void)state;
    wrong = 0;
    sh("ln -s hidden/inner alias && ln -s /usr usrlink && ln -s /proc/self selflink && "
       "mkfifo hidden/pipe hidden/zz && mkfifo hidden/.ignore");
    CARD("cat hidden/inner/f", SHC_KIND_READ);
    CARD("cat alias/f", SHC_KIND_READ);
    CARD("cd hidden && cat inner/../inner/f", SHC_KIND_READ);
    CARD("cd src && cat ../README.md", SHC_KIND_READ);
    CARD("rg foo src", SHC_KIND_SEARCH);
    TERMINAL("cat alias/../pipe");
    TERMINAL("cd alias && cat ../pipe");
    TERMINAL("grep -r foo usrlink/..");
    TERMINAL("rg foo usrlink/../");
    TERMINAL("cd usrlink && rg foo ..");
    CARD("cd usrlink/.. && cd src && cd .. && rg foo src", SHC_KIND_SEARCH);
    TERMINAL("cd selflink && grep -r foo ..");
    TERMINAL("cd selflink && ls");
    TERMINAL("cd selflink && cat /etc/hostname"); /* the process's directory is /proc/PID */
    TERMINAL("grep -r --exclude-from=alias/../zz foo src");
    TERMINAL("rg --ignore-file=alias/../zz foo src");
    TERMINAL("rg foo alias");   /* hidden/.ignore, a FIFO, is a parent of the resolved path */
    TERMINAL("fd f alias");
    TERMINAL("cd alias && rg foo .");
    sh("rm hidden/.ignore");
    CARD("rg foo alias", SHC_KIND_SEARCH);
    /* a link into another repository, whose config runs a program */
    sh("mkdir -p evilrepo/sub && cd evilrepo && git init -q . && echo x > sub/z.txt && "
       "git config core.fsmonitor 'touch PWNED; false' && cd .. && ln -s evilrepo alias2 && "
       "ln -s evilrepo/sub alias3");
    sh("cd alias2 && timeout 10 git ls-files >/dev/null 2>&1; test -e PWNED && rm PWNED");
    TERMINAL("cd alias2 && git ls-files");
    TERMINAL("cd alias3 && git --no-pager grep foo");
    TERMINAL("bat -P alias3/z.txt");
    TERMINAL("git ls-files alias3");
    CARD("git ls-files src", SHC_KIND_LIST);
    CARD("bat -P -p README.md", SHC_KIND_READ);
    /* links that resolve in the command's process, not shcard's: the command's terminal */
    sh("ln -s /proc/self/fd/1 out && ln -s /dev/stdin in && ln -s /proc/self/fd fdlink && "
       "ln -s nowhere dangling");
    TERMINAL("cat out");
    TERMINAL("cat in");
    TERMINAL("head -n 5 in");
    TERMINAL("cat fdlink/0");
    TERMINAL("cat dangling");
    CARD("cat missing-file", SHC_KIND_READ);
    sh("rm -rf evilrepo alias2 alias3"); /* a nested repository: the bridge's walk judges it */
    /* the system-directory rule judges where a walked root resolves, in every context with a
     * directory (a link to /usr walked /usr; the written path named none) */
    TERMINAL("grep -r foo usrlink");
    TERMINAL("cd usrlink && grep -r foo .");
    TERMINAL("rg foo usrlink/share");
    TERMINAL("cd usrlink/share && find .");
    CARD("ls usrlink", SHC_KIND_LIST);
    CARD("cd usrlink && ls", SHC_KIND_LIST);
    CARD("cat usrlink/share/dict/../../../etc/hostname", SHC_KIND_READ);
    DONE();
}

/* 3 and 4: the whole control directory, not a list of its files. */
static void test_control_directory(void **state)
{
    (void)state;
    wrong = 0;
    CARD("git ls-files", SHC_KIND_LIST);
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    /* the split index's shared file */
    sh("mkfifo .git/sharedindex.0123456789abcdef0123456789abcdef01234567");
    TERMINAL("git ls-files");
    TERMINAL("bat -P README.md");
    sh("rm .git/sharedindex.*");
    /* alternates: objects read from another directory */
    sh("mkdir -p .git/objects/info && echo /tmp > .git/objects/info/alternates");
    TERMINAL("git ls-files");
    sh("rm .git/objects/info/alternates");
    /* a loose object bat reads to diff the work tree */
    sh("mkdir -p .git/objects/ab && mkfifo .git/objects/ab/cdef0123456789abcdef0123456789abcdef01");
    TERMINAL("bat -P README.md");
    sh("rm -r .git/objects/ab");
    /* a link anywhere in it */
    sh("ln -s /dev/zero .git/description2");
    TERMINAL("git ls-files");
    sh("rm .git/description2");
    /* the top-level .gitattributes bat's libgit2 reads */
    sh("mkfifo .gitattributes");
    TERMINAL("bat -P README.md");
    sh("rm .gitattributes");
    /* a submodule's own config under .git/modules */
    sh("mkdir -p .git/modules/sub && printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > "
       ".git/modules/sub/config");
    TERMINAL("git ls-files");
    TERMINAL("git ls-files --recurse-submodules");
    sh("rm -r .git/modules");
    TERMINAL("git ls-files --recurse-submodules"); /* a submodule's .git may be in the tree */
    /* a gitfile (a worktree or an absorbed submodule) leads to a hostile directory */
    sh("mkdir -p wt gd && cp -r .git/* gd/ && printf 'gitdir: ../gd\\n' > wt/.git");
    CARD("cd wt && git ls-files", SHC_KIND_LIST);
    sh("printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > gd/config.worktree");
    TERMINAL("cd wt && git ls-files");
    sh("rm gd/config.worktree && mkdir -p common && echo ../common > gd/commondir && "
       "mkfifo common/HEAD");
    TERMINAL("cd wt && git ls-files");
    sh("rm -r wt gd common");
    /* an include.path FIFO is never reached: include is refused outright */
    sh("mkfifo incl && git config include.path ../incl");
    TERMINAL("git ls-files");
    sh("rm incl && git config --unset include.path");
    /* past the entry bound the answer is terminal, not a longer scan */
    sh("mkdir -p .git/refs/zz && cd .git/refs/zz && seq -f 'f%%.0f' 1 20001 | xargs touch");
    TERMINAL("git ls-files");
    sh("rm -r .git/refs/zz");
    CARD("git ls-files", SHC_KIND_LIST);
    CARD("bat -P -p README.md", SHC_KIND_READ);
    DONE();
}

/* 5, 6, 7: names read in every directory, tree's matcher, the size of ignore files. */
static void test_ignore_files(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkfifo fifo");
    TERMINAL("git ls-files -o --exclude-per-directory=fifo");
    CARD("git ls-files -o --exclude-per-directory=.gitignore", SHC_KIND_LIST);
    sh("rm fifo && printf '*a*a*a*a*a*a*a*a*a*a*b\\n' >> .gitignore");
    TERMINAL("tree --gitignore");
    TERMINAL("tree --gitfile=.gitignore");
    CARD("tree src", SHC_KIND_LIST);
    /* ignore files: 64 KiB together, here and in the parents */
    sh("head -c 40000 /dev/zero | tr '\\0' 'a' | fold -w 60 > .ignore");
    CARD("rg foo src", SHC_KIND_SEARCH);
    sh("head -c 30000 /dev/zero | tr '\\0' 'b' | fold -w 60 > src/.rgignore");
    TERMINAL("rg foo src");
    TERMINAL("fd a src");
    sh("rm src/.rgignore && head -c 100000 /dev/zero | tr '\\0' 'c' | fold -w 60 > big.txt");
    TERMINAL("rg --ignore-file big.txt foo src");
    TERMINAL("grep -r --exclude-from=big.txt foo src");
    TERMINAL("git ls-files -o -X big.txt");
    CARD("rg --ignore-file .ignore foo src", SHC_KIND_SEARCH);
    sh("rm big.txt .ignore");
    /* the ignore files of every directory walked, not only the parents (the bridge context:
     * where the command runs, a walk of the tree per command) */
    context = SHC_CONTEXT_BRIDGE;
    sh("mkdir -p src/deep/er && printf '*.o\\n' > src/deep/.gitignore && echo foo > "
       "src/deep/er/x.c && git add src/deep/er/x.c");
    CARD("rg foo src", SHC_KIND_SEARCH);
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("mkfifo src/deep/er/.gitattributes");
    sh("timeout 5 git --no-pager grep foo >/dev/null 2>&1; test $? = 124"); /* it blocks */
    TERMINAL("git --no-pager grep foo");
    TERMINAL("rg foo src");
    TERMINAL("fd a");
    TERMINAL("ag -U foo src");
    CARD("grep -r foo src", SHC_KIND_SEARCH); /* grep reads no ignore file */
    sh("rm src/deep/er/.gitattributes && ln -s /dev/zero src/deep/.ignore");
    TERMINAL("rg foo src");
    sh("rm src/deep/.ignore && for i in 1 2 3 4 5; do mkdir -p src/d$i && head -c 60000 "
       "/dev/zero | tr '\\0' d | fold -w 60 > src/d$i/.ignore; done");
    TERMINAL("rg foo src"); /* 300 KB of ignore files below src */
    sh("rm -r src/d1 src/d2 src/d3 src/d4 src/d5 && mkdir src/many && cd src/many && "
       "seq -f 'f%%.0f' 1 20001 | xargs touch");
    TERMINAL("rg foo src");
    sh("rm -r src/many src/deep");
    CARD("rg foo src", SHC_KIND_SEARCH);
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* The git directory git really uses: a path file read whole (a newline inside is part of the
 * path), config keys that enter submodules or start threads, info/ files in the budget. */
static void test_git_dir_desync(void **state)
{
    (void)state;
    wrong = 0;
    /* a .git file whose gitdir spans two lines: git uses `g<newline>x`, not `g` */
    sh("mkdir -p gf && cd gf && git init -q w1 && mv w1/.git g && rm -r w1 && git init -q w2 && "
       "mv w2/.git \"$(printf 'g\\nx')\" && rm -r w2 && "
       "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' >> \"$(printf 'g\\nx')/config\" && "
       "printf 'gitdir: g\\r\\n' > .git");
    CARD("cd gf && git ls-files", SHC_KIND_LIST); /* trailing CR LF stripped, as git does */
    sh("cd gf && printf 'gitdir: g\\nx\\n' > .git && timeout 10 git ls-files >/dev/null 2>&1; "
       "test -e PWNED && rm PWNED"); /* the program really runs */
    TERMINAL("cd gf && git ls-files");
    TERMINAL("cd gf && git --no-pager grep foo -- .");
    TERMINAL("cd gf && rg foo .");
    sh("printf 'gitdir: g\\tx\\n' > gf/.git");
    TERMINAL("cd gf && git ls-files");
    /* commondir spanning two lines */
    sh("mkdir -p gc/.git && cd gc && echo 'ref: refs/heads/master' > .git/HEAD && "
       "git init -q w1 && mv w1/.git cc && rm -r w1 && git init -q w2 && "
       "mv w2/.git \"$(printf 'cc\\nx')\" && rm -r w2 && "
       "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' >> \"$(printf 'cc\\nx')/config\" && "
       "printf '../cc\\n' > .git/commondir");
    CARD("cd gc && git ls-files", SHC_KIND_LIST);
    sh("cd gc && printf '../cc\\nx\\n' > .git/commondir && timeout 10 git ls-files >/dev/null "
       "2>&1; test -e PWNED && rm PWNED");
    TERMINAL("cd gc && git ls-files");
    TERMINAL("cd gc && rg foo .");
    sh("rm -rf gf gc");
    /* submodule.recurse: git grep enters a submodule whose .git is in the work tree */
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("git config submodule.recurse true");
    TERMINAL("git --no-pager grep foo");
    TERMINAL("git ls-files");
    sh("git config --unset submodule.recurse && git config grep.threads 100000");
    TERMINAL("git --no-pager grep foo");
    sh("git config --unset grep.threads && git config --remove-section grep 2>/dev/null; "
       "git config --remove-section submodule 2>/dev/null; true");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    /* info/attributes and info/sparse-checkout: git grep matches them against every file */
    sh("mkdir -p .git/info && printf '*.c diff\\n' > .git/info/attributes");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("head -c 70000 /dev/zero | tr '\\0' a | fold -w 60 | sed 's/$/ diff/' > "
       ".git/info/attributes");
    TERMINAL("git --no-pager grep foo");
    TERMINAL("git ls-files");
    sh("rm .git/info/attributes && head -c 70000 /dev/zero | tr '\\0' s | fold -w 60 > "
       ".git/info/sparse-checkout");
    TERMINAL("git ls-files");
    sh("rm .git/info/sparse-checkout");
    CARD("git ls-files", SHC_KIND_LIST);
    DONE();
}

/* A directory that can be entered but not listed, in the bridge's tree scan: git opens
 * `secret/.gitattributes` by name.  Permissions bind only a user other than root: as root the
 * judgement runs in a child that has dropped to nobody. */
static void test_unlistable_dir(void **state)
{
    (void)state;
    wrong = 0;
    context = SHC_CONTEXT_BRIDGE;
    sh("chmod 755 . && mkdir -p secret && echo foo > secret/x && git add secret/x && "
       "chmod -R a+rX . && chmod 0311 secret");
    int kinds[2];
    for (int round = 0; round < 2; round++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
                _exit(100);
            _exit((int)kind_in("git --no-pager grep foo -- .", NULL));
        }
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 100);
        kinds[round] = WEXITSTATUS(st);
        sh("chmod 0755 secret"); /* the control: listable */
    }
    if (kinds[0] != SHC_KIND_TERMINAL && ++wrong)
        print_error("not terminal: an unlistable directory in the walk\n");
    if (kinds[1] != SHC_KIND_SEARCH && ++wrong)
        print_error("control: a listable directory is not a search\n");
    sh("git rm -q --cached secret/x && rm -r secret && chmod 700 .");
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* One ignore budget per command, shared by every search root (rg and fd compile the ignore
 * files of each): three roots of 30 KB each are over 64 KiB together; a file reached twice is
 * counted once. */
static void test_budget_per_command(void **state)
{
    (void)state;
    wrong = 0;
    sh("for i in 0 1 2; do mkdir -p r$i && head -c 30000 /dev/zero | tr '\\0' a | fold -w 60 > "
       "r$i/.ignore; done");
    CARD("rg foo r0", SHC_KIND_SEARCH);
    CARD("rg foo r0 r0/", SHC_KIND_SEARCH);
    CARD("rg foo r0 r1", SHC_KIND_SEARCH);
    TERMINAL("rg foo r0 r1 r2");
    TERMINAL("fd foo r0 r1 r2");
    sh("rm -r r0 r1 r2");
    DONE();
}

/* Without the real directory: after `cd a` (a may be a link), `cd ../X` goes physical when
 * the logical $PWD/X is missing (a -> /dev/pts: `cd ../pts` is the pty directory); only
 * `..`s, which lead to an existing parent, are accepted. */
static void test_cd_dotdot_without_cwd(void **state)
{
    (void)state;
    wrong = 0;
    static const char *const bad[] = {"cd a && cd ../pts && cat ptmx", "cd a && cd ../fd && cat 0",
                                      "cd a/b && cd ../../x && ls"};
    static const char *const good[] = {"cd a && cd .. && cat README.md",
                                       "cd a/b && cd ../.. && cat README.md",
                                       "cd a && cd b && cat f", "cd a && cat f"};
    for (size_t i = 0; i < 7; i++) {
        const char *cmd = i < 3 ? bad[i] : good[i - 3];
        shc_classify_opts o = SHC_CLASSIFY_OPTS_INIT;
        shc_verdict *v = NULL;
        assert_int_equal(shc_classify_ex(&v, cmd, strlen(cmd), &o), 0);
        if ((i < 3) != (v->kind == SHC_KIND_TERMINAL) && ++wrong)
            print_error("%s: %s\n", i < 3 ? "not terminal" : "control", cmd);
        shc_verdict_free(v);
    }
    DONE();
}

/* Magic links seen through a chain or a `cd`: realpath() answers for shcard's own process
 * (its fd 9 a regular file here, the command's something else; its directory is not the
 * command's), so every link on the way is read: a -> c, c -> /proc/self/fd/9; `cd d` with
 * d -> /proc/self/cwd; an ignore file linked to /proc/self/fd/9. */
static void test_magic_chains(void **state)
{
    (void)state;
    wrong = 0;
    char reg[64];
    snprintf(reg, sizeof reg, "%s/README.md", dir);
    FILE *f = fopen(reg, "r");
    assert_non_null(f);
    int saved = dup(9);
    assert_int_equal(dup2(fileno(f), 9), 9);
    sh("mkdir -p mg/sub && ln -s c mg/a && ln -s /proc/self/fd/9 mg/c && "
       "ln -s /proc/self/cwd mg/d && ln -s ../c mg/sub/up && echo foo > mg/sub/f && "
       "ln -s /proc/self/fd/9 mg/sub/.ignore && ln -s f mg/sub/plain");
    TERMINAL("cat mg/a");
    TERMINAL("head -n 3 mg/sub/up");
    TERMINAL("cat mg/c");
    TERMINAL("cd mg/d && cat nothing-here");
    TERMINAL("cd mg && cd d && ls");
    TERMINAL("rg foo mg/sub");
    TERMINAL("fd f mg/sub");
    CARD("cat mg/sub/plain", SHC_KIND_READ);
    sh("rm mg/sub/.ignore");
    CARD("rg foo mg/sub", SHC_KIND_SEARCH);
    CARD("cd mg/sub && cat f", SHC_KIND_READ);
    sh("rm -r mg");
    fclose(f);
    if (saved >= 0) {
        dup2(saved, 9);
        close(saved);
    } else {
        close(9);
    }
    DONE();
}

/* git passes over a .git directory that is no repository (empty, or a HEAD that is no ref)
 * and uses the parent's: that repository is judged too.  The fixture's fsmonitor really runs. */
static void test_git_passes_over(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkdir -p outer && cd outer && git init -q . && echo foo > a && git add a && "
       "git config core.fsmonitor 'touch PWNED; false' && mkdir -p w/.git v x/objects x/refs && "
       "echo foo > w/b && echo junk > x/HEAD && cd v && git init -q . && echo foo > c");
    CARD("cd outer/v && git ls-files", SHC_KIND_LIST); /* a real repository: git stops there */
    TERMINAL("cd outer/w && git ls-files");
    TERMINAL("cd outer/w && git grep -n foo -- .");
    TERMINAL("cd outer/x && git ls-files");
    sh("cd outer/w && git ls-files >/dev/null 2>&1; test -e PWNED || test -e ../PWNED");
    /* a gitdir through /proc/self/cwd: shcard's own directory is not the command's */
    sh("mkdir -p outer/pw && git init -q --bare outer/pw/evil && echo 'gitdir: "
       "/proc/self/cwd/evil' > outer/pw/.git && git init -q --bare evil");
    char here[4096];
    assert_non_null(getcwd(here, sizeof here));
    assert_int_equal(chdir(dir), 0); /* shcard's directory holds an ordinary evil/ */
    TERMINAL("cd outer/pw && git ls-files");
    assert_int_equal(chdir(here), 0);
    sh("rm -rf outer evil");
    DONE();
}

/* A repository nested in a walked tree: rg and fd read its info/exclude (a FIFO there blocked
 * `rg foo .`); the bridge's tree scan skipped every .git. */
static void test_nested_repository_info(void **state)
{
    (void)state;
    wrong = 0;
    context = SHC_CONTEXT_BRIDGE;
    sh("mkdir -p nest/sub/.git/info nest/ok/.git/info && echo foo > nest/sub/b && "
       "echo '*.o' > nest/ok/.git/info/exclude && mkfifo nest/sub/.git/info/exclude");
    CARD("rg foo nest/ok", SHC_KIND_SEARCH);
    TERMINAL("rg foo nest");
    TERMINAL("fd b nest");
    sh("rm nest/sub/.git/info/exclude && echo junk > nest/ok/.git.tmp");
    CARD("rg foo nest", SHC_KIND_SEARCH);
    sh("rm -r nest/ok/.git && mv nest/ok/.git.tmp nest/ok/.git");
    TERMINAL("rg foo nest"); /* a .git file that cannot be followed */
    sh("rm -r nest");
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* A submodule git enters when any configuration it reads says so: here the user's (HOME), which
 * shcard never reads, with submodule.recurse and submodule.active.  The gitlinks of the index
 * are judged wherever their .git leads (a directory in the work tree, a gitfile elsewhere),
 * nested ones too; a path through a link, a FIFO .gitmodules, a split index are terminal. */
#define GITHOME "HOME=$PWD/home GIT_CONFIG_NOSYSTEM=1 timeout 10 "
static void test_submodules(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkdir -p home && printf '[submodule]\\n\\trecurse = true\\n\\tactive = .\\n' > "
       "home/.gitconfig && git init -q sm && echo foo > sm/s.txt && git -C sm add s.txt && "
       "git -C sm -c user.email=a@b -c user.name=a commit -qm s && "
       "git update-index --add --cacheinfo 160000,$(git -C sm rev-parse HEAD),sm && "
       "printf '[submodule \"sm\"]\\n\\tpath = sm\\n\\turl = ./sm\\n' > .gitmodules");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH); /* an ordinary submodule */
    CARD("git ls-files", SHC_KIND_LIST);
    sh("git -C sm config core.fsmonitor \"touch $PWD/PWNED; false\"");
    sh(GITHOME "git --no-pager grep foo >/dev/null 2>&1; test -e PWNED && rm PWNED"); /* runs */
    TERMINAL("git --no-pager grep foo");
    TERMINAL("git --no-pager grep foo -- src");
    TERMINAL("cd src && git --no-pager grep foo");
    TERMINAL("git ls-files");
    TERMINAL("git -c submodule.recurse=true grep foo");
    TERMINAL("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=submodule.recurse GIT_CONFIG_VALUE_0=true "
             "git --no-pager grep foo");
    TERMINAL("git --no-pager grep --recurse-submodules foo");
    CARD("rg foo src", SHC_KIND_SEARCH); /* rg enters no submodule through the index */
    /* index version 4 (names prefix-compressed) and 3 */
    sh("git update-index --index-version 4");
    TERMINAL("git --no-pager grep foo");
    sh("git update-index --index-version 2 && git -C sm config --unset core.fsmonitor");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("git update-index --index-version 4 && git ls-files -s | grep -q '^160000 .*sm$'");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH); /* version 4 read whole, the gitlink clean */
    /* an entry offset table (EOIE, IEOT): with index.threads, which the repository's own config
     * may set, git reads the entries from the offsets it gives, not one after the other */
    sh("git -c index.recordEndOfIndexEntries=true -c index.recordOffsetTable=true "
       "-c index.threads=2 update-index --force-write-index && grep -q EOIE .git/index");
    TERMINAL("git --no-pager grep foo");
    sh("git -c index.recordEndOfIndexEntries=true -c index.recordOffsetTable=true "
       "-c index.threads=2 update-index --index-version 2 && grep -q EOIE .git/index");
    TERMINAL("git --no-pager grep foo");
    sh("git update-index --index-version 2 --force-write-index && ! grep -q EOIE .git/index");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    /* a gitfile leading out of the work tree */
    sh("mv sm/.git smgit && printf 'gitdir: ../smgit\\n' > sm/.git && "
       "git --git-dir=smgit config core.worktree \"$PWD/sm\"");
    TERMINAL("git --no-pager grep foo"); /* core.worktree: a refused key in its config */
    sh("git --git-dir=smgit config --unset core.worktree");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("git --git-dir=smgit config core.fsmonitor \"touch $PWD/PWNED; false\"");
    sh(GITHOME "git --no-pager grep foo >/dev/null 2>&1; test -e PWNED && rm PWNED");
    TERMINAL("git --no-pager grep foo");
    sh("git --git-dir=smgit config --unset core.fsmonitor && mkfifo smgit/HEAD2");
    TERMINAL("git --no-pager grep foo");
    sh("rm smgit/HEAD2 && rm sm/.git && mv smgit sm/.git");
    /* the submodule's path through a link */
    sh("mv sm smreal && ln -s smreal sm");
    TERMINAL("git --no-pager grep foo");
    sh("rm sm && mv smreal sm");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    /* a submodule inside the submodule */
    sh("git -C sm init -q inner && git -C sm/inner -c user.email=a@b -c user.name=a commit -q "
       "--allow-empty -m i && git -C sm update-index --add --cacheinfo "
       "160000,$(git -C sm/inner rev-parse HEAD),inner");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("git -C sm/inner config core.fsmonitor 'touch PWNED; false'");
    TERMINAL("git --no-pager grep foo");
    sh("git -C sm/inner config --unset core.fsmonitor && printf '[includeIf \"gitdir:/\"]\n"
       "\tpath = /dev/null\n' >> sm/inner/.git/config");
    TERMINAL("git --no-pager grep foo"); /* include, includeIf: refused in a submodule too */
    sh("rm -rf sm/inner && git -C sm update-index --force-remove inner");
    /* what git reads to enter them: .gitmodules, a split index */
    sh("mv .gitmodules gm && mkfifo .gitmodules");
    sh(GITHOME "git --no-pager grep foo >/dev/null 2>&1; test $? = 124"); /* it blocks */
    TERMINAL("git --no-pager grep foo");
    sh("rm .gitmodules && mv gm .gitmodules && git update-index --split-index");
    TERMINAL("git --no-pager grep foo");
    sh("git update-index --no-split-index && rm -f .git/sharedindex.*");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    /* at most 64 checked-out submodules judged (each a scan of its git directory) */
    sh("for i in $(seq 1 64); do mkdir m$i && printf 'gitdir: ../sm/.git\n' > m$i/.git && "
       "git update-index --add --cacheinfo 160000,$(git -C sm rev-parse HEAD),m$i; done && "
       "git update-index --force-remove sm");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("git update-index --add --cacheinfo 160000,$(git -C sm rev-parse HEAD),sm");
    TERMINAL("git --no-pager grep foo");
    sh("for i in $(seq 1 64); do git update-index --force-remove m$i && rm -r m$i; done");
    /* an index that is not one: terminal, not a guess */
    sh("cp .git/index idx && printf 'DIRC\\0\\0\\0\\2\\0\\0\\0\\7' > .git/index");
    TERMINAL("git --no-pager grep foo");
    sh("mv idx .git/index && git update-index --force-remove sm && rm -rf sm .gitmodules home");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    DONE();
}

/* The bridge's walk: a nested repository's .git is judged as a git directory of its own (rg,
 * ag and fd read its info/exclude, git ls-files -o its HEAD; a FIFO there blocks them). */
static void test_nested_repository(void **state)
{
    (void)state;
    wrong = 0;
    context = SHC_CONTEXT_BRIDGE;
    sh("mkdir -p nest && git init -q nest/inner && echo foo > nest/inner/b");
    CARD("rg foo nest", SHC_KIND_SEARCH);
    CARD("git ls-files -o", SHC_KIND_LIST);
    sh("rm -f nest/inner/.git/info/exclude && mkfifo nest/inner/.git/info/exclude");
    sh("timeout 5 rg foo nest </dev/null >/dev/null 2>&1; test $? = 124"); /* it blocks */
    TERMINAL("rg foo nest");
    TERMINAL("fd b nest");
    TERMINAL("cd nest && rg foo .");
    sh("rm nest/inner/.git/info/exclude && mv nest/inner/.git/HEAD nest/H && "
       "mkfifo nest/inner/.git/HEAD");
    sh("timeout 5 git ls-files -o >/dev/null 2>&1; test $? = 124");
    TERMINAL("git ls-files -o");
    TERMINAL("git --no-pager grep --untracked foo");
    sh("rm nest/inner/.git/HEAD && mv nest/H nest/inner/.git/HEAD && "
       "git -C nest/inner config core.fsmonitor 'touch PWNED; false'");
    TERMINAL("git ls-files -o"); /* judged whole for git, as the top one */
    CARD("rg foo nest", SHC_KIND_SEARCH); /* rg reads no config */
    sh("git -C nest/inner config --unset core.fsmonitor && mv nest/inner/.git nest/g && "
       "mkfifo nest/inner/.git");
    TERMINAL("rg foo nest"); /* a .git neither directory nor file */
    sh("rm nest/inner/.git && printf 'gitdir: ../g\\n' > nest/inner/.git");
    CARD("rg foo nest", SHC_KIND_SEARCH);
    sh("mkfifo nest/g/info/exclude2 && rm -f nest/g/info/exclude && mv nest/g/info/exclude2 "
       "nest/g/info/exclude");
    TERMINAL("rg foo nest"); /* through the gitfile */
    sh("rm -rf nest");
    CARD("git ls-files -o", SHC_KIND_LIST);
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* ack reads the first .ackrc or _ackrc from its directory up (a project ackrc may hold
 * --files-from=FIFO, which blocked it): terminal unless the word --noenv comes before `--`. */
static void test_ackrc(void **state)
{
    (void)state;
    wrong = 0;
    context = SHC_CONTEXT_BRIDGE; /* elsewhere ack is terminal (a piped stdin) */
    CARD("ack foo src", SHC_KIND_SEARCH);
    sh("mkfifo ackfifo && printf -- \"--files-from=$PWD/ackfifo\\n\" > .ackrc");
    sh("timeout 5 ack foo src </dev/null >/dev/null 2>&1; test $? = 124"); /* it blocks */
    TERMINAL("ack foo src");
    TERMINAL("cd src && ack foo .");
    TERMINAL("ack --noen foo src");     /* the first pass takes no abbreviation */
    TERMINAL("ack -- --noenv src");     /* an operand */
    TERMINAL("ack --env foo src");
    CARD("ack --noenv foo src", SHC_KIND_SEARCH);
    CARD("ack foo src --noenv", SHC_KIND_SEARCH);
    sh("timeout 5 ack --noenv foo src </dev/null >/dev/null 2>&1");
    sh("rm .ackrc && mkfifo .ackrc");
    TERMINAL("ack foo src");
    sh("rm .ackrc && mkdir .ackrc");
    TERMINAL("ack foo src");
    sh("rmdir .ackrc && ln -s /dev/zero src/_ackrc");
    TERMINAL("cd src && ack foo .");
    CARD("ack foo src", SHC_KIND_SEARCH); /* only the directory it runs in and its parents */
    sh("rm src/_ackrc ackfifo");
    CARD("cd src && ack foo .", SHC_KIND_SEARCH);
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* Found by a red team after the submodule rules: git's pathspec magic names the top of the work
 * tree; an empty .git in a subdirectory is passed over by git (the parent's index and its
 * submodules are used); a worktree's commondir written under /proc resolves in the command's
 * process; an index entry's name is as long as its flags say. */
static void test_git_reads_elsewhere(void **state)
{
    (void)state;
    wrong = 0;
    TERMINAL("git ls-files -o -- :/");
    TERMINAL("git grep foo -- ':(top)src'");
    CARD("git --no-pager grep foo -- src", SHC_KIND_SEARCH);
    sh("mkdir -p home w && printf '[submodule]\\n\\trecurse = true\\n\\tactive = .\\n' > "
       "home/.gitconfig && git init -q w/sm && echo foo > w/sm/a && git -C w/sm add a && "
       "git -C w/sm -c user.email=a@b -c user.name=a commit -qm s && "
       "git update-index --add --cacheinfo 160000,$(git -C w/sm rev-parse HEAD),w/sm && "
       "printf '[submodule \"sm\"]\\n\\tpath = w/sm\\n\\turl = ./sm\\n' > .gitmodules && "
       "git -C w/sm config core.fsmonitor \"touch $PWD/PWNED; false\"");
    TERMINAL("cd w && git --no-pager grep foo");
    sh("mkdir w/.git"); /* empty: git passes over it */
    sh("H=$PWD; cd w && HOME=$H/home GIT_CONFIG_NOSYSTEM=1 timeout 10 git --no-pager grep foo "
       ">/dev/null 2>&1; cd .. && test -e PWNED && rm PWNED"); /* the submodule's hook runs */
    TERMINAL("cd w && git --no-pager grep foo");
    sh("rmdir w/.git && git update-index --force-remove w/sm && rm -rf w home .gitmodules");
    context = SHC_CONTEXT_BRIDGE;
    sh("mkdir -p ct/wt && echo foo > ct/f && printf 'gitdir: %%s/ct/wt\\n' \"$PWD\" > ct/.git && "
       "echo 'ref: refs/heads/main' > ct/wt/HEAD && echo /proc/self/cwd/evil > ct/wt/commondir");
    TERMINAL("rg foo ct");
    sh("echo ../../.git > ct/wt/commondir");
    CARD("rg foo ct", SHC_KIND_SEARCH);
    sh("rm -r ct");
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* Found by a red team after the pathspec magic rule: a git pathspec holding a glob character is
 * a pattern git matches against every path below its literal directory (`*` crosses '/'), so
 * git walks that whole directory (its .gitattributes, its nested repositories); it is judged
 * as that directory where the bridge scans subtrees, and is terminal elsewhere. */
static void test_pathspec_patterns(void **state)
{
    (void)state;
    wrong = 0;
    context = SHC_CONTEXT_BRIDGE;
    sh("mkdir -p pw/sub pw/src && echo foo > pw/src/a.c && echo foo > pw/sub/f && "
       "git add pw && mkfifo pw/sub/.gitattributes");
    sh("cd pw && timeout 5 git --no-pager grep foo -- '*' </dev/null >/dev/null 2>&1; "
       "test $? = 124"); /* it blocks on the FIFO */
    sh("cd pw && timeout 5 git --no-pager grep foo 's*' </dev/null >/dev/null 2>&1; "
       "test $? = 124");
    TERMINAL("cd pw && git grep foo -- '*'");
    TERMINAL("cd pw && git grep foo -- 's*'");
    TERMINAL("cd pw && git grep foo 's*'"); /* no `--` */
    TERMINAL("cd pw && git grep foo -- 'su?'");
    TERMINAL("cd pw && git grep foo -- '[s]ub'");
    TERMINAL("cd pw && git grep foo -- '\\sub'");
    TERMINAL("cd pw && git grep foo -- 'sub/*'");
    TERMINAL("git grep foo -- 'pw/s*'");
    TERMINAL("cd pw/src && git grep foo -- '../*'"); /* the literal directory climbs */
    TERMINAL("cd pw && git ls-files -- 's*'");
    /* the pattern's literal directory holds no hostile file: the card stays */
    sh("cd pw && timeout 5 git --no-pager grep foo -- 'src/*.c' </dev/null >/dev/null 2>&1");
    CARD("cd pw && git grep foo -- 'src/*.c'", SHC_KIND_SEARCH);
    CARD("git grep foo -- 'pw/src/*.c'", SHC_KIND_SEARCH);
    CARD("cd pw && git grep foo -- src", SHC_KIND_SEARCH);
    /* a nested repository whose HEAD is a FIFO: git ls-files -o stops at it */
    sh("rm pw/sub/.gitattributes && git init -q pw/sub/n && rm pw/sub/n/.git/HEAD && "
       "mkfifo pw/sub/n/.git/HEAD");
    sh("cd pw && timeout 5 git ls-files -o -- 'su*' </dev/null >/dev/null 2>&1; test $? = 124");
    TERMINAL("cd pw && git ls-files -o -- 'su*'");
    TERMINAL("cd pw && git ls-files -o -- '*'");
    TERMINAL("cd pw && git ls-files -o --exclude-standard 's*'");
    CARD("cd pw && git ls-files -o -- 'src/*'", SHC_KIND_LIST);
    /* the options and variables that change the pathspec rules */
    TERMINAL("cd pw && git --noglob-pathspecs ls-files -o -- 'src/*'");
    TERMINAL("cd pw && git --icase-pathspecs ls-files -o -- src");
    setenv("GIT_ICASE_PATHSPECS", "1", 1);
    TERMINAL("cd pw && git ls-files -o -- src");
    unsetenv("GIT_ICASE_PATHSPECS");
    CARD("cd pw && git ls-files -o -- src", SHC_KIND_LIST);
    sh("rm -rf pw/sub");
    /* without the subtree scan a pattern's walk is not judged */
    context = SHC_CONTEXT_ANY;
    TERMINAL("cd pw && git --no-pager grep foo -- 'src/*.c'");
    TERMINAL("cd pw && git ls-files -- '*.c'");
    CARD("cd pw && git --no-pager grep foo -- src", SHC_KIND_SEARCH);
    sh("git rm -rq --cached pw && rm -rf pw");
    DONE();
}

/* git matches every line of .gitattributes, .gitignore and info/{exclude,attributes} with
 * wildmatch, which backtracks over each `**` against every directory of a deep path: more than
 * 2 `**` on a line is terminal, in the walked directory, below it and in the git directory;
 * the same bound holds for git ls-files -x */
static void test_wildmatch_lines(void **state)
{
    (void)state;
    context = SHC_CONTEXT_BRIDGE;
    sh("mkdir -p w/a/b && echo foo > w/a/b/c && git add w/a/b/c");
    sh("printf '**/node_modules\n**/a/**/b -diff\n' > .gitattributes");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("printf '**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b -diff\n' > "
       ".gitattributes");
    TERMINAL("git --no-pager grep foo");
    sh("printf '**/a/**/a/**/b\n' > .gitattributes");
    TERMINAL("git --no-pager grep foo");
    sh("mv .gitattributes .gitignore");
    TERMINAL("git --no-pager grep --untracked foo");
    TERMINAL("git ls-files -o");
    sh("rm .gitignore && printf '**/a/**/a/**/b\n' > w/a/.gitattributes");
    TERMINAL("git --no-pager grep foo");
    sh("rm w/a/.gitattributes && cp .git/info/exclude x.save 2>/dev/null; "
       "printf '**/a/**/a/**/b\n' >> .git/info/exclude");
    TERMINAL("git ls-files -o");
    sh("if [ -f x.save ]; then mv x.save .git/info/exclude; else rm .git/info/exclude; fi");
    CARD("git --no-pager grep foo", SHC_KIND_SEARCH);
    TERMINAL("git ls-files -o -x '**/a/**/a/**/b'");
    TERMINAL("git ls-files -o --exclude='**/a/**/a/**/b'");
    CARD("git ls-files -o -x '**/node_modules/**'", SHC_KIND_LIST);
    sh("git rm -q --cached w/a/b/c && rm -r w");
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* Found by a red team: work-tree git grep reads every tracked file whole (a 3 GiB sparse file
 * in the index, no blocks on disk, ran past any bound); the tracked files below the directory
 * it searches are bounded together, whatever the context. */
static void test_grep_tracked_bytes(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkdir -p gt/sub && cd gt && git init -q . && echo foo > sub/a && git add sub/a && "
       "git update-index --add --cacheinfo 100644,$(git hash-object -w /dev/null),big.bin && "
       "truncate -s 3G big.bin");
    TERMINAL("cd gt && git --no-pager grep foo");
    TERMINAL("cd gt && git --no-pager grep -n foo -- .");
    TERMINAL("cd gt && git --no-pager grep --untracked foo");
    CARD("cd gt/sub && git --no-pager grep foo", SHC_KIND_SEARCH); /* git grep searches below */
    CARD("cd gt && git ls-files", SHC_KIND_LIST);                  /* reads no file */
    context = SHC_CONTEXT_BRIDGE;
    TERMINAL("cd gt && git --no-pager grep foo");
    context = SHC_CONTEXT_ANY;
    /* the budget is for the command: two files of 600 MiB */
    sh("cd gt && truncate -s 600M big.bin");
    CARD("cd gt && git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("cd gt && cp --sparse=always big.bin big2.bin && "
       "git update-index --add --cacheinfo 100644,$(git hash-object -w /dev/null),big2.bin");
    TERMINAL("cd gt && git --no-pager grep foo");
    sh("rm gt/big.bin"); /* a missing work-tree file is not read */
    CARD("cd gt && git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("rm -rf gt");
    DONE();
}

/* Found by a red team: a pathspec that climbs widens git grep to the parent's tracked files,
 * and git ls-files -m reads and hashes the work-tree file of an entry recorded with size 0. */
static void test_tracked_bytes_pathspecs(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkdir -p gp/sub && cd gp && git init -q . && echo foo > sub/a && git add sub/a && "
       "git update-index --add --cacheinfo 100644,$(git hash-object -w /dev/null),big.bin && "
       "truncate -s 3G big.bin");
    CARD("cd gp/sub && git --no-pager grep foo", SHC_KIND_SEARCH);
    CARD("cd gp/sub && git --no-pager grep foo -- a", SHC_KIND_SEARCH);
    TERMINAL("cd gp/sub && git --no-pager grep foo -- ..");
    TERMINAL("cd gp/sub && git --no-pager grep foo -- ../");
    TERMINAL("cd gp/sub && git --no-pager grep foo -- '../*'");
    TERMINAL("cd gp/sub && git --no-pager grep foo -- ../big.bin");
    TERMINAL("cd gp/sub && git --no-pager grep foo -- a ../b*");
    context = SHC_CONTEXT_BRIDGE; /* patterns are judged where the subtree is scanned */
    CARD("cd gp/sub && git --no-pager grep foo -- '*.c'", SHC_KIND_SEARCH);
    TERMINAL("cd gp/sub && git --no-pager grep foo -- '../*'");
    context = SHC_CONTEXT_ANY;
    /* ls-files: -m reads, the other selectors only lstat */
    CARD("cd gp && git ls-files", SHC_KIND_LIST);
    CARD("cd gp && git ls-files -d", SHC_KIND_LIST);
    CARD("cd gp && git ls-files -s -t", SHC_KIND_LIST);
    CARD("cd gp/sub && git ls-files -m", SHC_KIND_LIST);
    TERMINAL("cd gp && git ls-files -m");
    TERMINAL("cd gp && git ls-files -t -m");
    TERMINAL("cd gp && git ls-files --modified");
    TERMINAL("cd gp/sub && git ls-files -m ..");
    sh("rm -rf gp");
    DONE();
}

/* Found by a red team: the lines of git ls-files -X FILE are matched with wildmatch like
 * -x values and .gitignore lines, and got only the file checks. */
static void test_exclude_from_lines(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkdir -p xf && cd xf && git init -q . && printf '*.o\\nbuild/\\n' > ok && "
       "printf '**/a/**/a/**/a/**/b\\n' > pat && mkfifo fifo");
    CARD("cd xf && git ls-files -o -X ok", SHC_KIND_LIST);
    CARD("cd xf && git ls-files -o --exclude-from=ok", SHC_KIND_LIST);
    TERMINAL("cd xf && git ls-files -o -X pat");
    TERMINAL("cd xf && git ls-files -o --exclude-from=pat");
    TERMINAL("cd xf && git ls-files -o -X fifo");
    TERMINAL("cd xf && git ls-files -o -x '**/a/**/a/**/a/**/b'"); /* the same rule as -x */
    context = SHC_CONTEXT_BRIDGE;
    TERMINAL("cd xf && git ls-files -o -X pat");
    context = SHC_CONTEXT_ANY;
    sh("rm -rf xf");
    DONE();
}

/* Found by a red team: the 1 GiB bound was per operand, so naming one large file many times
 * (`cat b b b ...`, `rg -c x b b ...`) read it once per word; the bound is per command. */
static void test_input_per_command(void **state)
{
    (void)state;
    wrong = 0;
    sh("truncate -s 600M b600");
    CARD("cat b600", SHC_KIND_READ);
    CARD("grep -c foo b600", SHC_KIND_SEARCH);
    TERMINAL("cat b600 b600");
    TERMINAL("rg -c x b600 b600 b600");
    TERMINAL("cat README.md b600 src/a.c b600");
    CARD("cat README.md src/a.c", SHC_KIND_READ);
    sh("rm b600");
    DONE();
}

/* bat's change gutter diffs the file against its index blob, which libgit2 inflates whole
 * (a 389 KB loose object held a 400 MB blob): in a git work tree, bat gets a card only with
 * the gutter off.  And bat highlights at under 1 MB/s: its files count 1024 times in the
 * 1 GiB input budget (1 MiB for bat). */
static void test_bat_costs(void **state)
{
    (void)state;
    wrong = 0;
    sh("echo hi > t.txt && git add t.txt && head -c 600000 /dev/zero | tr '\\0' a > m1");
    TERMINAL("bat -P t.txt");
    TERMINAL("bat -P README.md");
    TERMINAL("bat -P -p -d t.txt");
    TERMINAL("bat -P -p --style=full t.txt");
    TERMINAL("bat -P --style=numbers,changes t.txt");
    TERMINAL("bat -P -n --style=auto t.txt");
    CARD("bat -P -p t.txt", SHC_KIND_READ);
    CARD("bat -P -n t.txt", SHC_KIND_READ);
    CARD("bat -P --style=numbers,grid t.txt", SHC_KIND_READ);
    CARD("bat -P --decorations=never t.txt", SHC_KIND_READ);
    CARD("bat -P -p m1", SHC_KIND_READ);
    TERMINAL("bat -P -p m1 m1");
    CARD("cat m1 m1", SHC_KIND_READ);
    sh("git rm -q --cached t.txt && rm -f t.txt m1");
    DONE();
}

/* Found by a red team: git's attributes reader unquotes a pattern that opens with '"' (C
 * style, `\052` is `*`) before wildmatch sees it, so the `**` of a quoted line count as git
 * decodes them, in every file git reads as patterns. */
static void test_quoted_pattern_lines(void **state)
{
    (void)state;
    wrong = 0;
    context = SHC_CONTEXT_BRIDGE;
    sh("mkdir -p qp/a && cd qp && git init -q . && echo foo > a/x.c && git add a/x.c");
    /* git really decodes it: the quoted `*.c` applies to a/x.c */
    sh("cd qp && printf '\"\\\\052.c\" -diff\\n' > .gitattributes && "
       "git check-attr diff a/x.c | grep -q 'diff: unset'");
    CARD("cd qp && git --no-pager grep foo", SHC_KIND_SEARCH);
    static const char line[] = "\"\\\\052\\\\052/a/\\\\052\\\\052/a/\\\\052\\\\052/b\" -diff\\n";
    sh("cd qp && printf '%s' > .gitattributes", line);
    TERMINAL("cd qp && git --no-pager grep foo");
    sh("cd qp && rm .gitattributes && printf '%s' >> .git/info/attributes", line);
    TERMINAL("cd qp && git --no-pager grep foo");
    sh("cd qp && rm .git/info/attributes && printf '%s' > a/.gitattributes", line);
    TERMINAL("cd qp && git --no-pager grep foo");
    sh("cd qp && rm a/.gitattributes && printf '%s' > ex", line);
    TERMINAL("cd qp && git ls-files -o -X ex");
    /* the other escapes and a quoted line git refuses (read raw) */
    static const char esc[] = "\"\\\\t\\\\052\\\\052/a/\\\\\\\\/\\\\052\\\\052/a/\\\\052"
                              "\\\\052/b\" -diff\\n";
    sh("cd qp && printf '%s' > ex", esc);
    TERMINAL("cd qp && git ls-files -o -X ex");
    sh("cd qp && printf '\"\\\\052\\\\052/a/\\\\q/b\" -diff\\n' > ex");
    CARD("cd qp && git ls-files -o -X ex", SHC_KIND_LIST);
    sh("rm -rf qp");
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* Found by a red team: git matches every pattern line against every path it visits (lines x
 * paths x depth^k), so the wildcard lines of all the pattern files a command reads share one
 * budget: 256 units, a line with a wildcard 1, each `**` in it x8. */
static void test_pattern_lines_budget(void **state)
{
    (void)state;
    wrong = 0;
    context = SHC_CONTEXT_BRIDGE;
    sh("mkdir -p pb/a && cd pb && git init -q . && echo foo > a/x.c && git add a/x.c");
    /* 4 lines of 2 `**` (256 units): the card stays; 5 (320): terminal */
    sh("cd pb && for i in 1 2 3 4; do echo \"**/a/**/b$i -diff\"; done > .gitattributes");
    CARD("cd pb && git --no-pager grep foo", SHC_KIND_SEARCH);
    sh("cd pb && echo '**/a/**/b5 -diff' >> .gitattributes");
    TERMINAL("cd pb && git --no-pager grep foo");
    /* the budget is the command's: split over files, it still adds up */
    sh("cd pb && head -n 3 .gitattributes > a/.gitattributes && head -n 2 .gitattributes > g && "
       "mv g .gitattributes");
    TERMINAL("cd pb && git --no-pager grep foo");
    sh("cd pb && rm a/.gitattributes .gitattributes");
    /* 300 one-`**` lines (2,400 units), 300 plain wildcard lines in .gitignore (300) */
    sh("cd pb && for i in $(seq 300); do echo \"**/b$i\"; done > .gitignore");
    TERMINAL("cd pb && git ls-files -o --exclude-standard");
    TERMINAL("cd pb && git --no-pager grep --untracked foo");
    sh("cd pb && for i in $(seq 300); do echo \"*b$i\"; done > .gitignore");
    TERMINAL("cd pb && git ls-files -o --exclude-standard");
    TERMINAL("cd pb && rg foo");
    /* 200 plain wildcard lines, and any number of literal ones: cards */
    sh("cd pb && for i in $(seq 200); do echo \"*.b$i\"; echo \"build$i/\"; done > .gitignore");
    CARD("cd pb && git ls-files -o --exclude-standard", SHC_KIND_LIST);
    CARD("cd pb && rg foo", SHC_KIND_SEARCH);
    /* a file met twice (the same .gitignore from two operands) counts once */
    CARD("cd pb && rg foo a .", SHC_KIND_SEARCH);
    sh("rm -rf pb");
    context = SHC_CONTEXT_ANY;
    DONE();
}

/* Found by a red team: git joins a pathspec onto its prefix and removes every `..` with the
 * component before it, glob or not (`sub/?/../..` is the top), before it looks for the
 * pattern's literal directory: a `..` after a glob special is terminal. */
static void test_pathspec_glob_dotdot(void **state)
{
    (void)state;
    wrong = 0;
    sh("mkdir -p gd/sub/x && cd gd && git init -q . && echo foo > sub/x/a && echo foo > top && "
       "git add sub top");
    /* git really climbs: from sub/, '*\/../..' lists the top's file */
    sh("cd gd/sub && git ls-files -- '*/../..' | grep -qx '../top'");
    context = SHC_CONTEXT_BRIDGE;
    TERMINAL("cd gd/sub && git --no-pager grep foo -- '*/../..'");
    TERMINAL("cd gd/sub && git --no-pager grep -l foo '?/../..'");
    TERMINAL("cd gd/sub && git --no-pager grep foo -- '../sub/*/../..'");
    TERMINAL("cd gd/sub && git --no-pager grep foo -- '[x]/..'");
    TERMINAL("cd gd/sub && git ls-files -m -- '*/../..'");
    TERMINAL("cd gd/sub && git ls-files -- 'x*/../../../other'");
    /* a `..` before the glob is normalised with the literal part; `..` inside a name is none */
    CARD("cd gd/sub && git --no-pager grep foo -- 'x/../x/*'", SHC_KIND_SEARCH);
    CARD("cd gd/sub && git --no-pager grep foo -- 'x/*..c'", SHC_KIND_SEARCH);
    CARD("cd gd/sub && git ls-files -- '*/..a'", SHC_KIND_LIST);
    context = SHC_CONTEXT_ANY;
    sh("rm -rf gd");
    DONE();
}

/* Found by a red team: util-linux column keeps every entry as a wide string and a cell (about
 * 20x the input in memory, 2 us a byte): a pipeline with column in any stage gets a 4 MiB
 * budget for its named files, not 1 GiB. */
static void test_column_input(void **state)
{
    (void)state;
    wrong = 0;
    sh("yes a | head -c 5000000 > c5 && yes a | head -c 100000 > c1");
    CARD("cat c5", SHC_KIND_READ);
    CARD("cat c1 | column", SHC_KIND_READ);
    TERMINAL("cat c5 | column");
    TERMINAL("cat c5 | column -x");
    TERMINAL("grep -h a c5 c1 | sort | column");
    sh("rm c5 c1");
    DONE();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolved_paths),
        cmocka_unit_test(test_control_directory),
        cmocka_unit_test(test_ignore_files),
        cmocka_unit_test(test_git_dir_desync),
        cmocka_unit_test(test_unlistable_dir),
        cmocka_unit_test(test_budget_per_command),
        cmocka_unit_test(test_cd_dotdot_without_cwd),
        cmocka_unit_test(test_magic_chains),
        cmocka_unit_test(test_git_passes_over),
        cmocka_unit_test(test_nested_repository_info),
        cmocka_unit_test(test_submodules),
        cmocka_unit_test(test_nested_repository),
        cmocka_unit_test(test_ackrc),
        cmocka_unit_test(test_git_reads_elsewhere),
        cmocka_unit_test(test_pathspec_patterns),
        cmocka_unit_test(test_wildmatch_lines),
        cmocka_unit_test(test_grep_tracked_bytes),
        cmocka_unit_test(test_tracked_bytes_pathspecs),
        cmocka_unit_test(test_exclude_from_lines),
        cmocka_unit_test(test_input_per_command),
        cmocka_unit_test(test_bat_costs),
        cmocka_unit_test(test_quoted_pattern_lines),
        cmocka_unit_test(test_pattern_lines_budget),
        cmocka_unit_test(test_pathspec_glob_dotdot),
        cmocka_unit_test(test_column_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
