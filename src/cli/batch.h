/* The --batch loop shared by `shcard parse` and `shcard explain`: lines of JSON objects with a
 * "cmd" string in, one JSON object per line out, in order.  A line that is not valid JSON, or
 * has no "cmd" string, gets {"error": {...}, "line": N} and the batch goes on.
 *
 * The fast path reads the common line shape ({"cmd": "..."} and nothing else) without building
 * a JSON tree (batch_req.c) and asks jansson about anything else; it writes each answer in one
 * pass into an output buffer that is flushed when no more input is ready (so a client that
 * sends one line and waits gets its answer at once), when it grows past SHC_BATCH_FLUSH bytes,
 * and at the end.  The reference path is the one before it: every line through jansson, every
 * answer built as a tree and dumped, a flush per line.  Both give the same bytes; the fuzzer
 * fuzz/fuzz_batch.c and suite_batch check that. */
#ifndef SHC_BATCH_H
#define SHC_BATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/strbuf.h"

enum { SHC_BATCH_FLUSH = 64 * 1024 };

/* How a command answers, both ways.  Each may set *status to 1 (the exit status). */
typedef struct shc_batch_ops {
    /* appends the answer for cmd[0..len) to out: one JSON object, no newline */
    void (*write)(shc_strbuf *out, const char *cmd, size_t len, const void *payload, int *status);
    /* the same answer as a new jansson reference (NULL when out of memory) */
    json_t *(*tree)(const char *cmd, size_t len, const void *payload, int *status);
} shc_batch_ops;

/* The answers of `explain --batch` (payload: const shc_classify_opts *) and `parse --batch`
 * (payload: const bool *, unwrap). */
extern const shc_batch_ops shc__explain_batch, shc__parse_batch;

/* Reads fd to its end, writes the answers to out.  Returns 0 when every line gave a result
 * without setting status, 1 otherwise. */
int shc__batch(int fd, FILE *out, const shc_batch_ops *ops, const void *payload);
/* The reference path over a stream (tests/helpers/batch_ref.c runs it). */
int shc__batch_reference(FILE *in, FILE *out, const shc_batch_ops *ops, const void *payload);

/* One line (its newline removed; trailing CRs are removed here), numbered lineno from 1: appends
 * its answer and a newline to out; a blank line appends nothing.  reference picks the path;
 * scratch is reused between calls. */
void shc__batch_line(shc_strbuf *out,
                     shc_strbuf *scratch,
                     const char *line,
                     size_t len,
                     size_t lineno,
                     const shc_batch_ops *ops,
                     const void *payload,
                     int *status,
                     bool reference);

/* The fast request reader: when line[0..len) is exactly {"cmd": STRING} (JSON whitespace
 * anywhere between) and STRING is one jansson decodes, sets *cmd and *cmdlen to the decoded
 * bytes (into line when it has no escape, else into scratch) and returns true; returns false
 * for anything else, which the caller hands to jansson. */
bool shc__batch_request(
    const char *line, size_t len, shc_strbuf *scratch, const char **cmd, size_t *cmdlen);

/* One command from the command line: prints its result; returns 0, or 1 when it failed. */
typedef int (*shc_one_fn)(const char *cmd, size_t len, void *payload);

/* The shared tail of `parse` and `explain` after their options (argv[first..] are commands):
 * with batch, commands come from stdin (answered by each with batch_payload) and arguments are
 * a usage error; otherwise each argument is one command (one, with payload).  Returns the exit
 * status (0, 1, or 2 for a usage error). */
int shc__run_commands(const char *prog,
                      bool batch,
                      int argc,
                      char **argv,
                      int first,
                      shc_one_fn one,
                      void *payload,
                      const shc_batch_ops *each,
                      const void *batch_payload,
                      void (*usage)(FILE *));

/* Writes o as one compact line on stdout and flushes. */
void shc__print_json_line(const json_t *o);

#endif
