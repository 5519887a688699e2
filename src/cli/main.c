/* src/cli/ owns the shcard binary: main (this file) dispatches the subcommands, each a thin
 * cmd_NAME.c over the library (parse, explain, run, acp, login), and batch.c is the --batch loop that
 * parse and explain share.  cmd_acp.c is where a backend is picked.  May use: every folder.
 *
 * shcard: one binary, five subcommands (parse, explain, run, acp, login). */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "shcard.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} cmds[] = {
    {"parse", shc_cmd_parse, "parse [OPTION]... CMD...      show the syntax tree of commands"},
    {"explain", shc_cmd_explain, "explain [OPTION]... CMD...    show the card each command gets"},
    {"run", shc_cmd_run, "run [OPTION]... SCRIPT | [--] CMD ARG...   run a command on a PTY"},
    {"acp", shc_cmd_acp, "acp [OPTION]...              ACP agent on stdio (Zed and other clients)"},
    {"login", shc_cmd_login, "login [OPTION]...            set up the model (or shell mode) for acp"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: shcard COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(f, "  shcard %s\n", cmds[i].help);
    fprintf(f, "\n'shcard COMMAND --help' lists the options of a command (each with its default);\n"
               "'shcard --version' (or -V) prints the version.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
        printf("shcard %s\n", SHC_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1); /* argv[0]: the command's name */
    fprintf(stderr, "shcard: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
