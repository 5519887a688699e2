/* Client text as bash words, for shell mode: quoting, @-mentions as path arguments, and a
 * prompt's blocks laid out as the lines shell mode runs.  Client text handed to bash through
 * here is always one quoted word: it is never parsed as shell syntax, whatever bytes it holds.
 * The one implementation of that rule (acp/ checks the blocks, the backends use this). */
#ifndef SHC_QUOTE_H
#define SHC_QUOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/backend.h"
#include "base/strbuf.h"

/* Appends s[0..n) as one bash word: bare when every byte is plainly safe, '...' (a ' inside
 * becomes '\'') when it holds no control character and is valid UTF-8, else $'...' with \xHH
 * escapes, so the word never spans a line and the command stays valid UTF-8. */
void shc_shell_quote(shc_strbuf *b, const char *s, size_t n);

/* The local path of a file URI ("file:///p" or "file://localhost/p", percent-decoded up to a
 * '?' or '#'), or NULL for any other URI.  *len is its length; *nul says it holds a NUL byte.
 * Owned. */
char *shc_file_uri_path(const char *uri, size_t *len, bool *nul);

/* What an @-mention names, unquoted: a file URI's path, relative to cwd when it is inside it
 * (also through a symlinked cwd; the cwd itself is "."), "./"-prefixed when it would start
 * with '-'; any other URI (or a path with a NUL) its text.  Owned; *len its length. */
char *shc_mention_path(const char *uri, const char *cwd, size_t *len);

/* Appends an @-mention as one word (shc_mention_path, then shc_shell_quote). */
void shc_mention_word(shc_strbuf *b, const char *uri, const char *cwd);

/* The prompt as the text shell mode runs, one command per line: typed text verbatim (two text
 * blocks in a row are two lines), every mention (resource_link, or an embedded resource: its
 * text is never run) one quoted word where it appears, separated from the text around it by a
 * space.  A line made only of mentions is context, not a command: it is left out and counted in
 * *context_only.  Owned, or NULL when out of memory. */
char *shc_shell_prompt(const shc_prompt_part *parts, size_t n, const char *cwd,
                       size_t *context_only);

#endif
