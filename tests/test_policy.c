/* The policy layer over argv strings: option parsing (clusters, attached values, --opt=value,
 * --, permutation, abbreviations), the sed script grammar, and per-command rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "classify/policy.h"

#define ARGC(a) (sizeof(a) / sizeof((a)[0]))

static shc_rule rule;
static shc_optres res;

static int parse(const char *cmd, const char *const *argv, size_t argc)
{
    memset(&rule, 0, sizeof rule);
    const shc_cmdspec *spec = shc__policy_lookup(cmd, strlen(cmd));
    assert_non_null(spec);
    return shc__opts_parse(&res, &rule, spec, argv, 1, argc, true);
}

static void test_clusters_and_values(void **state)
{
    (void)state;
    const char *a[] = {"head", "-qn5", "f"};
    assert_int_equal(parse("head", a, ARGC(a)), 0);
    assert_int_equal(res.nopts, 2);
    assert_int_equal(res.opts[0].opt->short_name, 'q');
    assert_int_equal(res.opts[1].opt->short_name, 'n');
    assert_string_equal(res.opts[1].value, "5");
    assert_int_equal(res.nops, 1);
    assert_string_equal(res.ops[0].value, "f");

    const char *b[] = {"head", "-n", "7", "--lines=9", "--lines", "11", "g"};
    assert_int_equal(parse("head", b, ARGC(b)), 0);
    assert_int_equal(res.nopts, 3);
    assert_string_equal(res.opts[0].value, "7");
    assert_string_equal(res.opts[1].value, "9");
    assert_string_equal(res.opts[2].value, "11");
    assert_int_equal(res.opts[2].argi, 4);
    assert_int_equal(res.nops, 1);
    assert_int_equal(res.ops[0].argi, 6);
}

static void test_dashdash_and_permutation(void **state)
{
    (void)state;
    const char *a[] = {"cat", "f", "-n", "--", "-n", "-"};
    assert_int_equal(parse("cat", a, ARGC(a)), 0);
    assert_int_equal(res.nopts, 1);
    assert_int_equal(res.nops, 3);
    assert_false(res.ops[0].after_dashdash);
    assert_true(res.ops[1].after_dashdash);
    assert_string_equal(res.ops[1].value, "-n");
    assert_string_equal(res.ops[2].value, "-");
}

static void test_unknown_and_dangerous(void **state)
{
    (void)state;
    const char *a[] = {"cat", "-z", "f"};
    assert_int_equal(parse("cat", a, ARGC(a)), -1);
    assert_int_equal(rule.argi, 1);
    assert_non_null(strstr(rule.reason, "unknown option -z"));

    const char *b[] = {"sed", "-n", "1p", "f", "--in-place"};
    assert_int_equal(parse("sed", b, ARGC(b)), -1);
    assert_int_equal(rule.argi, 4);
    assert_string_equal(rule.reason, "sed: -i edits the file in place");

    const char *c[] = {"sed", "-ni", "1p", "f"}; /* cluster hides -i */
    assert_int_equal(parse("sed", c, ARGC(c)), -1);
    assert_string_equal(rule.reason, "sed: -i edits the file in place");

    const char *d[] = {"tail", "-fn", "5", "f"};
    assert_int_equal(parse("tail", d, ARGC(d)), -1);
    assert_non_null(strstr(rule.reason, "never ends"));
}

static void test_abbreviations(void **state)
{
    (void)state;
    const char *a[] = {"sed", "-n", "--in=.bak", "1p", "f"};
    assert_int_equal(parse("sed", a, ARGC(a)), -1); /* could be --in-place */
    assert_non_null(strstr(rule.reason, "could abbreviate --in-place"));

    const char *b[] = {"grep", "--rec", "foo", "src"}; /* unique: --recursive */
    assert_int_equal(parse("grep", b, ARGC(b)), 0);
    assert_int_equal(res.opts[0].opt->role, SHC_ROLE_RECURSIVE);

    const char *c[] = {"ls", "--al"}; /* --all / --almost-all */
    assert_int_equal(parse("ls", c, ARGC(c)), -1);
    assert_non_null(strstr(rule.reason, "ambiguous"));

    const char *d[] = {"rg", "--hid", "foo"}; /* rg takes no abbreviations */
    assert_int_equal(parse("rg", d, ARGC(d)), -1);
    assert_non_null(strstr(rule.reason, "unknown option --hid"));

    const char *e[] = {"rg", "--pr", "foo"}; /* clap: not --pre, an unknown option */
    assert_int_equal(parse("rg", e, ARGC(e)), -1);
    assert_non_null(strstr(rule.reason, "unknown option --pr"));

    const char *e2[] = {"sort", "--ver"}; /* --version or --version-sort: rejects */
    assert_int_equal(parse("sort", e2, ARGC(e2)), -1);
    assert_non_null(strstr(rule.reason, "could abbreviate --version"));

    const char *e3[] = {"ag", "--vim", "x"}; /* ag's --vim is a file type, not --vimgrep */
    assert_int_equal(parse("ag", e3, ARGC(e3)), -1);
    assert_non_null(strstr(rule.reason, "unknown option --vim"));

    const char *f[] = {"cat", "--number=3", "f"}; /* a flag with a value */
    assert_int_equal(parse("cat", f, ARGC(f)), -1);
    assert_non_null(strstr(rule.reason, "takes no value"));

    const char *g[] = {"head", "-n"}; /* missing value */
    assert_int_equal(parse("head", g, ARGC(g)), -1);
    assert_non_null(strstr(rule.reason, "needs a value"));
}

/* ------------------------------------------------------------------ the families */

/* Classifies a NULL-terminated argv as a primary command; returns the kind. */
static shc_kind kind_of(const char *const *argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    memset(&rule, 0, sizeof rule);
    shc__policy_primary(&rule, argv, n);
    return rule.kind;
}
#define KIND(...) kind_of((const char *const[]){__VA_ARGS__, NULL})
#define REJECTS(why, ...)                                              \
    do {                                                               \
        assert_int_equal(KIND(__VA_ARGS__), SHC_KIND_TERMINAL);        \
        if (!strstr(rule.reason, why))                                 \
            fail_msg("reason '%s' lacks '%s'", rule.reason, why);      \
    } while (0)

static void test_family_gnu(void **state)
{
    (void)state;
    /* -NUM: head only as the first argument, tail also with one file at most, grep anywhere */
    assert_int_equal(KIND("head", "-5", "-q", "f"), SHC_KIND_READ);
    REJECTS("only as the first argument", "head", "-q", "-5", "f");
    assert_int_equal(KIND("tail", "-5", "f"), SHC_KIND_READ);
    assert_int_equal(KIND("tail", "-5", "--", "f"), SHC_KIND_READ);
    REJECTS("only as the first argument", "tail", "-5", "-q", "f");
    assert_int_equal(KIND("grep", "foo", "-5", "f"), SHC_KIND_SEARCH);
    /* last wins: -n/-c, and -r/-R/-d */
    assert_int_equal(KIND("tail", "-n", "+5", "-n", "3", "f"), SHC_KIND_READ);
    assert_int_equal(rule.line, 0);
    assert_int_equal(KIND("tail", "-n", "3", "-n", "+5", "f"), SHC_KIND_READ);
    assert_int_equal(rule.line, 5);
    assert_int_equal(KIND("tail", "-n", "+5", "-c", "3", "f"), SHC_KIND_READ);
    assert_int_equal(rule.line, 0);
    REJECTS("standard input", "grep", "-r", "-d", "skip", "foo");
    REJECTS("standard input", "grep", "-d", "recurse", "-d", "read", "foo");
    REJECTS("standard input", "grep", "--directories=recurse", "--directories=skip", "foo");
    assert_int_equal(KIND("grep", "-d", "skip", "-r", "foo"), SHC_KIND_SEARCH);
    REJECTS("follows every symbolic link", "grep", "-d", "skip", "-R", "foo");
    assert_int_equal(KIND("grep", "-d", "read", "--dir=recurse", "foo"), SHC_KIND_SEARCH);
    /* short and long forms with different shapes */
    const char *fx[] = {"ls", "-Fx"}; /* -F has no value (only --classify has one): -F, -x */
    assert_int_equal(parse("ls", fx, ARGC(fx)), 0);
    assert_int_equal(res.nopts, 2);
    assert_int_equal(KIND("ls", "--classify=always"), SHC_KIND_LIST);
    REJECTS("unknown option --colour", "ls", "--colour");
    /* a value is any next word */
    assert_int_equal(KIND("grep", "-e", "-r", "f"), SHC_KIND_SEARCH);
    assert_string_equal(rule.query, "-r");
}

static void test_family_clap(void **state)
{
    (void)state;
    REJECTS("differently", "rg", "-e=foo", "src");
    REJECTS("differently", "bat", "-r=1:2", "-P", "f");
    REJECTS("option to clap", "rg", "-m", "-x", "foo", "f");
    REJECTS("option to clap", "fd", "-E", "-x");
    REJECTS("option to clap", "bat", "-l", "-p", "f");
    REJECTS("option to clap", "rg", "-e", "--", "f");
    assert_int_equal(KIND("rg", "-e", "-foo", "src"), SHC_KIND_SEARCH); /* allow_hyphen_values */
    assert_string_equal(rule.query, "-foo");
    assert_int_equal(KIND("fd", "-S", "-10k"), SHC_KIND_LIST);
    REJECTS("given twice", "rg", "-e", "x", "--max-depth", "1", "--max-depth", "5", "d");
    REJECTS("given twice", "fd", "-d", "1", "-d", "5");
    REJECTS("given twice", "bat", "--paging=never", "--paging=always", "f");
    REJECTS("given twice", "bat", "-r", "1:2", "-r", "5:6", "-P", "f");
    assert_int_equal(KIND("rg", "-g", "*.c", "-g", "*.h", "foo"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("fd", "-e", "c", "-e", "h", "x"), SHC_KIND_SEARCH);
    REJECTS("takes no value", "rg", "--hidden=yes", "foo");
    REJECTS("takes no value", "fd", "--strip-cwd-prefix=always", "x");
    REJECTS("conflict", "fd", "--search-path", "src", "x", "d");
    /* bat: the last of --paging / -P decides; -n, --number, --style drop earlier -p */
    struct {
        const char *argv[6];
        bool pages;
    } bat[] = {
        {{"bat", "-pp", "f"}, false},
        {{"bat", "-pp", "-n", "f"}, true},
        {{"bat", "-n", "-pp", "f"}, false},
        {{"bat", "-pp", "--style=full", "f"}, true},
        {{"bat", "-P", "--paging=auto", "f"}, true},
        {{"bat", "--paging=always", "-P", "f"}, false},
        {{"bat", "-pp", "--paging=auto", "f"}, false},
        {{"bat", "--no-pager", "f"}, false},
        {{"bat", "f"}, true},
    };
    for (size_t i = 0; i < ARGC(bat); i++) {
        assert_int_equal(kind_of(bat[i].argv), SHC_KIND_READ);
        if (rule.pages != bat[i].pages)
            fail_msg("bat case %zu: pages %d", i, rule.pages);
    }
    REJECTS("may run a pager", "bat", "-P", "--paging=always", "f");
    REJECTS("cache subcommand", "bat", "cache", "--clear");
    assert_int_equal(KIND("bat", "-P", "cache"), SHC_KIND_READ);
}

static void test_family_tree(void **state)
{
    (void)state;
    /* the red team's shapes: a value letter takes the next word even inside a cluster */
    REJECTS("-o writes", "tree", "-Po", "-L", "out");
    REJECTS("-o writes", "tree", "-Io", "--charset", "README.md");
    REJECTS("-o writes", "tree", "-aPo", "-L", "1");
    const char *a[] = {"tree", "-PLa", "*.c", "2", "src"};
    assert_int_equal(parse("tree", a, ARGC(a)), 0);
    assert_int_equal(res.nopts, 3);
    assert_string_equal(res.opts[0].value, "*.c");
    assert_string_equal(res.opts[1].value, "2");
    assert_int_equal(res.nops, 1);
    assert_string_equal(res.ops[0].value, "src");
    REJECTS("tree 2.1.0", "tree", "-L2");
    assert_int_equal(KIND("tree", "--charset=utf-8", "-L", "1"), SHC_KIND_LIST);
    assert_int_equal(KIND("tree", "--charset", "utf-8", "-L", "1"), SHC_KIND_LIST);
    REJECTS("whole word", "tree", "--noreport=1");
    REJECTS("whole option names", "tree", "--sortname", "x");
    assert_int_equal(KIND("tree", "--", "-o"), SHC_KIND_LIST);
    assert_string_equal(rule.path, "-o");
}

static void test_family_git(void **state)
{
    (void)state;
    /* git.c: whole words */
    assert_int_equal(KIND("git", "-P", "grep", "foo"), SHC_KIND_SEARCH);
    REJECTS("whole words", "git", "-Pp", "grep", "foo");
    REJECTS("whole words", "git", "--no-pag", "grep", "foo");
    /* git grep: options end at the pattern; revisions; -- */
    REJECTS("after the pattern", "git", "grep", "foo", "-n");
    REJECTS("revision", "git", "grep", "foo", "HEAD");
    REJECTS("revision", "git", "grep", "foo", "HEAD~1", "--", "a.txt");
    REJECTS("revision", "git", "grep", "foo", "src");
    REJECTS("partial clone", "git", "grep", "--cached", "foo");
    assert_int_equal(KIND("git", "grep", "foo", "--", "src"), SHC_KIND_SEARCH);
    assert_string_equal(rule.path, "src");
    assert_int_equal(KIND("git", "grep", "foo", "src/", "*.c"), SHC_KIND_SEARCH);
    assert_int_equal(rule.npaths, 2);
    assert_int_equal(KIND("git", "grep", "--no-index", "foo", "src"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("git", "grep", "--", "-foo"), SHC_KIND_SEARCH);
    assert_string_equal(rule.query, "-foo");
    assert_int_equal(KIND("git", "grep", "-e", "foo", "--", "-x"), SHC_KIND_SEARCH);
    assert_string_equal(rule.path, "-x");
    REJECTS("bare '('", "git", "grep", "(", "-e", "a", ")");
    REJECTS("end-of-options", "git", "grep", "--end-of-options", "foo");
    REJECTS("whole option names", "git", "grep", "--line", "foo");
    /* git ls-files */
    REJECTS("partial clone", "git", "ls-files", "--eol");
    REJECTS("partial clone", "git", "ls-files", "--with-tree=HEAD~1");
    REJECTS("read in every directory", "git", "ls-files", "--exclude-per-directory=../x");
    /* a name read in every directory walked, subdirectories unseen: only .gitignore */
    REJECTS("read in every directory", "git", "ls-files", "-o", "--exclude-per-directory=fifo");
    assert_int_equal(KIND("git", "ls-files", "-o", "--exclude-per-directory=.gitignore"),
                     SHC_KIND_LIST);
    REJECTS("own configuration", "git", "ls-files", "--recurse-submodules");
    assert_int_equal(KIND("git", "ls-files", "src", "-o"), SHC_KIND_LIST); /* permutation */

    const char *maybe[] = {"HEAD", "main", "src", "src/main.c", "v1.0", "HEAD~1", "a:b", ":/x",
                           "@", "@{u}", "x^{tree}", "dead", "DEADBEEF", "v1-3-gabc1", ""};
    for (size_t i = 0; i < ARGC(maybe); i++)
        if (!shc__git_maybe_rev(maybe[i]))
            fail_msg("'%s' may be a revision", maybe[i]);
    const char *never[] = {".", "./src", "../x", "src/", ".github", "a/.b", "a..b", "*.c",
                           "my dir", "x.lock", "x.", "a?", "[ab]"};
    for (size_t i = 0; i < ARGC(never); i++)
        if (shc__git_maybe_rev(never[i]))
            fail_msg("'%s' cannot be a revision", never[i]);
}

static void test_family_perl_bash(void **state)
{
    (void)state;
    REJECTS("one-letter option -h", "ack", "--h", "foo");
    REJECTS("not a decimal number", "ack", "-m1x", "foo", "f");
    REJECTS("early option passes", "ack", "-c", "--ignore-dir", "--noenv", "foo", "f");
    REJECTS("ambiguous", "ack", "--ign", "x", "foo");
    REJECTS("include '+'", "ack", "TODO", "+x");
    assert_int_equal(KIND("ack", "--", "TODO", "+x"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("ack", "--ignore-d", "x", "foo"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("ack", "--noenv", "-A", "2", "foo", "f"), SHC_KIND_SEARCH);
    const char *a[] = {"cd", "-LP", "d"};
    assert_int_equal(parse("cd", a, ARGC(a)), 0);
    assert_int_equal(res.nopts, 2);
    const char *b[] = {"cd", "--physical", "d"};
    assert_int_equal(parse("cd", b, ARGC(b)), -1);
}

/* Every file-valued option puts its value in rule.inputs; '-' (stdin) rejects. */
static void test_file_values(void **state)
{
    (void)state;
    struct {
        const char *argv[8];
        const char *input;
    } cases[] = {
        {{"grep", "-r", "--exclude-from=ex", "foo", "."}, "ex"},
        {{"grep", "-r", "--exclude-f", "ex", "foo", "."}, "ex"},
        {{"rg", "--ignore-file", ".ig", "foo"}, ".ig"},
        {{"fd", "--ignore-file=.ig", "x"}, ".ig"},
        {{"ag", "-U", "-p", ".ig", "foo"}, ".ig"},
        {{"git", "ls-files", "-X", "ex"}, "ex"},
    };
    for (size_t i = 0; i < ARGC(cases); i++) {
        if (kind_of(cases[i].argv) == SHC_KIND_TERMINAL)
            fail_msg("case %zu: %s", i, rule.reason);
        assert_int_equal(rule.ninputs, 1);
        assert_string_equal(rule.inputs[0], cases[i].input);
        assert_true(rule.input_argi[0] >= 1);
        /* the same with '-' */
        const char *argv[9];
        size_t n = 0;
        for (; cases[i].argv[n]; n++)
            argv[n] = cases[i].argv[n] == cases[i].input ? "-" : cases[i].argv[n];
        argv[n] = NULL;
        for (size_t k = 0; k < n; k++)
            if (strstr(cases[i].argv[k], "=") && strstr(cases[i].argv[k], cases[i].input))
                argv[k] = strstr(cases[i].argv[k], "exclude") ? "--exclude-from=-"
                                                               : "--ignore-file=-";
        if (kind_of(argv) != SHC_KIND_TERMINAL)
            fail_msg("case %zu with '-' accepted", i);
    }
    REJECTS("width", "nl", "-w", "2000000000", "f");
}

#define RANGE(s, a, b, l) shc__sed_range(s, a, b, l, more, sizeof more)

static void test_sed_grammar(void **state)
{
    (void)state;
    long a, b;
    bool last;
    char more[64];
    assert_int_equal(RANGE("1,40p", &a, &b, &last), 0);
    assert_int_equal(a, 1);
    assert_int_equal(b, 40);
    assert_false(last);
    assert_string_equal(more, "");
    assert_int_equal(RANGE(" 5 p ;", &a, &b, &last), 0);
    assert_int_equal(a, 5);
    assert_int_equal(b, 5);
    assert_int_equal(RANGE("$p", &a, &b, &last), 0);
    assert_true(last);
    assert_int_equal(RANGE("10,$p", &a, &b, &last), 0);
    assert_int_equal(a, 10);
    assert_int_equal(b, 0);
    /* several ranges: the first gives the line, the others the title */
    assert_int_equal(RANGE("1,5p;8,9p", &a, &b, &last), 0);
    assert_int_equal(a, 1);
    assert_int_equal(b, 5);
    assert_string_equal(more, ", 8-9");
    assert_int_equal(RANGE("3p; 7p;$p", &a, &b, &last), 0);
    assert_string_equal(more, ", 7, last line");
    assert_int_equal(RANGE("100,200p;300,400p;500,600p;700,800p;900,1000p;1100,1200p;1300,1400p;"
                           "1500,1600p",
                           &a, &b, &last),
                     0);
    assert_true(strlen(more) < sizeof more && strstr(more, ", ...") != NULL);
    const char *bad[] = {"1,40p;w out", "1,40w out", "1e id", "s/x/y/p", "/re/p", "10,+5p",
                         "1,5p;8,9w x", "0p",  "p",         "1,40",     "$,5p", "5,3p",
                         "1,5pq",     "1,5P", "",         "1p\nw x", "1p;;2p", "1p;5,3p",
                         "1p;2p;3p;4p;5p;6p;7p;8p;9p;10p;11p;12p;13p;14p;15p;16p;17p"};
    for (size_t i = 0; i < ARGC(bad); i++)
        assert_int_equal(RANGE(bad[i], &a, &b, &last), -1);
}

static void primary(const char *const *argv, size_t argc)
{
    shc__policy_primary(&rule, argv, argc);
}

static void test_rules(void **state)
{
    (void)state;
    const char *a[] = {"rg", "-e", "foo", "-e", "bar", "src", "tests"};
    primary(a, ARGC(a));
    assert_int_equal(rule.kind, SHC_KIND_SEARCH);
    assert_string_equal(rule.query, "foo");
    assert_string_equal(rule.path, "src");
    assert_int_equal(rule.npaths, 2);

    const char *b[] = {"rg", "--files", "src"};
    primary(b, ARGC(b));
    assert_int_equal(rule.kind, SHC_KIND_LIST);
    assert_string_equal(rule.path, "src");

    const char *c[] = {"grep", "foo"}; /* stdin */
    primary(c, ARGC(c));
    assert_int_equal(rule.kind, SHC_KIND_TERMINAL);

    const char *d[] = {"tail", "-n", "+12", "f"};
    primary(d, ARGC(d));
    assert_int_equal(rule.kind, SHC_KIND_READ);
    assert_int_equal(rule.line, 12);

    const char *e[] = {"bat", "-r", "40:80", "f"};
    primary(e, ARGC(e));
    assert_int_equal(rule.line, 40);
    assert_int_equal(rule.line_end, 80);

    const char *f[] = {"find", ".", "-name", "node_modules", "-prune", "-o", "-name", "*.js"};
    primary(f, ARGC(f));
    assert_int_equal(rule.kind, SHC_KIND_SEARCH);
    assert_string_equal(rule.query, "*.js");

    const char *g[] = {"find", ".", "-type", "f", "-fprint0", "out"};
    primary(g, ARGC(g));
    assert_int_equal(rule.kind, SHC_KIND_TERMINAL);
    assert_int_equal(rule.argi, 4);

    const char *h[] = {"git", "-C", "x", "grep", "foo"};
    primary(h, ARGC(h));
    assert_int_equal(rule.kind, SHC_KIND_TERMINAL);

    const char *i[] = {"git", "--no-pager", "grep", "-n", "foo", "--", "src"};
    primary(i, ARGC(i));
    assert_int_equal(rule.kind, SHC_KIND_SEARCH);
    assert_string_equal(rule.path, "src");

    const char *j[] = {"fd", "-e", "ts"};
    primary(j, ARGC(j));
    assert_int_equal(rule.kind, SHC_KIND_LIST);

    const char *k[] = {"ag", "foo"}; /* ag without -U runs git config */
    primary(k, ARGC(k));
    assert_int_equal(rule.kind, SHC_KIND_TERMINAL);
}

static void test_filters(void **state)
{
    (void)state;
    long line, end;
    const char *a[] = {"sed", "-n", "30,60p"};
    memset(&rule, 0, sizeof rule);
    assert_true(shc__policy_filter(&rule, a, ARGC(a), &line, &end));
    assert_int_equal(line, 30);
    assert_int_equal(end, 60);
    const char *b[] = {"head", "-n", "5", "g"};
    assert_false(shc__policy_filter(&rule, b, ARGC(b), &line, &end));
    assert_int_equal(rule.argi, 3);
    const char *c[] = {"sort", "-o", "g"};
    assert_false(shc__policy_filter(&rule, c, ARGC(c), &line, &end));
    const char *d[] = {"uniq", "-", "out"};
    assert_false(shc__policy_filter(&rule, d, ARGC(d), &line, &end));
    const char *e[] = {"tee", "f"};
    assert_false(shc__policy_filter(&rule, e, ARGC(e), &line, &end));
    const char *f[] = {"tr", "a-z", "A-Z"};
    assert_true(shc__policy_filter(&rule, f, ARGC(f), &line, &end));
    const char *g[] = {"tail", "-n", "+3"};
    assert_true(shc__policy_filter(&rule, g, ARGC(g), &line, &end));
    assert_int_equal(line, 3);
    const char *h[] = {"grep", "--exclude-from=F", "x"}; /* a filter reads only the pipe */
    memset(&rule, 0, sizeof rule);
    assert_false(shc__policy_filter(&rule, h, ARGC(h), &line, &end));
    const char *i[] = {"tr", "a", "b", "-d"}; /* '+': -d is a third operand */
    assert_false(shc__policy_filter(&rule, i, ARGC(i), &line, &end));
    const char *j[] = {"column", "-n", "-t"}; /* -n takes a table name */
    memset(&rule, 0, sizeof rule);
    assert_true(shc__policy_filter(&rule, j, ARGC(j), &line, &end));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clusters_and_values),
        cmocka_unit_test(test_dashdash_and_permutation),
        cmocka_unit_test(test_unknown_and_dangerous),
        cmocka_unit_test(test_abbreviations),
        cmocka_unit_test(test_family_gnu),
        cmocka_unit_test(test_family_clap),
        cmocka_unit_test(test_family_tree),
        cmocka_unit_test(test_family_git),
        cmocka_unit_test(test_family_perl_bash),
        cmocka_unit_test(test_file_values),
        cmocka_unit_test(test_sed_grammar),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_filters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
