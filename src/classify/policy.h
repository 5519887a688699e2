/* The classifier's policy over decoded argv strings: which commands may be shown as read,
 * search or list, with every option of each command kept as data in tools.def (one file per tool
 * under tools/). Nothing here knows the AST: callers pass NUL-terminated argv words (borrowed) and
 * get a shc_rule result whose strings point into that argv.  No allocation, no global state.
 */
#ifndef SHC_POLICY_H
#define SHC_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "shcard.h"

/* What an option takes. */
typedef enum shc_arg {
    SHC_ARG_NONE, /* a flag */
    SHC_ARG_REQ,  /* a value: attached (-n5, --lines=5) or the next word (the family decides which
                     next words may be values) */
    SHC_ARG_OPT,  /* an optional value, attached only (--color[=WHEN]) */
} shc_arg;

/* What an option means to the rules (most options mean nothing to them). */
typedef enum shc_role {
    SHC_ROLE_NONE,
    SHC_ROLE_PATTERN,    /* the value is a search pattern (-e) */
    SHC_ROLE_LINES,      /* head/tail -n: the value is a line count (tail: +N = from line N) */
    SHC_ROLE_BYTES,      /* head/tail -c: a byte count (the last of -n/-c/-NUM wins) */
    SHC_ROLE_RANGE,      /* bat -r N:M */
    SHC_ROLE_FILES,      /* rg --files, ack -f: list files instead of searching */
    SHC_ROLE_QUIET,      /* sed -n */
    SHC_ROLE_SCRIPT,     /* sed -e SCRIPT */
    SHC_ROLE_RECURSIVE,  /* grep -r: no operand means the current directory */
    SHC_ROLE_SEARCHPATH, /* fd --search-path DIR */
    SHC_ROLE_PAGING,     /* bat --paging WHEN: the last of --paging and -P decides */
    SHC_ROLE_FULLPATH,   /* fd -p: the pattern may contain '/' */
    SHC_ROLE_DIRACTION,  /* grep -d ACTION: the last of -r/-R/-d decides */
    SHC_ROLE_NOVCS,      /* ag -U: without it ag runs `git config` through sh */
    SHC_ROLE_NOPAGER,    /* bat -P, git --no-pager: no pager even on a terminal */
    SHC_ROLE_NUMBER,     /* the value must be a decimal number (ag -A x loops forever) */
    SHC_ROLE_WIDTH,      /* a decimal number up to SHC_MAX_WIDTH (nl -w 2000000000 writes 2 GB
                            per line) */
    SHC_ROLE_FILE,       /* the value is a file the tool reads (--ignore-file F, grep -f F):
                            it goes to shc_rule.inputs and is checked like an operand */
    SHC_ROLE_DIRFILE,    /* a file name read in every directory (git ls-files
                            --exclude-per-directory NAME): no '/', not '-' */
    SHC_ROLE_PLAIN,      /* bat -p: twice (-pp) means no pager */
    SHC_ROLE_STYLE,      /* bat -n/--number/--style: clap drops the -p given before them */
    SHC_ROLE_NOREVS,     /* git grep --no-index/--untracked: no operand is a revision */
    SHC_ROLE_NUL,        /* xargs -0: names end at NUL bytes, nothing else is special */
    SHC_ROLE_NOEMPTY,    /* xargs -r: no input, no command */
    SHC_ROLE_REPLACE,    /* xargs -I R: R in the command's words is replaced by each name */
    SHC_ROLE_TABS,       /* bat --tabs N: every tab becomes up to N spaces (at most SHC_MAX_TABS;
                            --tabs=1000000000 never ends on a file with tabs) */
    SHC_ROLE_TEXT,       /* grep -a/--binary-files, rg -a/--binary, ag -a/-u: files with NUL bytes are read
                            whole (a sparse 4 TiB file in a walked tree never ends) */
    SHC_ROLE_PCRE,       /* grep -P, git grep -P, rg -P/--engine/--auto-hybrid-regex: the pattern goes
                            to a backtracking engine (rg --engine=default does not) */
    SHC_ROLE_LITERAL,    /* ag -Q, ack -Q: the pattern is a literal string */
    SHC_ROLE_PROCS,      /* xargs -P, rg -j, git grep --threads: 1 to SHC_MAX_PROCS (xargs -P 0
                            means as many processes as names) */
    SHC_ROLE_REGEX,      /* ag -G: another regular expression, matched by the tool's engine */
    SHC_ROLE_WILDMATCH,  /* git ls-files -x: a pattern git matches with wildmatch (at most
                            SHC_MAX_DOUBLESTARS `**`) */
    SHC_ROLE_ECHO,       /* a string the tool prints again for every match, line or entry (rg -r,
                            nl -s, cut --output-delimiter, separators, time formats): at most
                            SHC_MAX_ECHO bytes, its %-widths together at most SHC_MAX_WIDTH */
} shc_role;

/* How a command's real option parser reads argv (tools.def, SHC_CMD).  Each family is
 * implemented in opts.c after the real parser (the evidence is in each tools/NAME.def). */
typedef enum shc_family {
    SHC_FAM_GNU,     /* glibc getopt_long: clusters, -n5 / -n 5 (any next word is the value),
                        --name=v / --name v, optional values attached only, --, permutation */
    SHC_FAM_CLAP,    /* clap 2/3/4 and lexopt (rg, fd, bat): no long prefixes, a next word that
                        starts with '-' is an option (unless SHC_HYPHEN), -n=5 drops the '=',
                        a repeated value option swallows the following words (clap 2) */
    SHC_FAM_PERL,    /* Getopt::Long with bundling (ack): like GNU, but --X names the letter X and
                        early passes read some --words wherever they are */
    SHC_FAM_GIT,     /* git's parse-options (git grep, git ls-files): no prefixes here, --no-X,
                        --end-of-options, bare ( and ) are options of git grep */
    SHC_FAM_GITMAIN, /* git.c handle_options: whole words only, no clusters, stops at the
                        subcommand */
    SHC_FAM_TREE,    /* tree's own loop: a value letter takes the next word even inside a
                        cluster; long options compared whole */
    SHC_FAM_BASH,    /* bash's builtin getopt (cd): letters only, stops at the first operand */
} shc_family;

/* Command flags (SHC_CMD in tools.def). */
enum {
    SHC_ABBREV = 1,      /* unique prefixes of long options (checked against the real table) */
    SHC_STOP = 2,        /* options end at the first operand ('+' in the optstring, parse-options
                            STOP_AT_NON_OPTION) */
    SHC_DIGITS_HEAD = 4, /* -NUM is a count as the first argument only (coreutils head) */
    SHC_DIGITS_TAIL = 8, /* -NUM as the first argument with one file at most (coreutils tail) */
    SHC_DIGITS_ANY = 16, /* a word -NUM anywhere is a count (GNU grep, git grep) */
};

/* Option flags (SHC_OPTX in tools.def); only the clap family reads them. */
enum {
    SHC_MULTI = 1,  /* the option may be repeated (values accumulate) */
    SHC_HYPHEN = 2, /* a next word that starts with '-' may be its value */
};

typedef struct shc_opt {
    char short_name;       /* 0 when the option has no short form */
    const char *long_name; /* without the dashes; NULL when none */
    shc_arg arg;
    shc_role role;
    unsigned flags;     /* SHC_MULTI, SHC_HYPHEN */
    const char *danger; /* NULL, or why the option makes the command a terminal command */
} shc_opt;

/* The commands the policy knows (expanded from tools.def). */
typedef enum shc_cmd_id {
#define SHC_CMD(id, name, fam, flags) SHC_CMD_##id,
#define SHC_OPT(s, l, a, r, d)
#define SHC_OPTX(s, l, a, r, f, d)
#define SHC_END(id)
#include "classify/tools.def"
#undef SHC_CMD
#undef SHC_OPT
#undef SHC_OPTX
#undef SHC_END
    SHC_CMD__COUNT
} shc_cmd_id;

typedef struct shc_cmdspec {
    const char *name;
    size_t len; /* strlen(name) */
    shc_cmd_id id;
    const shc_opt *opts; /* terminated by an all-zero entry */
    shc_family family;
    unsigned flags; /* SHC_ABBREV, SHC_STOP, SHC_DIGITS_* */
} shc_cmdspec;

/* filter.c: the input budget of a pipeline's named files (SHC_INPUT_MAX, or
 * SHC_COLUMN_INPUT_MAX when a stage is column). */
long long shc__pipe_input_max(const shc_node *const *stages, size_t n);
/* The spec for a command name (egrep/fgrep/batcat/fdfind are aliases), or NULL. */
const shc_cmdspec *shc__policy_lookup(const char *name, size_t len);
/* The spec for an internal table (git's sub-tables), never NULL. */
const shc_cmdspec *shc__policy_spec(shc_cmd_id id);

/* ------------------------------------------------------------------ option parsing */

#include "classify/bounds.h" /* SHC_MAX_ARGS and the bounds on option values */

typedef struct shc_optval {
    const shc_opt *opt;
    const char *value; /* borrowed; NULL for a flag */
    size_t argi;       /* index of the word that carried it (or its value) */
} shc_optval;

typedef struct shc_operand {
    const char *value;
    size_t argi;
    bool after_dashdash;
} shc_operand;

typedef struct shc_optres {
    shc_optval opts[SHC_MAX_ARGS];
    size_t nopts;
    shc_operand ops[SHC_MAX_ARGS];
    size_t nops;
} shc_optres;

/* The outcome of a rule.  Strings are borrowed from the argv passed in (or static). */
typedef struct shc_rule {
    shc_kind kind;     /* SHC_KIND_TERMINAL when rejected */
    const char *path;  /* file read / search root / listed directory, or NULL */
    const char *query; /* search pattern, or NULL */
    long line;         /* first line shown (1-based), or 0 */
    long line_end;     /* last line shown, 0 when open-ended or none */
    bool last_line;    /* sed -n '$p' */
    bool wants_stdin;  /* a read command without file operand: `< FILE` may supply it */
    bool whole_output; /* the output is the file line by line (cat, nl, bat): filters may set a line
                        */
    bool pages;        /* on a terminal it starts a pager (bat, git grep): only piped is it safe */
    bool shallow;      /* ls without -R: it opens only the directories it names, so / and the
                          system directories may be listed */
    bool nul_files;    /* find ... -type f ... -print0 and no other output: NUL-terminated names
                          of regular files, each starting with a root (exec.c feeds xargs -0) */
    bool rc_files;     /* ack without --noenv: it reads .ackrc/_ackrc from its directory up */
    bool pathspecs;    /* paths[] are git pathspecs: a pattern covers its literal directory */
    bool whole_files;  /* git grep --no-index/--untracked: each walked file is read to its end
                          when its first block has no NUL (shc_ignbudget.whole_files) */
    long long input_max; /* bytes the named files may hold together (SHC_INPUT_MAX; a
                            pipeline with column less: shc__pipe_input_max) */
    bool tracked_reads; /* git grep, git ls-files -m: the tracked work-tree files its pathspecs
                           select are read whole (rundir.c bounds them together) */
    bool blobs;        /* bat with its change gutter (or --diff): libgit2 reads the file's
                          index blob whole */
    char more[64];     /* further sed ranges for the title (", 40-60, last line"), or "" */
    const char *paths[SHC_MAX_ARGS]; /* every path operand (search roots, listed dirs) */
    size_t npaths;
    /* Every other file the command opens for reading: values of file-valued options
     * (SHC_ROLE_FILE).  classify.c joins each onto the cd prefix, normalises it and checks it
     * as it checks paths[] (stdin '-', devices, process files). */
    const char *inputs[SHC_MAX_ARGS];
    size_t input_argi[SHC_MAX_ARGS]; /* the word that carried each input */
    size_t ninputs;
    char reason[160]; /* why terminal, or which rule accepted */
    size_t argi;      /* the word that decided (0 = the command name) */
} shc_rule;

/* The first / last option with this role, or NULL; how many have it. */
const shc_optval *shc__opt_first(const shc_optres *res, shc_role role);
const shc_optval *shc__opt_last(const shc_optres *res, shc_role role);
size_t shc__opt_count(const shc_optres *res, shc_role role);

/* Parses argv[start..argc) against spec with its family's rules (opts.c): clusters, values,
 * --, permutation, prefixes, -NUM, repeats.  permute false makes options end at the first
 * operand whatever the family (cd, git's global options).  Values of SHC_ROLE_FILE options go
 * to r->inputs.  Returns 0, or -1 with r->reason and r->argi set.  For a git SHC_STOP command
 * the words after the options are left raw in res->ops, `--` included (git grep reads them). */
int shc__opts_parse(shc_optres *res,
                    shc_rule *r,
                    const shc_cmdspec *spec,
                    const char *const *argv,
                    size_t start,
                    size_t argc,
                    bool permute);

/* Classifies the primary command of a pipeline: argv[0] is the command name (already known
 * to be a plain word).  Fills r; r->kind is SHC_KIND_TERMINAL with a reason when rejected. */
void shc__policy_primary(shc_rule *r, const char *const *argv, size_t argc);

/* find: its own predicate allowlist (find.c).  Same contract as shc__policy_primary. */
void shc__policy_find(shc_rule *r, const char *const *argv, size_t argc);
/* find's predicate table, entry i (for the table dump the option oracle is generated from):
 * its name, or NULL past the end; *nargs the words it takes, *danger NULL or why it rejects. */
const char *shc__find_pred(size_t i, unsigned *nargs, const char **danger);

/* git: its global options, then git grep or git ls-files (git.c).  Same contract. */
void shc__policy_git(shc_rule *r, const char *const *argv, size_t argc);

/* A git pathspec p (no magic: a leading ':' rejects first) as git matches it: false when it is
 * a literal path; true when it holds a glob character (`*`, `?`, `[`, or a `\` escape), and
 * then *dirlen is the length of its literal directory, the part before the first glob
 * character cut back after the last '/' (0: the directory git runs in).  git matches such a
 * pattern against every path below that directory (`*` crosses '/'), so it walks all of it. */
bool shc__pathspec_pattern(const char *p, size_t *dirlen);
/* tables.c: why a glibc regex (git grep without -F/-P, nl -b pRE) is outside the stated subset
 * (it holds a repetition: quadratic in a long line), or NULL. */
const char *shc__glibc_repeat_why(const char *v);
extern const char *const shc__glibc_long_why;
/* Whether v holds a character git's is_fixed() calls special (git grep then uses glibc's
 * matcher, not its fixed-string one). */
bool shc__regex_special(const char *v);
/* Whether the tool cmd (its table name) matches with the Rust regex crate (rg, fd). */
bool shc__rust_regex(const char *cmd);

/* Whether git may read s as a revision (a ref name, an object name, rev:path, @{...}, a
 * describe name): false only when no ref can have that name and no other revision syntax
 * applies (".", "src/", "*.c").  Reading a revision reads objects, which a partial clone
 * fetches from its remote. */
bool shc__git_maybe_rev(const char *s);

/* Checks a later pipeline stage: a pure filter that reads only stdin.  Returns true when
 * allowed; otherwise fills r->reason and r->argi.  When the filter names the first line
 * shown (sed -n N,Mp, tail -n +N), *line and *line_end receive it. */
bool shc__policy_filter(
    shc_rule *r, const char *const *argv, size_t argc, long *line, long *line_end);

/* With the real directory, a filter whose cost or side effects grow faster than its input
 * (sort: it spills temporary files past SHC_SORT_PIPE_MAX; column -t/-J: it pads every cell to
 * its column's widest, SHC_TABLE_MAX) needs *piped, the most bytes the stages before it write
 * (-1: not known), within its bound: true with msg set when not.  Then *piped becomes what
 * this filter writes at most (-1 unless shc__stage_no_growth). */
bool shc__filter_bytes(long long *piped, const char *const *argv, size_t argc, char *msg,
                       size_t cap);
#define SHC_SORT_PIPE_MAX (128LL << 10) /* GNU sort 9.1 spilled 256 KiB of "a\n" lines from a
                                           pipe, not 192 KiB, nor 4 MB of long lines */
#define SHC_TABLE_MAX (32LL << 10) /* S bytes make at most S/2 rows of at most S: 512 MiB */
/* Whether a stage (the primary or a filter) writes at most the bytes it reads: head, tail,
 * sort, tr and wc with any option, cat, grep and uniq without one. */
bool shc__stage_no_growth(const char *const *argv, size_t argc);

/* ------------------------------------------------------------------ exec.c */

/* A grep that another command runs on file names it supplies (find -exec, xargs): argv[cmd] is
 * the command name, argv[cmd+1..end) its words.  ph is the placeholder word standing for the
 * names ("{}" for find -exec, R for xargs -I R), or NULL when xargs appends the names after
 * the words.  Accepted when the command is grep (egrep, fgrep) with allowlisted options, no
 * recursion (-r, -R, -d: a name on the command line that is a link would be followed), no
 * backreference, its pattern among its own words, and the placeholder exactly once, a word of
 * its own, in a file operand's place.  Sets r->query (borrowed from argv); other file operands
 * and file-valued options go to r->inputs.  Returns 0 or -1 (r rejected). */
int shc__exec_grep(shc_rule *r, const char *const *argv, size_t cmd, size_t end, const char *ph);

/* xargs as the stage after the primary p (exec.c): `xargs -0 -r|-I R grep ...` fed by find
 * ... -print0 (p->nul_files) through pipe, whose first stage's stderr must not reach the pipe.
 * On acceptance p becomes the search (query = grep's pattern) and true is returned; otherwise
 * r is rejected. */
bool shc__policy_xargs(shc_rule *r, shc_rule *p, const shc_node *pipe, const char *const *argv,
                       size_t argc);

/* ------------------------------------------------------------------ wordcheck.c */

/* Whether w's value is exactly what the program sees (no $, glob, brace, tilde, NUL, control
 * character, look-alike of ; & | or a line separator); otherwise false and why ("WHAT: ..."). */
bool shc__word_static(const shc_word *w, const char *what, char *why, size_t cap);
/* A word that is exactly an unquoted `~` or `~/...` (bash: $HOME, or HOME's passwd entry). */
bool shc__home_word(const shc_word *w);
/* An unquoted word `--OPT=GLOB` of cmd whose option takes a glob pattern (grep --include=,
 * rg --glob=): whatever bash expands it to is the same option. */
bool shc__glob_option(const char *cmd, const shc_word *w);
/* Whether every word of the primary that shc__glob_option accepted is read by the tool as that
 * option with its value after '=' (not an operand, not another option's value). */
bool shc__glob_options_placed(const shc_word *words, const char *const *argv, size_t argc);

/* ------------------------------------------------------------------ sed.c */

/* Parses a sed script under -n: one or more `N`, `N,M`, `$`, `N,$` each followed by `p`,
 * separated by `;`.  Returns 0 and the first range (end 0 for `$`, *last for `$p`), the others
 * written into more (", 40-60, last line"), or -1. */
int shc__sed_range(const char *script, long *first, long *end, bool *last, char *more,
                   size_t morecap);

/* sed under -n with one script of N[,M]p ranges (operand or single -e).  *files is the index of
 * the first file operand; further ranges go to r->more.  Returns 0 or -1 (r rejected). */
int shc__sed_script(
    shc_rule *r, const shc_optres *res, size_t *files, long *line, long *end, bool *last);

/* ------------------------------------------------------------------ values.c */

/* A non-negative decimal number of at most 9 digits, s[0..n).  Returns 0 or -1. */
int shc__parse_num(const char *s, size_t n, long *out);

/* head/tail -n/-c values ([-+]digits; tail +N sets r->line).  Returns 0 or -1 (r rejected). */
int shc__check_counts(shc_rule *r, const char *cmd, const shc_optres *res, bool tail);

/* Whether a regular expression holds a backreference (\1 to \9). */
bool shc__has_backref(const char *pat);
/* Every SHC_ROLE_PATTERN value and the operand pattern (may be NULL): a backreference or an
 * interval rejects (GNU grep, git grep).  Returns 0 or -1 (r rejected). */
int shc__check_patterns(shc_rule *r, const char *cmd, const shc_optres *res, const char *operand,
                        size_t operand_argi);
/* Text mode on files the command line does not name (red team, breadth round: grep -a or
 * --binary-files=text in a recursive grep or in find -exec / xargs grep, rg -a/--text/--binary/-uuu):
 * a sparse 4 TiB file in the walked tree is then read to its end, hole by hole, instead of being
 * skipped as binary.  Rejects when any such option is present (whatever follows it).
 * Returns 0 or -1 (r rejected). */
int shc__check_text_mode(shc_rule *r, const char *cmd, const shc_optres *res);
/* Why a glibc regex may not finish (a backreference, or an interval that nested copies
 * multiply), or NULL. */
const char *shc__regex_bomb(const char *pat);
/* The widths and precisions of the %-directives of a printf or strftime format f, added up
 * (over SHC_MAX_WIDTH when one of them is); *directives (may be NULL) gets their number. */
long shc__fmt_widths(const char *f, unsigned *directives);
/* How many times c occurs in s. */
size_t shc__count_char(const char *s, char c);
/* patfile.c: the most `**` on one line of s (a wildmatch pattern, lines of a git ignore file). */
unsigned shc__doublestars(const char *s);
/* patfile.c: the n bytes of a pattern file read line by line as the tools read them (a quoted
 * pattern as git decodes it): with git, no line of more than SHC_MAX_DOUBLESTARS `**`; with
 * weight (NULL: the file was counted already), its wildcard lines taken from *weight.  Why
 * not, or NULL. */
const char *shc__pattern_lines(const char *buf, size_t n, bool git, long long *weight);
/* Why a backtracking engine (PCRE2, Perl) may not match pat in bounded time, or NULL when pat
 * is in the safe subset (values.c states it). */
const char *shc__backtrack_unsafe(const char *pat);
/* The patterns of a command whose engine may backtrack: with always (ag, ack), or when an
 * SHC_ROLE_PCRE option chose such an engine, every SHC_ROLE_PATTERN value, the operand (may be
 * NULL; skipped with SHC_ROLE_LITERAL) and every SHC_ROLE_REGEX value must be in the subset.
 * Returns 0 or -1 (r rejected). */
int shc__check_engine(shc_rule *r, const char *cmd, const shc_optres *res, const char *operand,
                      size_t operand_argi, bool always);
/* nl -b/-h/-f pREGEX and tree -P/-I patterns.  Return 0 or -1 (r rejected). */
int shc__check_nl_styles(shc_rule *r, const shc_optres *res);
int shc__check_tree_patterns(shc_rule *r, const shc_optres *res);

/* ------------------------------------------------------------------ paths.c */

/* A path after lexical normalisation (paths.c): norm is "/a/b" (components joined with '/',
 * "" for none); absolute, or relative to the unknown starting directory after climbing `climb`
 * levels above it. */
typedef struct shc_path {
    char norm[4096];
    bool absolute;
    unsigned climb;
    bool linkup; /* a `..` of the path removed a component that may be a symbolic link */
} shc_path;

enum {
    SHC_PATH_STDIN = 1u << 0,   /* "-": standard input */
    SHC_PATH_ROOT = 1u << 1,    /* is, or may be, the whole filesystem */
    SHC_PATH_SPECIAL = 1u << 2, /* is, or may be, under /dev, /proc, /sys, /run (or /var/run) */
    SHC_PATH_TOOLONG = 1u << 3, /* too long to judge */
    SHC_PATH_LINKUP = 1u << 4,  /* `..` after a component that may be a symbolic link: where it
                                   leads is known only to the kernel (paths.c) */
};

/* Normalises p, joined onto base when p is relative (base: NULL for the unknown starting
 * directory, or an absolute or relative directory).  Returns 0, or -1 when it is too long. */
int shc__path_norm(shc_path *out, const char *base, const char *p);
/* SHC_PATH_ROOT / SHC_PATH_SPECIAL for a normalised path, or 0. */
unsigned shc__path_judge(const shc_path *np);
/* "-" is SHC_PATH_STDIN; otherwise normalises into *np and judges it. */
unsigned shc__path_check(const char *base, const char *p, shc_path *np);
/* The judgements of bad that a shallow listing (ls without -R) of p may drop: the root, and a
 * top system directory written as itself (paths.c). */
unsigned shc__path_shallow(const char *base, const char *p, bool shallow, unsigned bad);
/* Whether p, as written after the `cd` prefix cd (the real directory left out), is absolute or
 * climbs out and names a system directory whose walk is most of the file system: a child of `/`
 * such as /usr, /etc, /home, /var, or /usr/lib, /usr/share and the like.  A recursive walk of
 * one is terminal in every context. */
bool shc__path_system_root(const char *cd, const char *p);
/* Whether a word names, or may name, a device or process file: the word itself or any piece of
 * it after '=', ':' or ',' (an option's value) that contains '/'. */
bool shc__word_names_special(const char *w);
/* For a real absolute path: why reading it may block ("a FIFO ...", "a device", "a socket"),
 * following symlinks; NULL for a regular file, a directory, or a name that does not exist. */
const char *shc__path_stat(const char *abs_path);
/* Whether the kernel's walk of the absolute path abs meets a symbolic link whose text names a
 * proc, dev, sys or run directory, or is led by a link into one of them: /proc/self/fd/N,
 * /proc/self/cwd, /dev/stdin and their kind resolve per process (realpath() here answers for
 * shcard's own process, not the command's), also at the end of a chain of links (a -> c,
 * c -> /proc/self/fd/2) or from a `cd` directory.  Every link on the way is followed as the
 * kernel follows it, `..` after it; true also when the walk cannot be followed here (over 40
 * links, too long, not absolute).  False in the WebAssembly build (no readlink there). */
bool shc__path_magic(const char *abs);

/* ------------------------------------------------------------------ fstype.c */

/* The name of the special or network file system abs is on (statfs(): proc, sysfs, devpts,
 * tracefs, debugfs, cgroup, bpf, securityfs, configfs, efivarfs, nfs, cifs, fuse, autofs, ...),
 * or NULL (also when abs is missing, and in the WebAssembly build). */
const char *shc__fs_special(const char *abs);
/* Why a walk of the real directory dir may enter such a file system (a mount point at or below
 * it in /proc/self/mountinfo, read within 1 MiB; where gets the mount point and its type), or
 * NULL. */
const char *shc__fs_mounts_below(const char *dir, char *where, size_t cap);

/* ------------------------------------------------------------------ resolve.c */

/* Bytes of ignore patterns a command may read: all the ignore files of a walk's parents
 * together, and each file-valued option's list of patterns (rg with 1 MiB of globs in .ignore:
 * 6 s and 180 MB; 64 KiB: 0.5 s, fd 1.2 s). */
#define SHC_IGNORE_MAX (64L << 10)
/* The wildcard lines of a command's pattern files together: a line with `*`, `?` or `[` weighs
 * 1, times 8 for each `**` in it (git matches every line against every path: 19,000 paths 60
 * deep cost about 10 ms a one-`**` line and 280 ms a two-`**` line). */
#define SHC_PATTERN_WEIGHT 256
#define SHC_PATTERN_LINE 4096 /* the longest pattern line with a '*' judged */
/* Bytes of the regular files one command names, together (`cat b b b ...` read a 1 GiB file
 * once per word; the per-file bound is the same 1 GiB). */
#define SHC_INPUT_MAX (1LL << 30)
/* ... and when column reads them (any stage: it keeps every entry as a wide string and a
 * cell, about 20x the input, at about 2 us a byte: 400 KB took 0.7 s and 9.5 MB). */
#define SHC_COLUMN_INPUT_MAX (4LL << 20)
#define SHC_TREE_MAX_ENTRIES 20000 /* entries below a command's walked roots, together */
#define SHC_MATCH_PATH_MAX 1024 /* the longest path below a searched root: grep -rn, git grep,
                                   rg/ag piped print it before every matching line (a 3,780-byte
                                   path and 4 MB of 4-byte lines wrote 3.8 GB); 1 KiB keeps that
                                   within (1024 + 24) / 2 = 524 times the input, the order of a
                                   SHC_MAX_ECHO string per match */
#define SHC_TREE_MAX_NAMES (8LL << 20) /* bytes of their full paths together (find prints each) */

/* The physical directory a command runs in: real_cwd after the `cd` chain (NULL: none), as bash
 * reaches it (the lexical name first, then the name as written; physical: `cd -P`) and the
 * kernel resolves it.  Written into buf; NULL when too long. */
/* The path judged for the git pathspec q: q itself when literal; for a pattern
 * (shc__pathspec_pattern) its literal directory, copied into buf, when subtree (the bridge's
 * scan of it will run); NULL with why in msg otherwise, and when the environment sets
 * GIT_*_PATHSPECS. */
const char *shc__pathspec_judged(const char *q, bool subtree, char *buf, size_t cap, char *msg,
                                 size_t mcap);
const char *shc__cd_base(const char *real_cwd, const char *chain, bool physical, char *buf,
                         size_t cap);
/* The ignore-file budgets of one command, shared by every path it names and by the resolved,
 * written and starting chains of each (rg and fd compile the ignore files of every root): a
 * file seen twice (by device and inode) is counted once. */
typedef struct shc_ignbudget {
    long long ignore; /* the parents' ignore files and the git directory's info/ files */
    long long tree;   /* the ignore files below walked roots (the bridge's tree scan) */
    long long wild;   /* SHC_PATTERN_WEIGHT: the wildcard lines of every pattern file read */
    long long input;  /* bytes the command's named regular files may still hold, together */
    size_t entries;   /* entries seen below walked roots, every root together (the tree scan) */
    long long names;  /* bytes of full paths those entries may still hold together */
    bool globals;     /* the user's global files judged (shc__global_check, once a command) */
    bool subtree;     /* the tool walks below its roots (not ls without -R): a root that
                         resolves to a system directory is terminal (shc__path_real) */
    bool blobs;       /* bat's change gutter: a git work tree around a file is terminal */
    bool per_match;   /* a search: it may print a walked file's path before every matching
                         line, so no path below a root may pass SHC_MATCH_PATH_MAX */
    bool whole_files; /* the tool reads each walked file to its end when its first block has no
                         NUL (ag, ack, git grep --no-index/--untracked): the walked regular files
                         count in input */
    size_t nseen;
    struct {
        unsigned long long dev, ino;
    } seen[64];
} shc_ignbudget;
void shc__ignbudget_init(shc_ignbudget *b);
/* With the real directory: p as the kernel resolves it from kbase (the physical directory;
 * ignored when p is absolute), lexical the written path joined and normalised, cmd the tool.
 * Judges where it leads (the judgements in bad; SHC_PATH_ROOT in bad: the tool walks), what it
 * is (shc__path_stat; what names it: "file", "directory", "pattern file": at most
 * SHC_IGNORE_MAX), the repository and ignore files of the resolved and the written chain for a
 * walk or for git and bat (shc__repo_check), and with deep, for every walk, the tree below it
 * (shc__tree_check: a walk of the tree, milliseconds a command, so only where the command will
 * run, the bridge context).
 * Returns true with msg set when the command is terminal. */
bool shc__path_real(const char *kbase, const char *p, const char *lexical, unsigned bad,
                    const char *cmd, bool deep, const char *what, shc_ignbudget *b, char *msg,
                    size_t cap);

/* ------------------------------------------------------------------ repo.c */

/* For a real absolute directory (or file) a command walks or reads: the files the tool reads
 * without being told -- ignore files there and in every parent (walks), the git directory's
 * files and configuration (git: git and bat) -- must be regular files, not huge, and the git
 * configuration must name no key that runs programs or reads other files.  Returns why not
 * (what names the file), or NULL. */
const char *shc__repo_check(const char *abs_dir, bool walks, bool git, bool objects,
                            shc_ignbudget *b, char *what, size_t cap);
/* Whether the git directory g (and the common directory it names) is ordinary: regular files
 * and directories only, no symbolic link, no alternates, no file over its bound, at most
 * 20000 entries, every config naming no risky key; the object store too with objects (bat's
 * libgit2 reads blobs; git ls-files and worktree git grep read none).  Its answer depends only
 * on that directory tree (a caller may cache it per directory and modification times).  Why
 * not, or NULL. */
const char *shc__git_dir_ordinary(const char *g, bool objects, char *what, size_t cap);
/* The git directory g as a tool reads it: with whole, shc__git_dir_ordinary() (git; objects as
 * there); always its info/ files and its common directory's in the ignore budget (the walkers
 * read those).  Why not (what names the file), or NULL. */
const char *shc__git_dir_judge(const char *g, bool whole, bool objects, shc_ignbudget *b,
                               char *what, size_t cap);
/* The git directory for the work tree directory d: d/.git, or the `gitdir:` a .git file names
 * (read whole, as git does).  1 with g set, 0 when d has no .git, -1 (why set) when it cannot
 * be judged (a .git that is neither a directory nor a small regular file). */
int shc__git_dir_of(const char *d, char *g, size_t cap, const char **why);

/* ------------------------------------------------------------------ gitdir.c */

/* out = dir/name ("/name" for the root); -1 when it does not fit in cap. */
int shc__path_join(char *out, size_t cap, const char *dir, const char *name);
/* A path file as git reads it (`.git`'s gitdir line, commondir): the whole file, only trailing
 * newlines and carriage returns stripped (a newline inside is part of the path).  1 with out
 * set; 0 when it cannot be opened; -1 when it is too long or a control character is left in
 * it (shcard would judge another directory than git uses). */
int shc__read_pathfile(const char *path, char *out, size_t cap);
/* Whether git surely takes the directory g as its repository and stops looking in the
 * parents (git's is_git_directory, stricter: a HEAD naming a ref or an object, searchable
 * objects/ and refs/, no commondir). */
bool shc__git_stops_at(const char *g);

/* For a directory a tool walks (the bridge context): every root of the command together at
 * most SHC_TREE_MAX_ENTRIES entries and SHC_TREE_MAX_NAMES bytes of full paths, 64 levels, no
 * mount of a special or network file system inside (shc__fs_special); with ignores (rg, fd, ag,
 * git), each ignore file below it plain and at most 64 KiB, all of them 256 KiB together, every
 * nested .git judged with shc__git_dir_judge() (whole for git); with b->whole_files, the
 * regular files in the input budget.  Why not, or NULL. */
const char *shc__tree_check(const char *abs_dir, bool ignores, bool git, shc_ignbudget *b,
                            char *what, size_t cap);

/* The pattern file at the absolute path p judged as an ignore file: regular (or missing), within
 * the pattern budget, and with git, no line of more than SHC_MAX_DOUBLESTARS `**`.  Why not (what
 * names it), or NULL. */
const char *shc__pattern_file(const char *p, bool git, shc_ignbudget *b, char *what, size_t cap);
/* A configuration file the tool reads (git's global config): plain and within the byte budget
 * like a pattern file, but its lines are no patterns (no weight).  Why not, or NULL. */
const char *shc__config_file(const char *p, shc_ignbudget *b, char *what, size_t cap);
/* globals.c: the user's global files the tool cmd reads whatever the directory (git's global
 * configuration, excludes and attributes files; rg's and fd's global ignore files; ag's
 * ~/.agignore), each judged with shc__pattern_file.  Why not, or NULL. */
const char *shc__global_check(const char *cmd, shc_ignbudget *b, char *what, size_t cap);

/* ------------------------------------------------------------------ rundir.c */

/* What the command's tool reads from the directory its process runs in (kbase, physical) that
 * no path names: ack's project .ackrc (r->rc_files), the submodules git may enter (cmd "git"),
 * and for git grep and git ls-files -m (r->tracked_reads) the tracked work-tree files below the
 * common top of kbase and every pathspec's literal directory, 1 GiB together.
 * Returns true with msg set when the command is terminal. */
bool shc__rundir_check(const char *kbase, const char *cmd, const shc_rule *r,
                       shc_ignbudget *b, char *msg, size_t cap);

/* ------------------------------------------------------------------ opts.c: rule results */

/* Resets r to an empty terminal rule (cheaper than zeroing the whole struct). */
void shc__rule_init(shc_rule *r);

/* Sets r to terminal with a formatted reason; returns -1. */
int shc__reject(shc_rule *r, size_t argi, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether s is one or more ASCII digits. */
bool shc__all_digits(const char *s);

#endif
