/* Shell words for text a client sent: quoting, and @-mentions as path arguments (shell mode).
 * Client text handed to bash through here is always one quoted word: it is never parsed as
 * shell syntax, whatever bytes it holds. */
#ifndef SHC_QUOTE_H
#define SHC_QUOTE_H

#include <stddef.h>

#include "base/strbuf.h"

/* Appends s[0..n) as one bash word: '...' (a ' inside becomes '\''), or $'...' with \xHH
 * escapes when s holds a control character, so the word never spans a line. */
void shc_shell_quote(shc_strbuf *b, const char *s, size_t n);

/* The local path of a file: URI ("file:///p" or "file://localhost/p", percent-decoded), or NULL
 * for any other URI or a path that decodes to a NUL byte.  Owned. */
char *shc_file_uri_path(const char *uri);

/* Appends an @-mention as one word: a file: URI becomes its path, relative to cwd when it is
 * inside it (and "./"-prefixed when it would start with '-'), any other URI the URI itself; then
 * quoted as shc_shell_quote does. */
void shc_mention_word(shc_strbuf *b, const char *uri, const char *cwd);

/* The path shc_mention_word would quote (not quoted), owned; for the model's text. */
char *shc_mention_path(const char *uri, const char *cwd);

#endif
