/* shcard grammar: the conservative POSIX subset of shell that shcard classifies.
 *
 * Edit this file, then `make gen` (bison 3.8.2) and commit gen/.  Actions only call the AST
 * builders in src/shell/build.h; all state hangs off the lexer passed in (%param), none is global.
 *
 * Accepted: lists separated by ; & and newlines, && and || lists, pipelines (| and |&) with an
 * optional leading !, and simple commands with assignment prefixes, words and redirections in
 * any order.  Everything else (subshells, groups, compound commands, functions, heredocs,
 * substitutions) is reported by the lexer as unsupported before it reaches this grammar.
 * No error recovery: the first error aborts the parse (house style: first error wins).
 */
%require "3.8"
%define api.pure full
%define api.prefix {shc_yy}
%define api.token.prefix {SHC_TOK_}
%define parse.error custom
%locations
%expect 0
%define api.location.type {shc_span}
%param {shc_lexer *lx}

%code requires {
#include "shcard.h"
typedef struct shc_lexer shc_lexer;
typedef struct shc_elem shc_elem;
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                                       \
    do {                                                                                  \
        if (N) {                                                                          \
            (Cur).start = YYRHSLOC(Rhs, 1).start;                                         \
            (Cur).end = YYRHSLOC(Rhs, N).end;                                             \
        } else {                                                                          \
            (Cur).start = (Cur).end = YYRHSLOC(Rhs, 0).end;                               \
        }                                                                                 \
    } while (0)
}

%code provides {
int shc_yylex(SHC_YYSTYPE *lval, SHC_YYLTYPE *lloc, shc_lexer *lx);
void shc_yyerror(const SHC_YYLTYPE *loc, shc_lexer *lx, const char *msg);
}

%code {
#include "shell/build.h"
#define YYMAXDEPTH 1000
#define YYINITDEPTH 64
/* Bail out when a builder failed (it has already recorded the diagnostic). */
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)
}

%union {
    shc_word *word;
    shc_node *node;
    shc_elem *elem;
    shc_redir *redir;
    long num;
    int op;
}

%token <word> WORD "word"
%token <num> IO_NUMBER "file descriptor number"
%token AND_IF "&&" OR_IF "||" PIPE "|" PIPE_AMP "|&" SEMI ";" DSEMI ";;" AMP "&"
%token NEWLINE "newline" BANG "!" LPAREN "(" RPAREN ")"
%token LESS "<" GREAT ">" DGREAT ">>" CLOBBER ">|" LESSGREAT "<>" GREATAND ">&" LESSAND "<&"
%token ANDGREAT "&>" ANDDGREAT "&>>" TLESS "<<<"

%type <node> program commands list and_or pipeline pipe_seq
%type <elem> elements
%type <redir> redirect
%type <op> redir_op sep_op pipe_op

%%

/* Leading and trailing newlines are spelled out rather than written as an optional
 * `linebreak`: an empty rule is a reduction on every parse (the parser's hot path). */
program
    : %empty                                { CHECK($$ = shc__build_list(lx, NULL, NULL, SHC_SEP_NONE, @$)); shc__build_root(lx, $$); }
    | newline_list                          { CHECK($$ = shc__build_list(lx, NULL, NULL, SHC_SEP_NONE, @$)); shc__build_root(lx, $$); }
    | commands                              { $$ = $1; shc__build_root(lx, $$); }
    | commands newline_list                 { $$ = $1; shc__build_root(lx, $$); }
    | newline_list commands                 { $$ = $2; shc__build_root(lx, $$); }
    | newline_list commands newline_list    { $$ = $2; shc__build_root(lx, $$); }
    ;

/* One flat list: seps[i] is the separator written after items[i].  As in POSIX, a ; or & may
 * follow a command, and newlines separate complete commands, so `a ; ; b` and `a ;\n; b` fail. */
commands
    : list                                  { $$ = $1; }
    | list sep_op                           { $$ = shc__list_sep($1, $2, @$); }
    | commands newline_list list            { CHECK($$ = shc__list_concat(lx, $1, $3, @$)); }
    | commands newline_list list sep_op     { shc__list_sep($3, $4, @3); CHECK($$ = shc__list_concat(lx, $1, $3, @$)); }
    ;

list
    : and_or              { CHECK($$ = shc__build_list(lx, NULL, $1, SHC_SEP_NONE, @$)); }
    | list sep_op and_or  { CHECK($$ = shc__build_list(lx, $1, $3, $2, @$)); }
    ;

sep_op
    : SEMI  { $$ = SHC_SEP_SEMI; }
    | AMP   { $$ = SHC_SEP_AMP; }
    ;

/* && and || are left-associative with equal precedence, as in every POSIX shell. */
and_or
    : pipeline                                  { $$ = $1; }
    | and_or AND_IF pipeline                    { CHECK($$ = shc__build_binary(lx, SHC_NODE_AND, $1, $3, @2, @$)); }
    | and_or AND_IF newline_list pipeline       { CHECK($$ = shc__build_binary(lx, SHC_NODE_AND, $1, $4, @2, @$)); }
    | and_or OR_IF pipeline                     { CHECK($$ = shc__build_binary(lx, SHC_NODE_OR, $1, $3, @2, @$)); }
    | and_or OR_IF newline_list pipeline        { CHECK($$ = shc__build_binary(lx, SHC_NODE_OR, $1, $4, @2, @$)); }
    ;

pipeline
    : pipe_seq            { $$ = $1; }
    | BANG pipeline       { CHECK($$ = shc__build_negate(lx, $2, @$)); }
    ;

/* A simple command is its words and redirections: building it here, not in a rule of its own,
 * saves a reduction per command (the parser's hot path). */
pipe_seq
    : elements                             { shc_node *c; CHECK(c = shc__build_call(lx, $1, @1)); CHECK($$ = shc__build_pipe(lx, NULL, c, 0, @$)); }
    | pipe_seq pipe_op elements            { shc_node *c; CHECK(c = shc__build_call(lx, $3, @3)); CHECK($$ = shc__build_pipe(lx, $1, c, $2, @$)); }
    | pipe_seq pipe_op newline_list elements { shc_node *c; CHECK(c = shc__build_call(lx, $4, @4)); CHECK($$ = shc__build_pipe(lx, $1, c, $2, @$)); }
    ;

pipe_op
    : PIPE      { $$ = 0; }
    | PIPE_AMP  { $$ = 1; }
    ;

/* Words, assignments and redirections in any order; build.c sorts out which words are
 * assignment prefixes (those before the first non-assignment word). */
elements
    : WORD              { CHECK($$ = shc__elem_word(lx, NULL, $1)); }
    | redirect          { CHECK($$ = shc__elem_redir(lx, NULL, $1)); }
    | elements WORD     { CHECK($$ = shc__elem_word(lx, $1, $2)); }
    | elements redirect { CHECK($$ = shc__elem_redir(lx, $1, $2)); }
    ;

redirect
    : redir_op WORD            { CHECK($$ = shc__build_redir(lx, -1, $1, $2, @$)); }
    | IO_NUMBER redir_op WORD  { CHECK($$ = shc__build_redir(lx, (int)$1, $2, $3, @$)); }
    ;

redir_op
    : LESS       { $$ = SHC_REDIR_IN; }
    | GREAT      { $$ = SHC_REDIR_OUT; }
    | DGREAT     { $$ = SHC_REDIR_APPEND; }
    | CLOBBER    { $$ = SHC_REDIR_CLOBBER; }
    | LESSGREAT  { $$ = SHC_REDIR_RDWR; }
    | GREATAND   { $$ = SHC_REDIR_DUP_OUT; }
    | LESSAND    { $$ = SHC_REDIR_DUP_IN; }
    | ANDGREAT   { $$ = SHC_REDIR_ALL; }
    | ANDDGREAT  { $$ = SHC_REDIR_ALL_APPEND; }
    | TLESS      { $$ = SHC_REDIR_HERESTRING; }
    ;

newline_list
    : NEWLINE
    | newline_list NEWLINE
    ;

%%

/* "unexpected X" names the token as written; the expected set is left out on purpose: for a
 * one-line agent command it is noise. */
static int yyreport_syntax_error(const yypcontext_t *ctx, shc_lexer *lx)
{
    yysymbol_kind_t tok = yypcontext_token(ctx);
    const SHC_YYLTYPE *loc = yypcontext_location(ctx);
    shc__syntax_error(lx, loc->start, loc->end, tok == YYSYMBOL_YYEOF, yysymbol_name(tok));
    return 0;
}

void shc_yyerror(const SHC_YYLTYPE *loc, shc_lexer *lx, const char *msg)
{
    shc__parser_error(lx, loc->start, loc->end, msg);
}
