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

    const char *e[] = {"rg", "--pr", "foo"}; /* could be --pre */
    assert_int_equal(parse("rg", e, ARGC(e)), -1);
    assert_non_null(strstr(rule.reason, "--pre"));

    const char *f[] = {"cat", "--number=3", "f"}; /* a flag with a value */
    assert_int_equal(parse("cat", f, ARGC(f)), -1);
    assert_non_null(strstr(rule.reason, "takes no value"));

    const char *g[] = {"head", "-n"}; /* missing value */
    assert_int_equal(parse("head", g, ARGC(g)), -1);
    assert_non_null(strstr(rule.reason, "needs a value"));
}

static void test_sed_grammar(void **state)
{
    (void)state;
    long a, b;
    bool last;
    assert_int_equal(shc__sed_range("1,40p", &a, &b, &last), 0);
    assert_int_equal(a, 1);
    assert_int_equal(b, 40);
    assert_false(last);
    assert_int_equal(shc__sed_range(" 5 p ;", &a, &b, &last), 0);
    assert_int_equal(a, 5);
    assert_int_equal(b, 5);
    assert_int_equal(shc__sed_range("$p", &a, &b, &last), 0);
    assert_true(last);
    assert_int_equal(shc__sed_range("10,$p", &a, &b, &last), 0);
    assert_int_equal(a, 10);
    assert_int_equal(b, 0);
    const char *bad[] = {"1,40p;w out", "1,40w out", "1e id", "s/x/y/p", "/re/p", "10,+5p",
                         "1,5p;8,9p", "0p",  "p",         "1,40",     "$,5p", "5,3p",
                         "1,5pq",     "1,5P", "",         "1p\nw x"};
    for (size_t i = 0; i < ARGC(bad); i++)
        assert_int_equal(shc__sed_range(bad[i], &a, &b, &last), -1);
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clusters_and_values),
        cmocka_unit_test(test_dashdash_and_permutation),
        cmocka_unit_test(test_unknown_and_dangerous),
        cmocka_unit_test(test_abbreviations),
        cmocka_unit_test(test_sed_grammar),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_filters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
