/* AST builders called by the grammar actions (grammar/shc_parser.y).  All memory comes from
 * the parse's arena; a NULL return means the diagnostic is already recorded. */
#ifndef SHC_BUILD_H
#define SHC_BUILD_H

#include "shell/lex.h"
#include "shcard.h"

typedef struct shc_elem shc_elem;

/* A simple command's words and redirections as they come, before assignments are split off. */
struct shc_elem {
    struct shc_elem *next;
    shc_word *word;   /* or NULL */
    shc_redir *redir; /* or NULL */
};

/* What the lexer allocates for a word, in one piece: the word, room for its first part (most
 * words have one), and the list cell the grammar links it with. */
typedef struct shc_wordbox {
    shc_word word; /* first: a shc_word * is a shc_wordbox * */
    shc_part part;
    shc_elem elem;
    char assign; /* shc__assign_shape(), set by the lexer for words in assignment position */
} shc_wordbox;

shc_node *shc__build_list(shc_lexer *lx, shc_node *list, shc_node *item, int sep, shc_span span);
shc_node *shc__list_sep(shc_node *list, int sep, shc_span span);
shc_node *shc__list_concat(shc_lexer *lx, shc_node *a, shc_node *b, shc_span span);
shc_node *shc__build_binary(shc_lexer *lx, shc_node_kind kind, shc_node *l, shc_node *r,
                            shc_span op, shc_span span);
shc_node *shc__build_negate(shc_lexer *lx, shc_node *pipe, shc_span span);
shc_node *shc__build_pipe(shc_lexer *lx, shc_node *pipe, shc_node *cmd, int stderr_too,
                          shc_span span);
shc_node *shc__build_call(shc_lexer *lx, shc_elem *elems, shc_span span);
shc_elem *shc__elem_word(shc_lexer *lx, shc_elem *list, shc_word *w);
shc_elem *shc__elem_redir(shc_lexer *lx, shc_elem *list, shc_redir *r);
shc_redir *shc__build_redir(shc_lexer *lx, int fd, int op, shc_word *target, shc_span span);
void shc__build_root(shc_lexer *lx, shc_node *root);

#endif
