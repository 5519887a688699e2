/* Bounds on option values, from the compiled tables: every option that takes a number has a
 * bound (a huge value is terminal, a small one is not), and every pattern a backtracking engine
 * matches is in the stated safe subset (values.c), in every spelling of a backreference or
 * recursion and for every tool and option that picks such an engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "classify/policy.h"

static shc_rule rule;
static shc_optres res;

static bool numeric_role(shc_role r)
{
    return r == SHC_ROLE_NUMBER || r == SHC_ROLE_WIDTH || r == SHC_ROLE_TABS ||
           r == SHC_ROLE_PROCS ||
           r == SHC_ROLE_LINES || r == SHC_ROLE_BYTES;
}

/* Parses spec's options from argv (argv[0] the command) and returns shc__opts_parse's result. */
static int parse_with(const shc_cmdspec *spec, const char *const *argv, size_t argc)
{
    memset(&rule, 0, sizeof rule);
    return shc__opts_parse(&res, &rule, spec, argv, 1, argc, true);
}

/* One option of spec given value v, as the family reads it: the short name and the next word,
 * else --long=v (attached: optional values take only that). */
static int try_value(const shc_cmdspec *spec, const shc_opt *o, const char *v)
{
    char sbuf[4], lbuf[1024];
    if (o->short_name && o->arg == SHC_ARG_REQ) {
        snprintf(sbuf, sizeof sbuf, "-%c", o->short_name);
        const char *argv[] = {spec->name, sbuf, v};
        return parse_with(spec, argv, 3);
    }
    snprintf(lbuf, sizeof lbuf, "--%s=%s", o->long_name, v);
    const char *argv[] = {spec->name, lbuf};
    return parse_with(spec, argv, 2);
}

/* Long names that take a number (a count, depth, width, limit): each such option must carry a
 * numeric role or a danger, so a new one cannot be added without a bound. */
static bool sounds_numeric(const char *l)
{
    static const char *const words[] = {"context", "count", "depth", "width", "threads",
                                        "max-",    "min-",  "-limit", "tabsize", "increment",
                                        "results", "skip",  "check-chars", "parallel",
                                        "starting-line", "block-size", "join-blank"};
    if (strstr(l, "separator") || strstr(l, "delimiter"))
        return false; /* strings */
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(l, words[i]))
            return true;
    return false;
}

static shc_kind kind(const char *const *argv, size_t argc)
{
    memset(&rule, 0, sizeof rule);
    if (!strcmp(argv[0], "git"))
        shc__policy_git(&rule, argv, argc);
    else
        shc__policy_primary(&rule, argv, argc);
    return rule.kind;
}

#define KIND(...)                                                                                 \
    kind((const char *const[]){__VA_ARGS__},                                                      \
         sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

static void test_numbers_bounded(void **state)
{
    (void)state;
    size_t checked = 0;
    for (int id = 0; id < SHC_CMD__COUNT; id++) {
        const shc_cmdspec *spec = shc__policy_spec((shc_cmd_id)id);
        for (const shc_opt *o = spec->opts; o->short_name || o->long_name; o++) {
            if (o->arg == SHC_ARG_NONE || o->danger)
                continue;
            if (o->long_name && sounds_numeric(o->long_name) && !numeric_role(o->role))
                fail_msg("%s --%s takes a number without a bound", spec->name, o->long_name);
            /* head/tail counts are bounded by their rule (9 digits: the file ends first) */
            if (!numeric_role(o->role) || o->role == SHC_ROLE_LINES || o->role == SHC_ROLE_BYTES)
                continue;
            if (o->arg == SHC_ARG_OPT && !o->long_name)
                continue;
            checked++;
            if (try_value(spec, o, "2147483647") == 0)
                fail_msg("%s %c/%s: 2147483647 accepted", spec->name,
                         o->short_name ? o->short_name : ' ', o->long_name ? o->long_name : "");
            if (try_value(spec, o, "99999999999999999999") == 0)
                fail_msg("%s: a 20-digit value accepted", spec->name);
            if (try_value(spec, o, "3") != 0)
                fail_msg("%s %c/%s: 3 rejected: %s", spec->name,
                         o->short_name ? o->short_name : ' ', o->long_name ? o->long_name : "",
                         rule.reason);
        }
    }
    assert_true(checked >= 40);
    /* -NUM of grep and git grep is a context count */
    const shc_cmdspec *grep = shc__policy_lookup("grep", 4);
    const char *a[] = {"grep", "-99999", "x", "f"};
    assert_int_equal(parse_with(grep, a, 4), -1);
    const char *b[] = {"grep", "-5", "x", "f"};
    assert_int_equal(parse_with(grep, b, 4), 0);
    assert_int_equal(KIND("head", "-n", "2147483647", "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("tail", "-c", "2147483647", "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ag", "-U", "-B", "2147483647", "foo", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ag", "-U", "-B", "3", "foo", "."), SHC_KIND_SEARCH);
}

/* Long names of strings a tool prints for every match, line or entry: each such option carries
 * SHC_ROLE_ECHO or a danger, and every SHC_ROLE_ECHO option refuses a long value, a value that
 * repeats the match and a wide %-field, and takes a short one. */
static bool sounds_echoed(const char *l)
{
    static const char *const words[] = {"separator", "delimiter", "replace", "label",
                                        "file-name", "timefmt",   "time-style"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(l, words[i]) && strncmp(l, "no-", 3) != 0)
            return true;
    return false;
}

static void test_echo_bounded(void **state)
{
    (void)state;
    char big[SHC_MAX_ECHO + 2];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    size_t checked = 0;
    for (int id = 0; id < SHC_CMD__COUNT; id++) {
        const shc_cmdspec *spec = shc__policy_spec((shc_cmd_id)id);
        for (const shc_opt *o = spec->opts; o->short_name || o->long_name; o++) {
            if (o->arg == SHC_ARG_NONE || o->danger)
                continue;
            if (o->long_name && sounds_echoed(o->long_name) && o->role != SHC_ROLE_ECHO &&
                o->role != SHC_ROLE_REPLACE)
                fail_msg("%s --%s prints a string without a bound", spec->name, o->long_name);
            if (o->role != SHC_ROLE_ECHO)
                continue;
            checked++;
            if (try_value(spec, o, big) == 0)
                fail_msg("%s --%s: %d bytes accepted", spec->name, o->long_name,
                         SHC_MAX_ECHO + 1);
            if (try_value(spec, o, "$0$0$0$0$0") == 0)
                fail_msg("%s --%s: five '$' accepted", spec->name, o->long_name);
            if (try_value(spec, o, "+%4000Y%4000d") == 0)
                fail_msg("%s --%s: 8000 columns of %%-fields accepted", spec->name, o->long_name);
            if (try_value(spec, o, ",") != 0)
                fail_msg("%s --%s: ',' rejected: %s", spec->name, o->long_name, rule.reason);
        }
    }
    assert_true(checked >= 16);
    /* find -printf: its formats together (text, directives, widths) */
    char fmt[SHC_MAX_ECHO + 2];
    memset(fmt, 'x', sizeof fmt - 1);
    fmt[sizeof fmt - 1] = '\0';
    assert_int_equal(KIND("find", ".", "-printf", fmt), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("find", ".", "-printf", "%p%p%p%p%p%p%p%p%p%p%p%p%p%p%p%p%p"),
                     SHC_KIND_TERMINAL);
    assert_int_equal(KIND("find", ".", "-printf", "%3000p", "-printf", "%3000p"),
                     SHC_KIND_TERMINAL);
    assert_int_equal(KIND("find", ".", "-printf", "%p %s\\n"), SHC_KIND_LIST);
    assert_int_equal(KIND("rg", "-o", "-r", "$0$0$0$0$0", ".", "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "-o", "-r", "[$0]", ".", "f"), SHC_KIND_SEARCH);
}

static void test_backtracking_subset(void **state)
{
    (void)state;
    static const char *const unsafe[] = {
        "(?<c>a)\\k<c>", "(?<c>a)\\k'c'", "(?<c>a)\\k{c}", "(a)(b)(c)\\g3", "(a)\\g{1}",
        "(a)\\g{-1}",    "(?P<c>a)(?P=c)", "(?<n>a)(?&n)",   "a(?R)?b",      "(a|b(?1))",
        "(a)\\1",        "x(?=y)",        "(?<!x)y",         "(a+)+$",       "a*a*a*b",
        ".*foo",         "\\d+",          "a{1,100}",        "(ab)?",        "\\p{L}",
        "\\Qa\\E",       "(?i)foo",       "a?a?a?a?a?a?a?a?a?a?a?b", "[abc",   "(a",
        "(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)(a|a)b", "(*LIMIT_MATCH=1)a",
    };
    static const char *const safe[] = {"foo",       "foo\\.bar", "^def \\w\\s\\(", "foo|bar",
                                       "(?:foo|bar)baz", "colou?r", "[a-z_][[:alnum:]]", "x{y}",
                                       "\\bword\\b", "a.b$",
                                       "TODO|FIXME|XXX|HACK|BUG|NOTE|WARN|ERROR|FAIL|PANIC|OOPS|X"};
    for (size_t i = 0; i < sizeof unsafe / sizeof *unsafe; i++)
        if (!shc__backtrack_unsafe(unsafe[i]))
            fail_msg("in the safe subset: %s", unsafe[i]);
    for (size_t i = 0; i < sizeof safe / sizeof *safe; i++)
        if (shc__backtrack_unsafe(safe[i]))
            fail_msg("not in the safe subset: %s (%s)", safe[i], shc__backtrack_unsafe(safe[i]));
    /* every tool and option that picks a backtracking engine */
    const char *p = "(?<c>a)\\k<c>";
    assert_int_equal(KIND("grep", "-P", p, "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "--perl-regexp", "-e", p, "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "-P", p, "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "--pcre2", "-e", p, "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "--engine=auto", "x(?=y)", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "--engine", "pcre2", "(a)\\1", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "--auto-hybrid-regex", "(a)\\1", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ag", "-U", "(a+)+$", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ag", "-U", "-G", "(a+)+$", "foo", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ack", "(.*)\\1", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-P", "(a)\\1"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("git", "--no-pager", "grep", "--perl-regexp", "-e", "(?P=c)"),
                     SHC_KIND_TERMINAL);
    /* controls: linear engines, literals, the subset */
    assert_int_equal(KIND("rg", "a+b*", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "--engine=default", "a+", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "-P", "foo|bar", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-P", "def \\w", "f"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("ag", "-U", "foo", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("ag", "-U", "-Q", "a+(", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-P", "foo"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-E", "a+b*", "f"), SHC_KIND_SEARCH);
}

/* `[[:x]` is a class of `[`, `:` and `x` to PCRE2 and Perl (the class ends at the first `]`):
 * what follows up to a later `:]` is real syntax.  A blank may come before a count's digits
 * (Perl 5.34, PCRE2 10.43).  Alternatives and length are bounded. */
static void test_subset_desyncs(void **state)
{
    (void)state;
    static const char *const unsafe[] = {
        "[[:x]?\\w*\\w*\\w*[cd:][cd]]", "[[:x]?(a*)*[cd]]", "[[:]\\d+[:]]", "[[:a1:]x*:]]",
        "[[:ALPHA:]x*:]]",       "[[::]a+:]]",          "\\w{ 0,2000}[cd]", "a{\t1,3}",
        "a{  ,5}",               "a{ 2}",
    };
    static const char *const safe[] = {"[[:alpha:]]x?", "[[:x]?]", "[[:digit:][:space:]_]",
                                       "a{ b", "f() {", "{x}"};
    for (size_t i = 0; i < sizeof unsafe / sizeof *unsafe; i++)
        if (!shc__backtrack_unsafe(unsafe[i]))
            fail_msg("in the safe subset: %s", unsafe[i]);
    for (size_t i = 0; i < sizeof safe / sizeof *safe; i++)
        if (shc__backtrack_unsafe(safe[i]))
            fail_msg("not in the safe subset: %s (%s)", safe[i], shc__backtrack_unsafe(safe[i]));
    /* 16 alternatives, every `|` counted, and 256 bytes */
    char alt[256] = "a";
    for (int i = 1; i < 16; i++)
        snprintf(alt + strlen(alt), sizeof alt - strlen(alt), "|%c", 'a' + i);
    assert_null(shc__backtrack_unsafe(alt));
    strcat(alt, "|q");
    assert_non_null(shc__backtrack_unsafe(alt));
    assert_non_null(shc__backtrack_unsafe("(a|b)|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q"));
    char big[300];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_non_null(shc__backtrack_unsafe(big));
    big[256] = 0;
    assert_null(shc__backtrack_unsafe(big));
    assert_int_equal(KIND("grep", "-P", "[[:x]?\\w*\\w*\\w*[cd:][cd]]", "h"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "--engine=auto", "[[:x]?\\w*[cd]]", "h"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ack", "\\w{ 0,2000}\\w{ 0,2000}[cd]", "g"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ag", "-U", "[[:x]?(a+)+[cd]]", "h"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-P", "[[:alpha:]]x?", "h"), SHC_KIND_SEARCH);
}

/* ack --ignore-dir/--noignore-dir=match:RE try a Perl regex on every directory name */
static void test_ack_dir_regex(void **state)
{
    (void)state;
    assert_int_equal(KIND("ack", "--ignore-dir=match:\\w*\\w*\\w*[0-9]$", "foo", "."),
                     SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ack", "--noignore-dir", "match:(a*)*b", "foo", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ack", "-Q", "--ignore-dir=match:a+", "foo", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("ack", "--ignore-dir=node_modules", "foo", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("ack", "--ignore-dir=match:^build", "foo", "."), SHC_KIND_SEARCH);
}

/* `a*a[ab]...c`: GNU grep -i and git grep take time exponential in the classes; at most 8
 * pass (find -regex, anchored, counts after the first repetition) */
static void test_glibc_wide_atoms(void **state)
{
    (void)state;
    char pat[128] = "a*a";
    for (int i = 0; i < 8; i++)
        strcat(pat, "[ab]");
    strcat(pat, "c");
    assert_null(shc__regex_bomb(pat));
    assert_int_equal(KIND("grep", "-ri", pat, "."), SHC_KIND_SEARCH);
    char more[128];
    snprintf(more, sizeof more, "%s", pat);
    memcpy(more + strlen(more) - 1, "[ab]c", 6);
    assert_non_null(shc__regex_bomb(more));
    assert_int_equal(KIND("grep", "-ri", more, "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-c", more, "--", "."), SHC_KIND_TERMINAL);
    assert_non_null(shc__regex_bomb("x\\+y.........z"));
    assert_non_null(shc__regex_bomb("x+y(.|.)(.|.)(.|.)(.|.)(.|.)z"));
    assert_non_null(shc__regex_bomb("a*\\w\\w\\w\\w\\s\\s\\s\\s\\Wz"));
    assert_non_null(shc__regex_bomb("a?[[:alpha:]][[:alpha:]][]x][^]x].....z"));
    /* before any repetition, or few after it: fine */
    assert_null(shc__regex_bomb("[ab][ab][ab][ab][ab][ab][ab][ab][ab][ab]x*"));
    assert_null(shc__regex_bomb("foo.*bar.*[0-9]+baz"));
    /* unterminated brackets and a trailing backslash end the scan */
    static const char *const torn[] = {"a*[", "a*[[:", "a*[]", "a*[^", "a*\\", "a*[[=a", "["};
    for (size_t i = 0; i < sizeof torn / sizeof *torn; i++)
        assert_null(shc__regex_bomb(torn[i]));
}

/* grep searches unanchored (an implicit `.*` first): the classes count from the pattern's
 * start, every -e pattern together, in every shape that runs GNU grep or git grep */
static void test_glibc_wide_unanchored(void **state)
{
    (void)state;
    char p16[128] = "a", p8[128] = "a";
    for (int i = 0; i < 16; i++)
        strcat(p16, "[ab]");
    for (int i = 0; i < 8; i++)
        strcat(p8, "[ab]");
    strcat(p16, "c");
    strcat(p8, "c");
    assert_int_equal(KIND("grep", "-i", "-c", p16, "ab.txt"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-c", "-e", "x", "-e", p16, "ab.txt"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-c", p16), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-i", "-c", p8, "ab.txt"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-c", "-e", p8, "-e", "[ab]", "ab.txt"), SHC_KIND_TERMINAL);
    char anch[130] = "^";
    strcat(anch, p16);
    assert_int_equal(KIND("grep", "-c", anch, "ab.txt"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-x", "-c", p16, "ab.txt"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-F", "-c", p16, "ab.txt"), SHC_KIND_SEARCH);
    /* ordinary patterns stay cards */
    assert_int_equal(KIND("grep", "-rn", "TODO\\|FIXME", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-rnE", "foo|bar|baz|qux|quux|a|b|c|d|e", "."),
                     SHC_KIND_SEARCH);
}

/* GNU grep -w retries every start and length of a match that is not a whole word */
static void test_grep_word_repetition(void **state)
{
    (void)state;
    assert_int_equal(KIND("grep", "-c", "-w", "a*", "min.js"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-rlw", "a*a", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "--word-regexp", "-E", "a+", "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-w", "x\\{1,3\\}", "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-w", "foo", "f"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-wF", "a*", "f"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-x", "-c", "a*", "f"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-w", "foo"), SHC_KIND_SEARCH);
    /* git grep's glibc matcher: any repetition is quadratic on a long line (-F, -P aside) */
    assert_int_equal(KIND("git", "--no-pager", "grep", "-w", "a*"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-F", "a*"), SHC_KIND_SEARCH);
    /* alternatives of different lengths drive the same retries */
    assert_int_equal(KIND("grep", "-c", "-w", "-E", "a|aa|aaa", "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-c", "-w", "a\\|aa", "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-c", "-w", "-e", "a", "-e", "aa", "f"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("grep", "-c", "-wF", "-e", "a", "-e", "aa", "f"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("grep", "-c", "-E", "a|aa|aaa", "f"), SHC_KIND_SEARCH);
}

/* rg: counted repetitions of Unicode classes, more than 16 in all, are terminal */
static void test_rg_class_counts(void **state)
{
    (void)state;
    assert_int_equal(KIND("rg", "-c", "\\w*a\\w{300}Q", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "\\w*a\\w{17}Q", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "\\pL{20}", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "\\p{Greek}{9}.{9}", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "(\\w{5}){4}", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "[\\w-]{2,40}", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "-e", "\\w{10}", "-e", ".{10}", "."), SHC_KIND_TERMINAL);
    /* classes written out one after another are the same copies as a count */
    char spelled[2 * 300 + 8] = "\\w*a";
    for (int i = 0; i < 300; i++)
        strcat(spelled, "\\w");
    strcat(spelled, "Q");
    assert_int_equal(KIND("rg", "-c", spelled, "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "\\w\\w\\w\\w\\w\\w\\w\\w\\w\\w\\d\\d\\d\\d\\d\\s\\s\\s\\s\\s.", "."),
                     SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "(\\w\\w){11}", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "-e", "\\w\\w\\w\\w\\w\\w\\w\\w\\w\\w\\w", "-e", "..........", "."),
                     SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "\\w+\\s+\\w+\\s*=\\s*\\w+\\(.*\\)", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "(\\w\\w){8}", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "\\w*a\\w{16}Q", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "(?-u)\\w*a\\w{300}Q", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "[a-z]{300}", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "-F", "\\w{300}", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "\\w+", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "fn \\w+\\(", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "\\d{4}-\\d{2}-\\d{2}", "."), SHC_KIND_SEARCH);
    static const char *const torn[] = {"\\w{", "\\w{1", "\\w{1,", "[\\w", "\\p{L", "(\\w{9}",
                                       "\\", "(?", "a{99999999999999999999}"};
    for (size_t i = 0; i < sizeof torn / sizeof *torn; i++)
        (void)KIND("rg", torn[i], ".");
}

/* thread and process counts: 1 to 64 (xargs -P 0 is one process per name) */
static void test_process_counts(void **state)
{
    (void)state;
    const shc_cmdspec *xargs = shc__policy_lookup("xargs", 5);
    const char *p0[] = {"xargs", "-0", "-r", "-n", "1", "-P", "0", "grep", "foo"};
    assert_int_equal(parse_with(xargs, p0, 9), -1);
    const char *p65[] = {"xargs", "-0", "-r", "-P65", "grep", "foo"};
    assert_int_equal(parse_with(xargs, p65, 6), -1);
    const char *l0[] = {"xargs", "-0", "-r", "--max-procs=0", "grep", "foo"};
    assert_int_equal(parse_with(xargs, l0, 6), -1);
    const char *p4[] = {"xargs", "-0", "-r", "-P", "4", "grep", "foo"};
    assert_int_equal(parse_with(xargs, p4, 7), 0);
    assert_int_equal(KIND("rg", "-j", "65", "foo", "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "-j", "64", "foo", "."), SHC_KIND_SEARCH);
    assert_int_equal(KIND("git", "--no-pager", "grep", "--threads", "1000", "foo"),
                     SHC_KIND_TERMINAL);
    assert_int_equal(KIND("fd", "-j", "500", "x"), SHC_KIND_TERMINAL);
    const shc_cmdspec *sort = shc__policy_lookup("sort", 4);
    const char *s100[] = {"sort", "--parallel=100", "f"};
    assert_int_equal(parse_with(sort, s100, 3), -1);
    const char *s2[] = {"sort", "--parallel=2", "f"};
    assert_int_equal(parse_with(sort, s2, 3), 0);
}

/* The verdict's kind of a whole command line (pipelines: xargs). */
static shc_kind line_kind(const char *cmd)
{
    shc_verdict *v = NULL;
    assert_int_equal(shc_classify(&v, cmd, strlen(cmd), true), 0);
    shc_kind k = v->kind;
    shc_verdict_free(v);
    return k;
}

/* Found by a red team: find -exec and xargs pass the program's own name (egrep, fgrep), and the
 * -w rule compared it with "grep": every grep rule judges the aliases as grep. */
static void test_grep_aliases(void **state)
{
    (void)state;
    static const char *const names[] = {"grep", "egrep", "fgrep"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *g = names[i];
        assert_int_equal(KIND("find", ".", "-type", "f", "-exec", g, "-c", "-w", "a*", "{}", "+"),
                         SHC_KIND_TERMINAL);
        assert_int_equal(KIND("find", ".", "-type", "f", "-exec", g, "-w", "a\\|aa", "{}", "+"),
                         SHC_KIND_TERMINAL);
        assert_int_equal(KIND("find", ".", "-type", "f", "-exec", g, "-c", "foo", "{}", "+"),
                         SHC_KIND_SEARCH);
        char cmd[256];
        snprintf(cmd, sizeof cmd,
                 "find . -type f -print0 | xargs -0 -r %s -c -w 'a*'", g);
        assert_int_equal(line_kind(cmd), SHC_KIND_TERMINAL);
        snprintf(cmd, sizeof cmd, "find . -type f -print0 | xargs -0 -r %s -c foo", g);
        assert_int_equal(line_kind(cmd), SHC_KIND_SEARCH);
        assert_int_equal(KIND(g, "-c", "-w", "a*", "f"), SHC_KIND_TERMINAL);
    }
}

/* Found by a red team: glibc's matcher (git grep without -F/-P, nl -b pRE) runs the pattern
 * from every start of a line, repetition or not: at most 64 bytes of such patterns together
 * (git grep hands a pattern without specials to its fixed-string matcher). */
static void test_glibc_pattern_length(void **state)
{
    (void)state;
    char big[2100], p40[48];
    memset(big, 'a', 2000);
    snprintf(big + 2000, sizeof big - 2000, "Q$");
    memset(p40, 'a', 40);
    snprintf(p40 + 40, sizeof p40 - 40, "Q$");
    assert_int_equal(KIND("git", "--no-pager", "grep", "-c", big), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-c", "-e", p40, "-e", p40),
                     SHC_KIND_TERMINAL);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-c", p40), SHC_KIND_SEARCH);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-c", "-F", big), SHC_KIND_SEARCH);
    big[2000] = '\0'; /* a literal: git's fixed-string matcher */
    assert_int_equal(KIND("git", "--no-pager", "grep", "-c", big), SHC_KIND_SEARCH);
    assert_int_equal(line_kind("cat f | nl -bpaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaQ$"),
                     SHC_KIND_TERMINAL);
    assert_int_equal(line_kind("cat f | nl -bp'^def '"), SHC_KIND_READ);
}

/* Found by a red team: the backtracking subset bounds 2^choices x bytes as one number (1024),
 * not each factor alone (10 `?` in 21 bytes ran at 1.4 s a MB). */
static void test_backtracking_work(void **state)
{
    (void)state;
    const char *ten = "a?a?a?a?a?a?a?a?a?a?aaaaaaaaaab";
    assert_non_null(shc__backtrack_unsafe(ten));
    assert_int_equal(KIND("grep", "-P", "-c", ten, "s"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("rg", "-P", "-c", ten, "."), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("git", "--no-pager", "grep", "-P", "-c", ten), SHC_KIND_TERMINAL);
    assert_non_null(shc__backtrack_unsafe("(a|b)(c|d)(e|f)(g|h)xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                          "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
    assert_null(shc__backtrack_unsafe("colou?rs? \\w"));
    assert_null(shc__backtrack_unsafe("a?b?c? and some more literal text here, 128 at most"));
    assert_int_equal(KIND("grep", "-P", "-c", "colou?r", "s"), SHC_KIND_SEARCH);
}

/* Found by a red team: the Unicode-class count bound belongs to the regex crate, so fd (its
 * pattern and every --and) gets it like rg. */
static void test_regex_crate_class_counts(void **state)
{
    (void)state;
    assert_int_equal(KIND("fd", "\\w{60}\\s"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("fdfind", "-p", "\\w{60}\\s"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("fd", "--and", "\\w{60}", "foo"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("fd", "-e", "py", "\\w{20}"), SHC_KIND_TERMINAL);
    assert_int_equal(KIND("fd", "-p", "[a-z]{60}\\s"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("fd", "-F", "\\w{60}"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("fd", "-g", "*.py"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("fd", "\\w{16}"), SHC_KIND_SEARCH);
    assert_int_equal(KIND("rg", "-c", "\\w{60}\\s", "."), SHC_KIND_TERMINAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_bounded),
        cmocka_unit_test(test_echo_bounded),
        cmocka_unit_test(test_backtracking_subset),
        cmocka_unit_test(test_subset_desyncs),
        cmocka_unit_test(test_ack_dir_regex),
        cmocka_unit_test(test_glibc_wide_atoms),
        cmocka_unit_test(test_glibc_wide_unanchored),
        cmocka_unit_test(test_grep_word_repetition),
        cmocka_unit_test(test_rg_class_counts),
        cmocka_unit_test(test_process_counts),
        cmocka_unit_test(test_grep_aliases),
        cmocka_unit_test(test_glibc_pattern_length),
        cmocka_unit_test(test_backtracking_work),
        cmocka_unit_test(test_regex_crate_class_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
