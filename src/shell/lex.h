/* The lexer's state (grammar/shc_lexer.re) and the parse context the grammar actions use.
 * One shc_lexer per parse; it lives on the caller's stack and owns nothing but its scratch
 * buffers (freed by shc__lexer_fini).  Everything it builds goes into the arena. */
#ifndef SHC_LEX_H
#define SHC_LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "shcard.h"

typedef struct shc_lexer shc_lexer;

struct shc_lexer {
    const unsigned char *src; /* the text (arena copy, NUL at src[len]) */
    size_t len;
    const unsigned char *cur; /* re2c cursor */
    const unsigned char *mrk; /* re2c marker */
    const unsigned char *tok; /* start of the current token */
    shc_arena *arena;
    shc_diag *diag;
    const shc_limits *limits;
    bool cmd_start;    /* the next word is in command position (reserved words, !, () */
    unsigned cmd_words; /* non-assignment words seen in the current simple command */
    unsigned last_tok; /* previous token (0 at the start) */
    bool last_assign;  /* the last WORD was an assignment prefix */
    shc_node *root;    /* set by the grammar's start rule */
    size_t andor_depth; /* length of the longest && / || chain so far */
    /* scratch: a stack of parts under construction (inline first, then the arena) */
    shc_part *parts;
    size_t nparts, cap_parts;
    shc_part inline_parts[24];
};

void shc__lexer_init(shc_lexer *lx, shc_arena *arena, const char *src, size_t len,
                     const shc_limits *limits, shc_diag *diag);
void shc__lexer_fini(shc_lexer *lx);

/* Error reporting from the lexer and the grammar (first error wins). */
void shc__syntax_error(shc_lexer *lx, size_t start, size_t end, bool at_eof, const char *what);
void shc__parser_error(shc_lexer *lx, size_t start, size_t end, const char *msg);
/* "NAME at L:C is outside the supported subset" */
void shc__unsupported(shc_lexer *lx, size_t start, size_t end, const char *what);
/* A limit was reached (nesting depth and the like). */
void shc__limit(shc_lexer *lx, size_t start, size_t end, const char *what);
/* An allocation failed: a limit error when the arena cap was hit, else nomem. */
void shc__nomem(shc_lexer *lx);

/* What follows NAME at the start of w's first (unquoted literal) part: '=' for NAME=, '+' for
 * NAME+=, '[' for NAME[ (an array subscript), or 0 when w is not shaped like an assignment. */
char shc__assign_shape(const shc_word *w);

/* Word forms in plain C (words.c).  shc__name_char: [A-Za-z0-9_].  shc__brace_param_end:
 * start points at "${"; returns the end of the expansion (past its `}`) or NULL with the error
 * set.  shc__ansic_end: s points at "$'"; returns the closing quote or NULL (error set).
 * shc__ansic_decode: decodes the body [b, e) into out (room for e - b + 1 bytes, NUL added),
 * *len bytes; -1 with the error set for a form that is unsupported. */
bool shc__name_char(unsigned char c);
const unsigned char *shc__brace_param_end(shc_lexer *lx, const unsigned char *start);
const unsigned char *shc__ansic_end(shc_lexer *lx, const unsigned char *s);
int shc__ansic_decode(shc_lexer *lx, const unsigned char *b, const unsigned char *e,
                      unsigned char *out, size_t *len);

/* Computes SHC_WORD_* flags and the static value of w from its parts.  assign_value: the word
 * is an assignment's value (no globbing or brace expansion there; ~ after = or :). */
int shc__word_finish(shc_lexer *lx, shc_word *w, bool assign_value);

#endif
