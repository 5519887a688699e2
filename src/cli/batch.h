/* The --batch loop shared by `shcard parse` and `shcard explain`: lines of JSON objects with a
 * "cmd" string in, one JSON object per line out, in order.  A line that is not valid JSON, or
 * has no "cmd" string, gets {"error": {...}, "line": N} and the batch goes on. */
#ifndef SHC_BATCH_H
#define SHC_BATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Returns the object to print for one command (a new reference); may set *status to 1. */
typedef json_t *(*shc_batch_fn)(const char *cmd, size_t len, void *payload, int *status);

/* Returns 0 when every line gave a result without setting status, 1 otherwise. */
int shc__batch(FILE *in, shc_batch_fn fn, void *payload);

/* One command from the command line: prints its result; returns 0, or 1 when it failed. */
typedef int (*shc_one_fn)(const char *cmd, size_t len, void *payload);

/* The shared tail of `parse` and `explain` after their options (argv[first..] are commands):
 * with batch, commands come from stdin and arguments are a usage error; otherwise each argument
 * is one command.  Returns the exit status (0, 1, or 2 for a usage error). */
int shc__run_commands(const char *prog, bool batch, int argc, char **argv, int first,
                      shc_one_fn one, shc_batch_fn each, void *payload, void (*usage)(FILE *));

/* Writes o as one compact line on stdout and flushes. */
void shc__print_json_line(const json_t *o);

#endif
