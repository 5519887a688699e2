/* The one option parser of the subcommands: getopt_long over a table with one row per option.
 * A row names the option (long, and short when it has one), the kind of value it takes (none,
 * text, a whole number or a decimal number in a range, one word of a list), the value's name and
 * default as --help shows them, and the help text; the parser checks the value the same way for
 * `--opt=value` and `--opt value`, and hands it to the command's set() by the row's id.  --help
 * (-h) and --version (-V) come with every table, and --help is printed from it: adding an option
 * is one row (and, unless it only sets a flag the set() already knows, one case in set()).
 *
 * GNU conventions: options and operands may be mixed (`explain ls --json`) unless the command
 * takes a command line as operands (`run`: options stop at the first operand, as with env(1));
 * `--` ends the options; a unique prefix of a long option is accepted; an unknown option, a
 * missing or bad value is exit status 2 with a message on stderr naming the option. */
#ifndef SHC_CLI_ARGV_H
#define SHC_CLI_ARGV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum shc_cli_arg {
    SHC_ARG_NONE,   /* a flag */
    SHC_ARG_STR,    /* any text but the empty string */
    SHC_ARG_UINT,   /* a whole number from min to max (digits only) */
    SHC_ARG_NUM,    /* a decimal number from min to max (digits and one '.': 2.5) */
    SHC_ARG_CHOICE, /* one of the words of metavar, separated by '|' ("any|bridge") */
} shc_cli_arg;

typedef struct shc_cli_opt {
    const char *name;  /* the long name, without "--" */
    char short_name;   /* 0: none */
    shc_cli_arg arg;   /* what value it takes */
    const char *meta;  /* the value's name in --help ("DIR"), or the choices */
    double min, max;   /* SHC_ARG_UINT, SHC_ARG_NUM */
    const char *dflt;  /* the default as --help shows it; required for an option with a value */
    const char *help;  /* may hold '\n': continuation lines are indented under the first */
    int id;            /* what set() switches on */
} shc_cli_opt;

/* A checked value: str always (NULL for a flag), and u / num / choice for those kinds. */
typedef struct shc_cli_val {
    const char *str;
    unsigned long long u;
    double num;
    int choice; /* index in the row's choices */
} shc_cli_val;

/* Stores one option.  0, or nonzero with a message in err (the parser prints it and exits 2). */
typedef int (*shc_cli_set_fn)(void *ctx, const shc_cli_opt *opt, const shc_cli_val *val,
                              char *err, size_t errlen);

typedef struct shc_cli_cmd {
    const char *name;     /* "explain": messages say "shcard explain: ..." */
    const char *synopsis; /* what follows "shcard NAME " in the usage; '\n' between forms */
    const char *about;    /* what the command does, a few lines */
    const shc_cli_opt *opts;
    size_t nopts;
    shc_cli_set_fn set;
    const char *hint;     /* added to the message for an unknown option, or NULL */
    const char *epilog;   /* printed after the options (exit status), or NULL */
    bool stop_at_operand; /* the operands are a command line: options only before them */
} shc_cli_cmd;

enum { SHC_CLI_MAX_OPTS = 64 };
#define SHC_CLI_DONE (-1) /* --help or --version was printed: exit 0 */

/* Parses argv[1..argc) (argv[0] is the subcommand's name; argv may be permuted).  Returns 0 with
 * the operands in argv[*first..argc) and *dashdash telling whether `--` ended the options,
 * SHC_CLI_DONE after --help / --version, or 2 after printing a usage error on stderr. */
int shc__cli_parse(const shc_cli_cmd *cmd, int argc, char **argv, void *ctx, int *first,
                   bool *dashdash);

/* The usage, the options with their defaults, the epilog. */
void shc__cli_help(const shc_cli_cmd *cmd, FILE *f);

/* "shcard NAME: usage error text" and the pointer to --help, on stderr; returns 2. */
int shc__cli_usage_error(const shc_cli_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
