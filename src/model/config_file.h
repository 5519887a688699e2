/* The config file as bytes and lines, shared by the reader (config.c) and the writer
 * (config_write.c) so that both see the same lines and the same keys.
 *
 * Reading: the path must name a regular file (a symlink to one is followed when reading, as a
 * dotfiles link is; the writer refuses links), of at most SHC_CONFIG_MAX_FILE bytes, without NUL
 * bytes, owned by the user and writable by no one else, in a directory no one else may write
 * (sticky directories aside).  It is opened without blocking (a FIFO or a device is refused, not
 * waited on).
 *
 * A line: the bytes up to '\n'; '\r', spaces and tabs around the key and the value are not part
 * of them; '#' starts a comment; a non-blank line must be `key = value`. */
#ifndef SHC_CONFIG_FILE_H
#define SHC_CONFIG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define SHC_CONFIG_MAX_FILE (1024 * 1024) /* a larger file is not ours */

/* Reads path whole into out (NUL-terminated when non-empty); *mode gets its permission bits.
 * follow: a symlink at path is followed (reader) or refused (writer).  *exists is false (and 0 returned) when path does not
 * exist.  Returns 0, or a negative SHC_E_* with a message in err that never holds file text. */
int shc__config_slurp(const char *path, bool follow, shc_strbuf *out, bool *exists,
                      unsigned *mode, char *err, size_t errlen);

/* Reads any small regular file (the system prompt file) without blocking on a FIFO or device:
 * at most max bytes.  Same returns as shc__config_slurp (a missing file is an error here). */
int shc__read_regular(const char *path, size_t max, shc_strbuf *out, const char *what, char *err,
                      size_t errlen);

typedef enum { SHC_LINE_BLANK, SHC_LINE_KV, SHC_LINE_BAD } shc_line_kind;

/* Splits one line (len bytes, no '\n') into key and value, both trimmed.  For SHC_LINE_KV the
 * key is line[*ks, *ke) and the value line[*vs, *ve). */
shc_line_kind shc__config_line(const char *line, size_t len, size_t *ks, size_t *ke, size_t *vs,
                               size_t *ve);

#endif
