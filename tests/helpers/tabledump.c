/* Prints the classifier's option tables as the library holds them (compiled, not the .def text):
 * one JSON object per line for every tool's every option entry, then find's predicates.
 *
 *   {"tool":"fd","name":"fd","family":"CLAP","cmdflags":[],"index":14,"short":null,
 *    "long":"and","arg":"REQ","role":"NONE","flags":["MULTI","HYPHEN"],"danger":null}
 *
 * The option oracle (tests/oracle/options.py) generates its cases from this and fails when an
 * entry has none.  Usage: tabledump */
#include <stdio.h>
#include <string.h>

#include "classify/policy.h"

static const struct {
    const char *id;
    shc_cmd_id cmd;
} ids[] = {
#define SHC_CMD(id, name, fam, flags) {#id, SHC_CMD_##id},
#define SHC_OPT(s, l, a, r, d)
#define SHC_OPTX(s, l, a, r, f, d)
#define SHC_END(id)
#include "classify/tools.def"
#undef SHC_CMD
#undef SHC_OPT
#undef SHC_OPTX
#undef SHC_END
};

static const char *family_name(shc_family f)
{
    switch (f) {
    case SHC_FAM_GNU: return "GNU";
    case SHC_FAM_CLAP: return "CLAP";
    case SHC_FAM_PERL: return "PERL";
    case SHC_FAM_GIT: return "GIT";
    case SHC_FAM_GITMAIN: return "GITMAIN";
    case SHC_FAM_TREE: return "TREE";
    case SHC_FAM_BASH: return "BASH";
    }
    return "?";
}

static const char *arg_name(shc_arg a)
{
    switch (a) {
    case SHC_ARG_NONE: return "NONE";
    case SHC_ARG_REQ: return "REQ";
    case SHC_ARG_OPT: return "OPT";
    }
    return "?";
}

/* -Wswitch-enum makes a new role a compile error here until it has its name. */
static const char *role_name(shc_role r)
{
    switch (r) {
    case SHC_ROLE_NONE: return "NONE";
    case SHC_ROLE_PATTERN: return "PATTERN";
    case SHC_ROLE_LINES: return "LINES";
    case SHC_ROLE_BYTES: return "BYTES";
    case SHC_ROLE_RANGE: return "RANGE";
    case SHC_ROLE_FILES: return "FILES";
    case SHC_ROLE_QUIET: return "QUIET";
    case SHC_ROLE_SCRIPT: return "SCRIPT";
    case SHC_ROLE_RECURSIVE: return "RECURSIVE";
    case SHC_ROLE_SEARCHPATH: return "SEARCHPATH";
    case SHC_ROLE_PAGING: return "PAGING";
    case SHC_ROLE_FULLPATH: return "FULLPATH";
    case SHC_ROLE_DIRACTION: return "DIRACTION";
    case SHC_ROLE_NOVCS: return "NOVCS";
    case SHC_ROLE_NOPAGER: return "NOPAGER";
    case SHC_ROLE_NUMBER: return "NUMBER";
    case SHC_ROLE_WIDTH: return "WIDTH";
    case SHC_ROLE_FILE: return "FILE";
    case SHC_ROLE_DIRFILE: return "DIRFILE";
    case SHC_ROLE_PLAIN: return "PLAIN";
    case SHC_ROLE_STYLE: return "STYLE";
    case SHC_ROLE_NOREVS: return "NOREVS";
    case SHC_ROLE_NUL: return "NUL";
    case SHC_ROLE_NOEMPTY: return "NOEMPTY";
    case SHC_ROLE_REPLACE: return "REPLACE";
    case SHC_ROLE_TABS: return "TABS";
    case SHC_ROLE_TEXT: return "TEXT";
    case SHC_ROLE_PCRE: return "PCRE";
    case SHC_ROLE_LITERAL: return "LITERAL";
    case SHC_ROLE_PROCS: return "PROCS";
    case SHC_ROLE_REGEX: return "REGEX";
    case SHC_ROLE_WILDMATCH: return "WILDMATCH";
    case SHC_ROLE_ECHO: return "ECHO";
    }
    return "?";
}

static void str_or_null(const char *s)
{
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void flag_list(unsigned v, const char *const *names, size_t n)
{
    putchar('[');
    const char *sep = "";
    for (size_t b = 0; b < n; b++)
        if (v & (1u << b)) {
            printf("%s\"%s\"", sep, names[b]);
            sep = ",";
        }
    putchar(']');
}

int main(void)
{
    static const char *const cmdflags[] = {"ABBREV", "STOP", "DIGITS_HEAD", "DIGITS_TAIL",
                                           "DIGITS_ANY"};
    static const char *const optflags[] = {"MULTI", "HYPHEN"};
    for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++) {
        const shc_cmdspec *spec = shc__policy_spec(ids[t].cmd);
        for (size_t i = 0; spec->opts[i].short_name || spec->opts[i].long_name; i++) {
            const shc_opt *o = &spec->opts[i];
            printf("{\"tool\":\"%s\",\"name\":", ids[t].id);
            str_or_null(spec->name);
            printf(",\"family\":\"%s\",\"cmdflags\":", family_name(spec->family));
            flag_list(spec->flags, cmdflags, sizeof cmdflags / sizeof cmdflags[0]);
            printf(",\"index\":%zu,\"short\":", i);
            if (o->short_name)
                printf("\"%c\"", o->short_name);
            else
                fputs("null", stdout);
            fputs(",\"long\":", stdout);
            str_or_null(o->long_name);
            printf(",\"arg\":\"%s\",\"role\":\"%s\",\"flags\":", arg_name(o->arg),
                   role_name(o->role));
            flag_list(o->flags, optflags, sizeof optflags / sizeof optflags[0]);
            fputs(",\"danger\":", stdout);
            str_or_null(o->danger);
            fputs("}\n", stdout);
        }
    }
    unsigned nargs;
    const char *danger;
    const char *name;
    for (size_t i = 0; (name = shc__find_pred(i, &nargs, &danger)); i++) {
        printf("{\"tool\":\"find\",\"name\":\"find\",\"family\":\"FIND\",\"cmdflags\":[],"
               "\"index\":%zu,\"short\":null,\"long\":",
               i);
        str_or_null(name);
        printf(",\"arg\":\"%s\",\"role\":\"NONE\",\"flags\":[],\"danger\":", nargs ? "REQ" : "NONE");
        str_or_null(danger);
        fputs("}\n", stdout);
    }
    return ferror(stdout) ? 1 : 0;
}
