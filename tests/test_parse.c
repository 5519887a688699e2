/* Front end: lexer, grammar, wrapper, diagnostics, limits, round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "shell/dump.h"
#include "shcard.h"

/* Parses src (no unwrap) and returns its S-expression (owned), or NULL on error. */
static char *sx(const char *src, size_t len, bool unwrap, shc_diag *d)
{
    shc_ast *ast = NULL;
    int rc = shc_parse(&ast, src, len, unwrap, NULL, d);
    char *s = rc == 0 ? shc_ast_sexpr(ast->root, false) : NULL;
    shc_ast_free(ast);
    return s;
}

#define OK(src, want)                                                                          \
    do {                                                                                       \
        shc_diag d_;                                                                           \
        char *got_ = sx(src, strlen(src), false, &d_);                                         \
        if (!got_)                                                                             \
            fail_msg("%s: %s", src, d_.text);                                                  \
        assert_string_equal(got_, want);                                                       \
        free(got_);                                                                            \
    } while (0)

#define ERR(src, kind, s_, e_, t_)                                                       \
    do {                                                                                       \
        shc_diag d_;                                                                           \
        char *got_ = sx(src, strlen(src), false, &d_);                                         \
        if (got_)                                                                              \
            fail_msg("%s: accepted as %s", src, got_);                                         \
        assert_int_equal(d_.code, kind);                                                       \
        assert_int_equal(d_.span.start, s_);                                                \
        assert_int_equal(d_.span.end, e_);                                                    \
        if (!strstr(d_.text, t_))                                                              \
            fail_msg("%s: message '%s' lacks '%s'", src, d_.text, t_);                       \
    } while (0)

static void test_words_and_quotes(void **state)
{
    (void)state;
    OK("ls", "(list (pipe (call (word (lit \"ls\")))))");
    OK("cat 'my notes.md'", "(list (pipe (call (word (lit \"cat\")) (word :quoted (sgl \"my notes.md\")))))");
    OK("cat 'a'\"b\"c", "(list (pipe (call (word (lit \"cat\")) (word :quoted (sgl \"a\") (dbl (lit \"b\")) (lit \"c\")))))");
    OK("cat my\\ notes.md", "(list (pipe (call (word (lit \"cat\")) (word :quoted :escaped (lit \"my\") (esc \" \") (lit \"notes.md\")))))");
    /* inside double quotes a backslash escapes only $ ` " \ and newline */
    OK("echo \"a\\$b\\x\\\\\"", "(list (pipe (call (word (lit \"echo\")) (word :quoted (dbl (lit \"a\") (esc \"$\") (lit \"b\\\\x\") (esc \"\\\\\"))))))");
    /* line continuations vanish, inside and between words */
    OK("sed -n '1,40p' \\\n src/foo.ts", "(list (pipe (call (word (lit \"sed\")) (word (lit \"-n\")) (word :quoted (sgl \"1,40p\")) (word (lit \"src/foo.ts\")))))");
    OK("ca\\\nt f", "(list (pipe (call (word (lit \"cat\")) (word (lit \"f\")))))");
    /* comments only at the start of a word */
    OK("cat f # ; rm -rf x", "(list (pipe (call (word (lit \"cat\")) (word (lit \"f\")))))");
    OK("cat notes#md", "(list (pipe (call (word (lit \"cat\")) (word (lit \"notes#md\")))))");
    /* a backslash at the very end: bash keeps it, or drops it after a quote that spans lines */
    ERR("echo a\\", SHC_E_UNSUPPORTED, 6, 7, "backslash at the end of the input");
    ERR("echo 'x\ny' a\\", SHC_E_UNSUPPORTED, 12, 13, "backslash at the end of the input");
    OK("echo $", "(list (pipe (call (word (lit \"echo\")) (word (lit \"$\")))))");
    OK("", "(list)");
    OK("\n\n", "(list)");
}

static void test_ansic(void **state)
{
    (void)state;
    OK("x $'a\\tb\\x41\\101\\u2d\\e\\cA\\c?\\q'", "(list (pipe (call (word (lit \"x\")) (word :quoted (ansic \"a\\tbAA-\\x1b\\x01\\x7f\\\\q\")))))");
    /* a NUL ends the string, as in bash */
    OK("x $'a\\0b'c", "(list (pipe (call (word (lit \"x\")) (word :quoted (ansic \"a\") (lit \"c\")))))");
    OK("x $'\\''", "(list (pipe (call (word (lit \"x\")) (word :quoted (ansic \"'\")))))");
    /* $"..." is looked up in a message catalog that depends on the locale and TEXTDOMAIN:
     * not static */
    OK("x $\"loc\"", "(list (pipe (call (word (lit \"x\")) (word :quoted :expansion (locale (lit \"loc\"))))))");
}

/* Parses src and checks word i of its first simple command: the flags, and the static value
 * (NULL: none), byte for byte. */
static void check_word(const char *src, size_t i, unsigned flags, const char *value, size_t len)
{
    shc_ast *ast = NULL;
    shc_diag d;
    if (shc_parse(&ast, src, strlen(src), false, NULL, &d) != 0)
        fail_msg("%s: %s", src, d.text);
    const shc_node *pipe = ast->root->u.list.items[0];
    const shc_call *c = &pipe->u.pipe.cmds[0]->u.call;
    if (i >= c->nwords)
        fail_msg("%s: %zu words", src, c->nwords);
    const shc_word *w = &c->words[i];
    if (w->flags != flags)
        fail_msg("%s: word %zu has flags 0x%x, want 0x%x", src, i, w->flags, flags);
    if (value == NULL ? w->value != NULL
                      : (w->value == NULL || w->len != len || memcmp(w->value, value, len) != 0))
        fail_msg("%s: word %zu has the wrong value (%zu bytes)", src, i, w->value ? w->len : 0);
    shc_ast_free(ast);
}

#define WORD(src, i, flags, lit) check_word(src, i, flags, lit, sizeof(lit) - 1)
enum { Q = SHC_WORD_QUOTED, BR = SHC_WORD_BRACE, TL = SHC_WORD_TILDE, EXP = SHC_WORD_EXPANSION,
       ESC = SHC_WORD_ESCAPED };

/* $'...' as bash 5.2 decodes it (each case checked against bash by tests/word_oracle.py). */
static void test_ansic_bash52(void **state)
{
    (void)state;
    /* \x{...}: every hex digit, the value modulo 256, } optional, no digit is a NUL */
    WORD("x $'\\x{41}\\x{4142}x\\x{}y'", 1, Q, "ABx");
    WORD("x $'\\x{41'", 1, Q, "A");
    WORD("x $'\\x{7e5}z'", 1, Q, "\xe5z");
    /* \x: at most two digits; none leaves \x */
    WORD("x $'\\x414\\xg'", 1, Q, "A4\\xg");
    /* \c: at the end it stays \c; \c\\ takes both backslashes; \c\' does not end the string */
    WORD("x $'\\c'", 1, Q, "\\c");
    WORD("x $'\\c\\\\x'", 1, Q, "\x1cx");
    OK("x $'\\c\\' -delete '", "(list (pipe (call (word (lit \"x\")) (word :quoted (ansic \"\\x1c' -delete \")))))");
    WORD("x $'\\ca\\cZ\\c?\\c[\\c@z'", 1, Q, "\x01\x1a\x7f\x1b");
    /* octal: three digits at most, modulo 256 (\400 is a NUL, which ends the string) */
    WORD("x $'a\\777b\\0101'", 1, Q, "a\xff" "b\b1");
    WORD("x $'a\\400b'c", 1, Q, "ac");
    /* \u \U: no digit leaves them; up to U+007F they are that byte */
    WORD("x $'\\u\\U\\u2d\\U0000007e\\u00410'", 1, Q, "\\u\\U-~A0");
    WORD("x $'a\\u0000b'c", 1, Q, "ac");
    /* a \<newline> stays in $'...' */
    WORD("x $'a\\\nb'", 1, Q, "a\\\nb");
    /* above U+007F the bytes depend on the locale */
    ERR("x $'\\u20ac'", SHC_E_UNSUPPORTED, 4, 10, "above U+007F");
    ERR("x $'a\\U1F600'", SHC_E_UNSUPPORTED, 5, 12, "above U+007F");
}

/* Brace flags: a superset of what bash 5.2 expands. */
static void test_brace_superset(void **state)
{
    (void)state;
    /* bash: a } before the first , or .. does not close the expression */
    WORD("f {a}b,c}", 1, BR, "{a}b,c}");
    WORD("find . -name {x}y,-delete}", 3, BR, "{x}y,-delete}");
    WORD("f {a,'b'}", 1, BR | Q, "{a,b}");
    WORD("f x{-i,}", 1, BR, "x{-i,}");
    WORD("f {1..3}", 1, BR, "{1..3}");
    WORD("f {a}}{,}", 1, BR, "{a}}{,}");
    WORD("f {a,\\\nb}", 1, BR, "{a,b}");
    /* quoted or escaped braces and separators do not expand */
    WORD("f a{b}c", 1, 0, "a{b}c");
    WORD("f \\{a,b}", 1, Q | ESC, "{a,b}");
    WORD("f {a,b\\}", 1, Q | ESC, "{a,b}");
    WORD("f {a\\,b}", 1, Q | ESC, "{a,b}");
    WORD("f '{'a,b}", 1, Q, "{a,b}");
    WORD("f {a.b} {} a,b} }{,", 1, 0, "{a.b}");
}

/* Tilde flags: a leading ~, and ~ after an unquoted = or : in any word. */
static void test_tilde_superset(void **state)
{
    (void)state;
    WORD("f --file=~/x", 1, TL, "--file=~/x");
    WORD("f a=b:~/c", 1, TL, "a=b:~/c");
    WORD("f x:~", 1, TL, "x:~");
    WORD("f a+=~", 1, TL, "a+=~");
    WORD("f ~+", 1, TL, "~+");
    WORD("f a~b", 1, 0, "a~b");
    WORD("f a=b~", 1, 0, "a=b~");
    WORD("f a='~'", 1, Q, "a=~");
    WORD("f a=\\~", 1, Q | ESC, "a=~");
}

/* Constructs whose meaning bash decides by rules we do not model: rejected. */
static void test_unmodelled(void **state)
{
    (void)state;
    ERR("echo $[1+1]", SHC_E_UNSUPPORTED, 5, 7, "arithmetic expansion `$[`");
    ERR("echo \"$[1]\"", SHC_E_UNSUPPORTED, 6, 8, "arithmetic expansion `$[`");
    /* bash drops \<newline> before it reads the word: $\<newline>'x' is $'x', and
     * "$\<newline>(id)" a command substitution */
    ERR("echo $\\\n'x'", SHC_E_UNSUPPORTED, 5, 8, "line continuation after `$`");
    ERR("cat \"$\\\n(id)\"", SHC_E_UNSUPPORTED, 5, 8, "line continuation after `$`");
    ERR("echo $HOME\\\nx", SHC_E_UNSUPPORTED, 5, 12, "line continuation after `$NAME`");
    /* after $1 or $@ a continuation joins nothing bash would read differently */
    OK("echo $1\\\n0 $@\\\nx", "(list (pipe (call (word (lit \"echo\")) (word :expansion (param \"$1\") (lit \"0\")) (word :expansion (param \"$@\") (lit \"x\")))))");
    ERR("a &\\\n> f", SHC_E_UNSUPPORTED, 2, 6, "line continuation inside an operator");
    ERR("a |\\\n| b", SHC_E_UNSUPPORTED, 2, 6, "line continuation inside an operator");
    /* ${...}: only [#!]PARAM[OP WORD] with a plain WORD */
    ERR("echo ${x:-'}'}", SHC_E_UNSUPPORTED, 10, 11, "quote, backslash");
    ERR("echo ${x:-{a,b}}", SHC_E_UNSUPPORTED, 10, 11, "quote, backslash, `{`");
    ERR("echo ${.,.}", SHC_E_UNSUPPORTED, 5, 8, "of this form");
    ERR("echo ${x[0]}", SHC_E_UNSUPPORTED, 8, 9, "array subscript");
    ERR("echo ${x:-$'a'}", SHC_E_UNSUPPORTED, 10, 11, "`$` other than");
    OK("echo ${x:-a b} ${#y} ${!z} ${1} ${@:2} c",
       "(list (pipe (call (word (lit \"echo\")) (word :expansion (param \"${x:-a b}\")) "
       "(word :expansion (param \"${#y}\")) (word :expansion (param \"${!z}\")) "
       "(word :expansion (param \"${1}\")) (word :expansion (param \"${@:2}\")) (word (lit \"c\")))))");
}

static void test_flags(void **state)
{
    (void)state;
    OK("ls *.rs ?x [ab] {a,b} {1..3} {x} ~/d ~ a~ a=~/x",
       "(list (pipe (call (word (lit \"ls\")) (word :glob (lit \"*.rs\")) (word :glob (lit \"?x\")) "
       "(word :glob (lit \"[ab]\")) (word :brace (lit \"{a,b}\")) (word :brace (lit \"{1..3}\")) "
       "(word (lit \"{x}\")) (word :tilde (lit \"~/d\")) (word :tilde (lit \"~\")) (word (lit \"a~\")) "
       "(word :tilde (lit \"a=~/x\")))))");
    /* quoted pieces do not expand */
    OK("ls '*' \"{a,b}\" \\~", "(list (pipe (call (word (lit \"ls\")) (word :quoted (sgl \"*\")) (word :quoted (dbl (lit \"{a,b}\"))) (word :quoted :escaped (esc \"~\")))))");
    OK("echo $x \"$1\" ${y:-z} $@", "(list (pipe (call (word (lit \"echo\")) (word :expansion (param \"$x\")) (word :quoted :expansion (dbl (param \"$1\"))) (word :expansion (param \"${y:-z}\")) (word :expansion (param \"$@\")))))");
}

static void test_operators(void **state)
{
    (void)state;
    OK("a && b || c", "(list (or (and (pipe (call (word (lit \"a\")))) (pipe (call (word (lit \"b\"))))) (pipe (call (word (lit \"c\"))))))");
    OK("a | b |& c", "(list (pipe (call (word (lit \"a\"))) | (call (word (lit \"b\"))) |& (call (word (lit \"c\")))))");
    OK("! a | b", "(list (pipe ! (call (word (lit \"a\"))) | (call (word (lit \"b\")))))");
    OK("a; b & c\nd;", "(list (pipe (call (word (lit \"a\")))) ; (pipe (call (word (lit \"b\")))) & (pipe (call (word (lit \"c\")))) nl (pipe (call (word (lit \"d\")))) ;)");
    OK("a &&\n b |\n c", "(list (and (pipe (call (word (lit \"a\")))) (pipe (call (word (lit \"b\"))) | (call (word (lit \"c\"))))))");
    OK("a;\nb", "(list (pipe (call (word (lit \"a\")))) ; (pipe (call (word (lit \"b\")))))");
}

static void test_assign_redirect(void **state)
{
    (void)state;
    OK("FOO=1 BAR+=x rg a=b", "(list (pipe (call (assign FOO= (word (lit \"1\"))) (assign BAR+= (word (lit \"x\"))) (word (lit \"rg\")) (word (lit \"a=b\")))))");
    OK("A= B='x y' cmd", "(list (pipe (call (assign A= (word)) (assign B= (word :quoted (sgl \"x y\"))) (word (lit \"cmd\")))))");
    OK("A=*.c B=~/x:~/y", "(list (pipe (call (assign A= (word (lit \"*.c\"))) (assign B= (word :assign_tilde (lit \"~/x:~/y\"))))))");
    OK("cat f 2>/dev/null >&2 <in &>o &>>p 3<>q 4>|r 1>>s <&0 <<<hi",
       "(list (pipe (call (word (lit \"cat\")) (word (lit \"f\")) (redir 2 > (word (lit \"/dev/null\"))) "
       "(redir >& (word (lit \"2\"))) (redir < (word (lit \"in\"))) (redir &> (word (lit \"o\"))) "
       "(redir &>> (word (lit \"p\"))) (redir 3 <> (word (lit \"q\"))) (redir 4 >| (word (lit \"r\"))) "
       "(redir 1 >> (word (lit \"s\"))) (redir <& (word (lit \"0\"))) (redir <<< (word (lit \"hi\"))))))");
    OK("> f", "(list (pipe (call (redir > (word (lit \"f\"))))))");
    /* a number with a space before the operator is a word */
    OK("echo 2 >x", "(list (pipe (call (word (lit \"echo\")) (word (lit \"2\")) (redir > (word (lit \"x\"))))))");
}

static void test_unsupported(void **state)
{
    (void)state;
    ERR("cat $(id)", SHC_E_UNSUPPORTED, 4, 6, "command substitution `$(` at 1:5 is outside the supported subset");
    ERR("cat \"`id`\"", SHC_E_UNSUPPORTED, 5, 6, "backquote");
    ERR("echo $((1+2))", SHC_E_UNSUPPORTED, 5, 8, "arithmetic expansion");
    ERR("diff <(ls) x", SHC_E_UNSUPPORTED, 5, 7, "process substitution `<(`");
    ERR("tee >(cat)", SHC_E_UNSUPPORTED, 4, 6, "process substitution `>(`");
    ERR("cat <<EOF\nx\nEOF", SHC_E_UNSUPPORTED, 4, 6, "here-document");
    ERR("(ls)", SHC_E_UNSUPPORTED, 0, 1, "subshell");
    ERR("a && (ls)", SHC_E_UNSUPPORTED, 5, 6, "subshell");
    ERR("{ ls; }", SHC_E_UNSUPPORTED, 0, 1, "brace group");
    ERR("if true; then :; fi", SHC_E_UNSUPPORTED, 0, 2, "if statement");
    ERR("for f in *; do :; done", SHC_E_UNSUPPORTED, 0, 3, "for loop");
    ERR("while :; do :; done", SHC_E_UNSUPPORTED, 0, 5, "while loop");
    ERR("until x; do :; done", SHC_E_UNSUPPORTED, 0, 5, "until loop");
    ERR("case x in x) ;; esac", SHC_E_UNSUPPORTED, 0, 4, "case statement");
    ERR("f() { :; }", SHC_E_UNSUPPORTED, 1, 2, "function definition");
    ERR("function f { :; }", SHC_E_UNSUPPORTED, 0, 8, "function definition");
    ERR("((x++))", SHC_E_UNSUPPORTED, 0, 2, "arithmetic command");
    ERR("[[ -f x ]]", SHC_E_UNSUPPORTED, 0, 2, "conditional expression");
    ERR("time ls", SHC_E_UNSUPPORTED, 0, 4, "time");
    ERR("a=(1 2)", SHC_E_UNSUPPORTED, 0, 3, "array assignment");
    ERR("a[0]=1 ls", SHC_E_UNSUPPORTED, 0, 6, "array assignment");
    ERR("ls {fd}>x", SHC_E_UNSUPPORTED, 3, 7, "named file descriptor");
    ERR("echo ${x:-$(id)}", SHC_E_UNSUPPORTED, 10, 12, "command substitution");
    ERR("cat f\r", SHC_E_UNSUPPORTED, 5, 6, "control character 0x0d");
}

static void test_syntax(void **state)
{
    (void)state;
    shc_diag d;
    ERR("echo 'abc", SHC_E_SYNTAX, 5, 6, "unterminated single quote");
    ERR("echo \"abc", SHC_E_SYNTAX, 5, 6, "unterminated double quote");
    ERR("echo $'abc", SHC_E_SYNTAX, 5, 7, "unterminated ANSI-C");
    ERR("echo ${abc", SHC_E_SYNTAX, 5, 7, "unterminated parameter expansion");
    ERR("a |", SHC_E_SYNTAX, 3, 3, "unexpected end of input");
    ERR("a && && b", SHC_E_SYNTAX, 5, 7, "unexpected `&&`");
    ERR("a ; ; b", SHC_E_SYNTAX, 4, 5, "unexpected `;`");
    ERR("a ;; b", SHC_E_SYNTAX, 2, 4, "unexpected `;;`");
    ERR("echo hi )", SHC_E_SYNTAX, 8, 9, "unexpected `)`");
    ERR("fi", SHC_E_SYNTAX, 0, 2, "unexpected `fi`");
    ERR("cat >", SHC_E_SYNTAX, 5, 5, "unexpected end of input");
    /* incomplete input is marked */
    free(sx("echo 'x", 7, false, &d));
    assert_true(d.incomplete);
    free(sx("a && b )", 8, false, &d));
    assert_false(d.incomplete);
    /* an embedded NUL is rejected with its offset, not taken as the end */
    free(sx("ls\0rm -rf /", 11, false, &d));
    assert_int_equal(d.code, SHC_E_SYNTAX);
    assert_int_equal(d.span.start, 2);
    assert_non_null(strstr(d.text, "NUL byte at offset 2"));
}

static void test_wrapper(void **state)
{
    (void)state;
    const char *cases[][4] = {
        /* command, shell, flag, script (NULL: not unwrapped) */
        {"bash -lc 'cat f'", "bash", "-lc", "cat f"},
        {"/bin/bash -c \"ls src\"", "bash", "-c", "ls src"},
        {"sh -c 'rg x'", "sh", "-c", "rg x"},
        {"/usr/local/bin/bash -c 'ls'", "bash", "-c", "ls"},
        {"/usr/bin/sh -lc 'ls'", "sh", "-lc", "ls"},
        /* zsh is not modelled; other directories may hold a planted program */
        {"/usr/bin/zsh -lc 'ls'", NULL, NULL, NULL},
        {"zsh -c 'ls'", NULL, NULL, NULL},
        {"./bash -lc 'ls'", NULL, NULL, NULL},
        {"node_modules/.bin/sh -c 'ls'", NULL, NULL, NULL},
        {"/opt/bin/bash -c 'ls'", NULL, NULL, NULL},
        {"/bin//bash -c 'ls'", NULL, NULL, NULL},
        {"/usr/bin/../bin/bash -c 'ls'", NULL, NULL, NULL},
        {"/bin/dash -c 'ls'", NULL, NULL, NULL},
        {"bash -lc 'cat f' && rm x", NULL, NULL, NULL},
        {"bash -lc 'cat f' extra", NULL, NULL, NULL},
        {"env bash -lc 'cat f'", NULL, NULL, NULL},
        {"bash -ic 'cat f'", NULL, NULL, NULL},
        {"bash -lc $x", NULL, NULL, NULL},
        {"X=1 bash -lc 'cat f'", NULL, NULL, NULL},
        {"bash -lc 'cat f' 2>/dev/null", NULL, NULL, NULL},
        {"fish -c 'ls'", NULL, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        shc_ast *ast = NULL;
        shc_diag d;
        int rc = shc_parse(&ast, cases[i][0], strlen(cases[i][0]), true, NULL, &d);
        assert_int_equal(rc, 0);
        if (cases[i][1]) {
            assert_true(ast->wrapper.present);
            assert_string_equal(ast->wrapper.shell, cases[i][1]);
            assert_string_equal(ast->wrapper.flag, cases[i][2]);
            assert_string_equal(ast->script, cases[i][3]);
        } else {
            if (ast->wrapper.present)
                fail_msg("unwrapped %s", cases[i][0]);
            assert_ptr_equal(ast->script_len, strlen(cases[i][0]));
        }
        shc_ast_free(ast);
    }
    /* the script's own errors point into the script */
    shc_ast *ast = NULL;
    shc_diag d;
    const char *c = "bash -lc 'cat $(id)'";
    assert_int_equal(shc_parse(&ast, c, strlen(c), true, NULL, &d), SHC_E_UNSUPPORTED);
    assert_true(ast->wrapper.present);
    assert_string_equal(ast->script, "cat $(id)");
    assert_int_equal(d.span.start, 4);
    shc_ast_free(ast);
    /* sh -c is held to POSIX sh: the bash-only forms dash reads differently are unsupported */
    const char *bashonly[] = {"sh -c \"cat $'f'\"", "sh -c 'cat $\"f\"'",
                              "sh -c 'cat f &>/dev/null'", "sh -c 'cat f &>>/dev/null'",
                              "sh -c 'cat <<< x'", "sh -c 'rg x . |& cat'",
                              "sh -c 'cat \"a$\"\"b\"'"};
    for (size_t i = 0; i < sizeof bashonly / sizeof bashonly[0]; i++) {
        int rc = shc_parse(&ast, bashonly[i], strlen(bashonly[i]), true, NULL, &d);
        if (i + 1 < sizeof bashonly / sizeof bashonly[0]) {
            if (rc != SHC_E_UNSUPPORTED)
                fail_msg("sh -c accepted a bash-only form: %s", bashonly[i]);
            assert_true(ast->wrapper.present);
            assert_null(ast->root);
        } else {
            assert_int_equal(rc, 0); /* "a$""b": a literal $ is the same in both */
        }
        shc_ast_free(ast);
    }
    /* the same scripts under bash are fine */
    c = "bash -c 'cat f &>/dev/null'";
    assert_int_equal(shc_parse(&ast, c, strlen(c), true, NULL, &d), 0);
    shc_ast_free(ast);
}

static void test_limits(void **state)
{
    (void)state;
    shc_ast *ast = NULL;
    shc_diag d;
    /* input length */
    shc_limits lim = {16, 8, 1u << 20};
    assert_int_equal(shc_parse(&ast, "echo 0123456789abcdef", 21, false, &lim, &d), SHC_E_LIMIT);
    shc_ast_free(ast);
    /* && chain longer than the depth limit */
    char buf[256] = "a";
    for (int i = 0; i < 10; i++)
        strcat(buf, " && a");
    lim.max_input = 1000;
    assert_int_equal(shc_parse(&ast, buf, strlen(buf), false, &lim, &d), SHC_E_LIMIT);
    shc_ast_free(ast);
    /* nested ${ */
    const char *nest = "echo ${a:-${b:-${c:-${d:-${e:-${f:-${g:-${h:-${i:-${j}}}}}}}}}}";
    assert_int_equal(shc_parse(&ast, nest, strlen(nest), false, &lim, &d), SHC_E_LIMIT);
    shc_ast_free(ast);
    /* arena */
    lim = (shc_limits){1u << 20, 64, 4096};
    char *big = malloc(60000);
    for (size_t i = 0; i < 60000; i += 2) {
        big[i] = 'a';
        big[i + 1] = ' ';
    }
    assert_int_equal(shc_parse(&ast, big, 60000, false, &lim, &d), SHC_E_LIMIT);
    assert_non_null(strstr(d.text, "arena"));
    shc_ast_free(ast);
    /* the default limits take the same command */
    assert_int_equal(shc_parse(&ast, big, 60000, false, NULL, &d), 0);
    shc_ast_free(ast);
    free(big);
}

static void test_round_trip(void **state)
{
    (void)state;
    const char *cases[] = {
        "nl -ba f | sed -n '1,80p'",
        "a=1 B+='x y' cmd \"q$x\" $'\\x01\\n' \\* 2>&1 >/dev/null && ! b |& c; d & e\nf",
        "rg -n \"\\$HOME\" src || true",
        "cat f <g 3<>h >|i &>>j <<<\"k\"",
        "echo a\\\nb $ \"$\" \"a\\b\" ~/x {a,b}",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        shc_ast *a = NULL, *b = NULL;
        shc_diag d;
        assert_int_equal(shc_parse(&a, cases[i], strlen(cases[i]), false, NULL, &d), 0);
        char *text = shc_ast_print(a->root);
        assert_int_equal(shc_parse(&b, text, strlen(text), false, NULL, &d), 0);
        char *s1 = shc_ast_sexpr(a->root, false), *s2 = shc_ast_sexpr(b->root, false);
        assert_string_equal(s1, s2);
        free(s1);
        free(s2);
        free(text);
        shc_ast_free(a);
        shc_ast_free(b);
    }
}

static void count_call(const shc_node *n, void *payload)
{
    (void)n;
    (*(int *)payload)++;
}

static void test_each_call_and_spans(void **state)
{
    (void)state;
    shc_ast *ast = NULL;
    shc_diag d;
    const char *c = "a x && b | c; d";
    assert_int_equal(shc_parse(&ast, c, strlen(c), false, NULL, &d), 0);
    int n = 0;
    shc_ast_each_call(ast->root, count_call, &n);
    assert_int_equal(n, 4);
    char *s = shc_ast_sexpr(ast->root, true);
    assert_non_null(strstr(s, "(call@0-3 (word@0-1 (lit@0-1 \"a\")) (word@2-3"));
    free(s);
    shc_ast_free(ast);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_and_quotes), cmocka_unit_test(test_ansic),
        cmocka_unit_test(test_flags),            cmocka_unit_test(test_operators),
        cmocka_unit_test(test_assign_redirect),  cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_syntax),           cmocka_unit_test(test_wrapper),
        cmocka_unit_test(test_limits),           cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_each_call_and_spans), cmocka_unit_test(test_ansic_bash52),
        cmocka_unit_test(test_brace_superset),   cmocka_unit_test(test_tilde_superset),
        cmocka_unit_test(test_unmodelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
