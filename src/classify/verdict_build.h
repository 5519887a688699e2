/* Building verdicts: one malloc holds the shc_verdict, its arrays and every string it points to,
 * so shc_verdict_free is a single free() and a classification costs one allocation beyond the
 * parse.  Internal to the classifier. */
#ifndef SHC_VERDICT_BUILD_H
#define SHC_VERDICT_BUILD_H

#include "classify/policy.h"
#include "shcard.h"

/* A terminal verdict: title = script trimmed of surrounding blanks.  script[0..script_len) may
 * contain NUL bytes (they show as '?').  Returns an owned verdict, or NULL when out of memory. */
shc_verdict *shc__verdict_terminal(const char *script,
                                   size_t script_len,
                                   bool wrapped,
                                   const char *reason,
                                   shc_span span,
                                   int parse_error);

/* An accepted verdict from rule r: paths are joined onto cwd (NULL when no `cd`), titles
 * follow the codex conventions.  argv[0..argc) is the primary's argv (borrowed, copied). */
shc_verdict *shc__verdict_accepted(const char *script,
                                   size_t script_len,
                                   bool wrapped,
                                   const char *cwd,
                                   const shc_rule *r,
                                   const char *const *argv,
                                   size_t argc,
                                   shc_span span);

#endif
