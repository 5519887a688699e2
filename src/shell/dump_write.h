/* The `shcard parse --json` object written in one pass into a shc_strbuf, without jansson: the
 * same bytes as json_dumps(shc_parse_json(...), JSON_COMPACT | JSON_PRESERVE_ORDER [|
 * JSON_ENSURE_ASCII]) (fuzz/fuzz_batch.c and suite_batch compare the two).  `parse --batch`
 * writes its answers through here. */
#ifndef SHC_DUMP_WRITE_H
#define SHC_DUMP_WRITE_H

#include <stddef.h>

#include "base/jsonw.h"
#include "base/strbuf.h"
#include "shcard.h"

/* Appends the object for cmd[0..len) (no newline); ast may be NULL, rc and diag are what
 * shc_parse returned.  flags: SHC_JW_ASCII.  Failures show as b->err. */
void shc_parse_write(shc_strbuf *b,
                     const char *cmd,
                     size_t len,
                     const shc_ast *ast,
                     int rc,
                     const shc_diag *diag,
                     unsigned flags);

#endif
