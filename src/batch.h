/* The --batch loop shared by `shcard parse` and `shcard explain`: lines of JSON objects with a
 * "cmd" string in, one JSON object per line out, in order.  A line that is not valid JSON, or
 * has no "cmd" string, gets {"error": {...}, "line": N} and the batch goes on. */
#ifndef SHC_BATCH_H
#define SHC_BATCH_H

#include <jansson.h>
#include <stdio.h>

/* Returns the object to print for one command (a new reference); may set *status to 1. */
typedef json_t *(*shc_batch_fn)(const char *cmd, size_t len, void *payload, int *status);

/* Returns 0 when every line gave a result without setting status, 1 otherwise. */
int shc__batch(FILE *in, shc_batch_fn fn, void *payload);

/* Writes o as one compact line on stdout and flushes. */
void shc__print_json_line(const json_t *o);

#endif
