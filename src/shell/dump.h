/* AST renderings: S-expression (golden tests and `parse` text output), shell text (round
 * trip), and JSON (`parse --json`).  Returned strings are owned (free()); json_t results are
 * new references. */
#ifndef SHC_DUMP_H
#define SHC_DUMP_H

#include <jansson.h>
#include <stdbool.h>

#include "shcard.h"
#include "shell/names.h"

/* "(list (pipe (call (word (lit \"ls\")))))"; with spans, each node carries @start-end. */
char *shc_ast_sexpr(const shc_node *root, bool spans);
/* An indented tree for people: one node per line, with spans and decoded words. */
char *shc_ast_tree(const shc_node *root);
/* Shell text that parses back to the same AST (spans aside). */
char *shc_ast_print(const shc_node *root);


json_t *shc_word_json(const shc_word *w);
json_t *shc_diag_json(const shc_diag *d); /* {"kind","message","start","end","incomplete"} */
/* The `shcard parse --json` object for one command (see README).  ast may be NULL. */
json_t *shc_parse_json(const char *cmd, size_t len, const shc_ast *ast, int rc,
                       const shc_diag *diag);

#endif
