/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison interface for Yacc-like parsers in C

   Copyright (C) 1984, 1989-1990, 2000-2015, 2018-2021 Free Software Foundation,
   Inc.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

/* As a special exception, you may create a larger work that contains
   part or all of the Bison parser skeleton and distribute that work
   under terms of your choice, so long as that work isn't itself a
   parser generator using the skeleton or a modified version thereof
   as a parser skeleton.  Alternatively, if you modify or redistribute
   the parser skeleton itself, you may (at your option) remove this
   special exception, which will cause the skeleton and the resulting
   Bison output files to be licensed under the GNU General Public
   License without this special exception.

   This special exception was added by the Free Software Foundation in
   version 2.2 of Bison.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

#ifndef YY_SHC_YY_GEN_SHC_PARSER_H_INCLUDED
# define YY_SHC_YY_GEN_SHC_PARSER_H_INCLUDED
/* Debug traces.  */
#ifndef SHC_YYDEBUG
# if defined YYDEBUG
#if YYDEBUG
#   define SHC_YYDEBUG 1
#  else
#   define SHC_YYDEBUG 0
#  endif
# else /* ! defined YYDEBUG */
#  define SHC_YYDEBUG 0
# endif /* ! defined YYDEBUG */
#endif  /* ! defined SHC_YYDEBUG */
#if SHC_YYDEBUG
extern int shc_yydebug;
#endif
/* "%code requires" blocks.  */

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


/* Token kinds.  */
#ifndef SHC_YYTOKENTYPE
# define SHC_YYTOKENTYPE
  enum shc_yytokentype
  {
    SHC_TOK_SHC_YYEMPTY = -2,
    SHC_TOK_YYEOF = 0,             /* "end of file"  */
    SHC_TOK_SHC_YYerror = 256,     /* error  */
    SHC_TOK_SHC_YYUNDEF = 257,     /* "invalid token"  */
    SHC_TOK_WORD = 258,            /* "word"  */
    SHC_TOK_IO_NUMBER = 259,       /* "file descriptor number"  */
    SHC_TOK_AND_IF = 260,          /* "&&"  */
    SHC_TOK_OR_IF = 261,           /* "||"  */
    SHC_TOK_PIPE = 262,            /* "|"  */
    SHC_TOK_PIPE_AMP = 263,        /* "|&"  */
    SHC_TOK_SEMI = 264,            /* ";"  */
    SHC_TOK_DSEMI = 265,           /* ";;"  */
    SHC_TOK_AMP = 266,             /* "&"  */
    SHC_TOK_NEWLINE = 267,         /* "newline"  */
    SHC_TOK_BANG = 268,            /* "!"  */
    SHC_TOK_LPAREN = 269,          /* "("  */
    SHC_TOK_RPAREN = 270,          /* ")"  */
    SHC_TOK_LESS = 271,            /* "<"  */
    SHC_TOK_GREAT = 272,           /* ">"  */
    SHC_TOK_DGREAT = 273,          /* ">>"  */
    SHC_TOK_CLOBBER = 274,         /* ">|"  */
    SHC_TOK_LESSGREAT = 275,       /* "<>"  */
    SHC_TOK_GREATAND = 276,        /* ">&"  */
    SHC_TOK_LESSAND = 277,         /* "<&"  */
    SHC_TOK_ANDGREAT = 278,        /* "&>"  */
    SHC_TOK_ANDDGREAT = 279,       /* "&>>"  */
    SHC_TOK_TLESS = 280            /* "<<<"  */
  };
  typedef enum shc_yytokentype shc_yytoken_kind_t;
#endif

/* Value type.  */
#if ! defined SHC_YYSTYPE && ! defined SHC_YYSTYPE_IS_DECLARED
union SHC_YYSTYPE
{

    shc_word *word;
    shc_node *node;
    shc_elem *elem;
    shc_redir *redir;
    long num;
    int op;


};
typedef union SHC_YYSTYPE SHC_YYSTYPE;
# define SHC_YYSTYPE_IS_TRIVIAL 1
# define SHC_YYSTYPE_IS_DECLARED 1
#endif

/* Location type.  */
typedef shc_span SHC_YYLTYPE;




int shc_yyparse (shc_lexer *lx);

/* "%code provides" blocks.  */

int shc_yylex(SHC_YYSTYPE *lval, SHC_YYLTYPE *lloc, shc_lexer *lx);
void shc_yyerror(const SHC_YYLTYPE *loc, shc_lexer *lx, const char *msg);


#endif /* !YY_SHC_YY_GEN_SHC_PARSER_H_INCLUDED  */
