/* shc_parse with the arena in the caller's storage, for callers whose AST dies before they
 * return (classify, the CLI's batch modes): most commands then parse with no malloc at all. */
#ifndef SHC_SHELL_PARSE_H
#define SHC_SHELL_PARSE_H

#include "base/arena.h"
#include "shcard.h"

/* As shc_parse; the arena starts in *buf (NULL: a new one).  shc_ast_free as usual, before
 * buf goes. */
int shc__parse_in(shc_arena_buf *buf, shc_ast **out, const char *src, size_t len, bool unwrap,
                  const shc_limits *limits, shc_diag *diag);

#endif
