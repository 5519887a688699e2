/* Names the AST renderings share (dump.c, dump_write.c). */
#include "shell/names.h"

const char *shc_redir_op_name(shc_redir_op op)
{
    switch (op) {
    case SHC_REDIR_IN: return "<";
    case SHC_REDIR_OUT: return ">";
    case SHC_REDIR_APPEND: return ">>";
    case SHC_REDIR_CLOBBER: return ">|";
    case SHC_REDIR_RDWR: return "<>";
    case SHC_REDIR_DUP_OUT: return ">&";
    case SHC_REDIR_DUP_IN: return "<&";
    case SHC_REDIR_ALL: return "&>";
    case SHC_REDIR_ALL_APPEND: return "&>>";
    case SHC_REDIR_HERESTRING: return "<<<";
    }
    return "?";
}

int shc_redir_default_fd(shc_redir_op op)
{
    switch (op) {
    case SHC_REDIR_IN:
    case SHC_REDIR_RDWR:
    case SHC_REDIR_DUP_IN:
    case SHC_REDIR_HERESTRING: return 0;
    case SHC_REDIR_OUT:
    case SHC_REDIR_APPEND:
    case SHC_REDIR_CLOBBER:
    case SHC_REDIR_DUP_OUT:
    case SHC_REDIR_ALL:
    case SHC_REDIR_ALL_APPEND: return 1;
    }
    return 1;
}

const char *shc_part_kind_name(shc_part_kind k)
{
    switch (k) {
    case SHC_PART_LIT: return "lit";
    case SHC_PART_ESC: return "esc";
    case SHC_PART_SGL: return "sgl";
    case SHC_PART_DBL: return "dbl";
    case SHC_PART_ANSIC: return "ansic";
    case SHC_PART_LOCALE: return "locale";
    case SHC_PART_PARAM: return "param";
    }
    return "?";
}

const shc_word_flag_name shc_word_flag_names[SHC_WORD_FLAG_COUNT] = {
    {SHC_WORD_QUOTED, "quoted"},
    {SHC_WORD_GLOB, "glob"},
    {SHC_WORD_BRACE, "brace"},
    {SHC_WORD_TILDE, "tilde"},
    {SHC_WORD_EXPANSION, "expansion"},
    {SHC_WORD_ESCAPED, "escaped"},
    {SHC_WORD_ASSIGN_TILDE, "assign_tilde"},
};
