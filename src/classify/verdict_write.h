/* A verdict as JSON, written in one pass into a shc_strbuf without jansson: the same bytes as
 * json_dumps(shc_verdict_json_n(v, cmd, len), JSON_COMPACT | JSON_PRESERVE_ORDER [|
 * JSON_ENSURE_ASCII]) (fuzz/fuzz_batch.c and suite_batch compare the two).  `explain --batch`
 * writes its answers through here; it needs no jansson, so a build without it can use it. */
#ifndef SHC_VERDICT_WRITE_H
#define SHC_VERDICT_WRITE_H

#include <stddef.h>

#include "base/jsonw.h"
#include "base/strbuf.h"
#include "shcard.h"

/* Appends the object (no newline).  cmd[0..len) is the command as given (NULL: the field is the
 * verdict's script).  flags: SHC_JW_ASCII.  Failures show as b->err. */
void shc_verdict_write(
    shc_strbuf *b, const shc_verdict *v, const char *cmd, size_t len, unsigned flags);

#endif
