/* The shcard subcommands.  Each takes its name and the arguments after it (argv[0] is the name, as
 * getopt_long wants) and returns the exit status.  stdout belongs to the command's output (or to
 * the ACP protocol writer); diagnostics go to stderr. */
#ifndef SHC_CMD_H
#define SHC_CMD_H

int shc_cmd_parse(int argc, char **argv);
int shc_cmd_explain(int argc, char **argv);
int shc_cmd_run(int argc, char **argv);
int shc_cmd_acp(int argc, char **argv);
int shc_cmd_login(int argc, char **argv);
/* The interactive setup with the config file --config named (NULL: the default one). */
int shc_cmd_login_config(const char *config_path);

#endif
