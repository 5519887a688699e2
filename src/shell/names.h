/* Names the AST renderings share: redirection operators, part kinds, word flags. */
#ifndef SHC_SHELL_NAMES_H
#define SHC_SHELL_NAMES_H

#include "shcard.h"

const char *shc_redir_op_name(shc_redir_op op);  /* "<", ">>", "&>", ... */
int shc_redir_default_fd(shc_redir_op op);       /* 0 or 1 */
const char *shc_part_kind_name(shc_part_kind k); /* "lit", "dbl", ... */

typedef struct shc_word_flag_name {
    unsigned bit; /* SHC_WORD_* */
    const char *name;
} shc_word_flag_name;

enum { SHC_WORD_FLAG_COUNT = 7 };
extern const shc_word_flag_name shc_word_flag_names[SHC_WORD_FLAG_COUNT]; /* in output order */

#endif
