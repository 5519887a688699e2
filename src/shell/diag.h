/* Diagnostics: first error wins, no allocation.  Rendering lives in diag.c. */
#ifndef SHC_DIAG_H
#define SHC_DIAG_H

#include "shcard.h"

/* Records an error unless one is already recorded.  Returns code, so callers can
 * `return shc__diag_set(...)`. */
int shc__diag_set(shc_diag *d, int code, uint32_t start, uint32_t end, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* 1-based line and column (in bytes) of offset off in src. */
void shc__line_col(const char *src, size_t len, size_t off, unsigned *line, unsigned *col);

#endif
