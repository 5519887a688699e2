/* Verdict -> JSON (jansson), shared by `shcard explain` and the ACP bridge.
 * Fields: cmd, kind, title, path, query, line, locations [{path, line}], reason, span
 * {start, end} (byte offsets into script), script, wrapped, argv; null where there is none. */
#ifndef SHC_VERDICT_H
#define SHC_VERDICT_H

#include <jansson.h>

#include "shcard.h"

/* Returns a new reference (owned by the caller, json_decref), or NULL when out of memory.
 * cmd is the command as given (may be NULL: the field is then the verdict's script);
 * v is borrowed. */
json_t *shc_verdict_json(const shc_verdict *v, const char *cmd);
/* The same for a command of len bytes that may contain NUL bytes (kept as \u0000). */
json_t *shc_verdict_json_n(const shc_verdict *v, const char *cmd, size_t len);

#endif
