/* Words the walk accepts although bash expands them, because the expansion cannot change what
 * the rules saw:
 *  - a leading `~` as a path operand (`~`, `~/dir`): bash replaces it with $HOME (or the passwd
 *    entry when HOME is unset).  The title shows it as written; classify.c judges the path as
 *    $HOME/rest when it knows the real directory (HOME read from the environment the command
 *    inherits), else as an absolute path under an unknown home that must not climb out of it
 *    (assumption: HOME is an ordinary directory, not /, not under /dev, /proc, /sys, /run).
 *    `~user`, `~+`, `~-` stay terminal;
 *  - an unquoted glob in the value of an option whose value is itself a pattern
 *    (`grep --include=*.py`, `rg --glob=*.rs`): bash expands the whole word against the
 *    directory, and a match must start with the literal `--include=` (the name part holds no
 *    glob character and no quote), so every word it may become is the same option with another
 *    pattern; unmatched, the word stays as written.  That holds only where the tool reads the
 *    word as that option itself: after `--`, or as the value of a value-taking option
 *    (`grep --exclude-from --include=*`), bash's match `--include=fifo` is a file the tool opens
 *    (red team, breadth round, class L), so shc__glob_options_placed re-parses the primary's
 *    words and requires each such word to be the option with its value after the `=`.
 * And the check every other word passes: no expansion, glob, brace or tilde, no NUL, no control
 * character, no Unicode look-alike of a shell separator (shc__word_static). */
#include "classify/policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool shc__home_word(const shc_word *w)
{
    return w->value && w->flags == SHC_WORD_TILDE && w->nparts == 1 &&
           (!strcmp(w->value, "~") || !strncmp(w->value, "~/", 2));
}

/* (command, option) pairs whose value is a glob pattern the tool matches names against. */
static const struct {
    const char *cmd, *opt;
} glob_opts[] = {
    {"grep", "--include="}, {"grep", "--exclude="}, {"grep", "--exclude-dir="},
    {"egrep", "--include="}, {"egrep", "--exclude="}, {"egrep", "--exclude-dir="},
    {"fgrep", "--include="}, {"fgrep", "--exclude="}, {"fgrep", "--exclude-dir="},
    {"rg", "--glob="}, {"rg", "--iglob="},
};

bool shc__glob_option(const char *cmd, const shc_word *w)
{
    if (!w->value || w->flags != SHC_WORD_GLOB)
        return false; /* quoted, escaped, braces, $: the source is not the value */
    for (size_t i = 0; i < sizeof glob_opts / sizeof glob_opts[0]; i++) {
        size_t n = strlen(glob_opts[i].opt);
        if (!strcmp(cmd, glob_opts[i].cmd) && !strncmp(w->value, glob_opts[i].opt, n))
            return w->value[n] != '\0';
    }
    return false;
}

bool shc__glob_options_placed(const shc_word *words, const char *const *argv, size_t argc)
{
    const shc_cmdspec *spec = NULL;
    shc_optres res;
    shc_rule r;
    bool parsed = false;
    for (size_t i = 1; i < argc; i++) {
        if (!shc__glob_option(argv[0], &words[i]))
            continue;
        if (!parsed) { /* the first glob option: most commands have none */
            spec = shc__policy_lookup(argv[0], strlen(argv[0]));
            shc__rule_init(&r);
            if (!spec || shc__opts_parse(&res, &r, spec, argv, 1, argc, true) < 0)
                return false;
        }
        parsed = true;
        const char *eq = strchr(argv[i], '=');
        bool placed = false;
        for (size_t k = 0; k < res.nopts; k++)
            placed |= res.opts[k].argi == i && eq && res.opts[k].value == eq + 1;
        for (size_t k = 0; k < res.nops; k++)
            placed &= res.ops[k].argi != i;
        if (!placed)
            return false;
    }
    return true;
}

static bool no(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool no(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

/* Unicode look-alikes of shell separators, as UTF-8. */
static const char *const lookalikes[] = {
    "\xef\xbc\x9b", /* U+FF1B fullwidth semicolon */
    "\xef\xbc\x86", /* U+FF06 fullwidth ampersand */
    "\xef\xbd\x9c", /* U+FF5C fullwidth vertical line */
    "\xcd\xbe",     /* U+037E greek question mark */
    "\xef\xb9\x94", /* U+FE54 small semicolon */
    "\xe2\x80\xa8", /* U+2028 line separator */
    "\xe2\x80\xa9", /* U+2029 paragraph separator */
    "\xc2\x85",     /* U+0085 next line */
};

/* Whether s[0..n) is all printable ASCII (0x20-0x7e): no NUL, control or non-ASCII byte, so
 * none of the byte checks below can fail (words are short: a byte loop). */
static bool printable_ascii(const unsigned char *u, size_t n)
{
    unsigned bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= (unsigned)(u[i] - 0x20u) >= 0x5fu;
    return !bad;
}

bool shc__word_static(const shc_word *w, const char *what, char *why, size_t cap)
{
    if (!w->value || (w->flags & SHC_WORD_EXPANSION))
        return no(why, cap, "%s: $ expansion is not known statically", what);
    if (w->flags & SHC_WORD_GLOB)
        return no(why, cap, "%s: unquoted glob may expand to other words", what);
    if (w->flags & SHC_WORD_BRACE)
        return no(why, cap, "%s: brace expansion makes several words", what);
    if (w->flags & SHC_WORD_TILDE)
        return no(why, cap, "%s: ~ expands to a home directory", what);
    if (printable_ascii((const unsigned char *)w->value, w->len))
        return true;
    if (strlen(w->value) != w->len)
        return no(why, cap, "%s: NUL byte in a word", what);
    bool high = false;
    for (size_t i = 0; i < w->len; i++) {
        unsigned char b = (unsigned char)w->value[i];
        if (b < 0x20 && b != '\t')
            return no(why, cap, "%s: control character 0x%02x in a word", what, b);
        if (b == 0x7f)
            return no(why, cap, "%s: control character 0x7f in a word", what);
        high |= b >= 0x80;
    }
    for (size_t i = 0; high && i < sizeof lookalikes / sizeof lookalikes[0]; i++)
        if (strstr(w->value, lookalikes[i]))
            return no(why, cap, "%s: Unicode look-alike of a shell separator", what);
    return true;
}

