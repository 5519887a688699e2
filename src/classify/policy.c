/* The per-command rules: what a parsed argv of an allowlisted command means (read, search or
 * list, with path, query and line).  The option tables are in tools.def (one file per tool
 * under tools/); `find` has its own predicate table in find.c, pipeline filters are in filter.c,
 * the sed grammar in sed.c, numeric option values in values.c. */
#include "classify/policy.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ helpers */

/* A file or directory operand: "-" is stdin, "" is an error. */
static int check_path(shc_rule *r, const char *cmd, const shc_operand *op)
{
    if (!strcmp(op->value, "-"))
        return shc__reject(r, op->argi, "%s: '-' reads standard input", cmd);
    if (op->value[0] == '\0')
        return shc__reject(r, op->argi, "%s: empty file name", cmd);
    return 0;
}

/* The files of a read command: one or more (each its own location), or none (the caller may
 * supply `< FILE`). */
static int read_operands(shc_rule *r, const char *cmd, const shc_optres *res, size_t first)
{
    size_t n = res->nops - first;
    r->kind = SHC_KIND_READ;
    if (n == 0) {
        r->wants_stdin = true;
        return 0;
    }
    for (size_t i = first; i < res->nops; i++) {
        if (check_path(r, cmd, &res->ops[i]) < 0)
            return -1;
        r->paths[r->npaths++] = res->ops[i].value;
    }
    r->kind = SHC_KIND_READ;
    r->path = r->paths[0];
    return 0;
}

/* Several files are one stream (cat, sed, nl) or one block each (head, tail, bat): no single
 * line applies to all of them, and a filter's line would count from the first file only. */
static void several_files(shc_rule *r)
{
    if (r->npaths > 1) {
        r->line = 0;
        r->line_end = 0;
        r->last_line = false;
        r->whole_output = false;
        r->more[0] = '\0';
    }
}

/* Search roots / listed paths: every operand from `first` on. */
static int
root_operands(shc_rule *r, const char *cmd, const shc_optres *res, size_t first, bool single)
{
    for (size_t i = first; i < res->nops; i++) {
        if (check_path(r, cmd, &res->ops[i]) < 0)
            return -1;
        if (single && i > first)
            return shc__reject(r, res->ops[i].argi,
                               "%s: several directories have no single location", cmd);
        r->paths[r->npaths++] = res->ops[i].value;
    }
    r->path = r->npaths ? r->paths[0] : NULL;
    return 0;
}

/* ------------------------------------------------------------------ primary commands */

/* bat's paging mode (src/bin/bat/app.rs with clap_app.rs overrides): the last of --paging=WHEN
 * and -P/--no-paging/--no-pager decides; with auto (or neither), -pp means never, but -n,
 * --number and --style drop every -p before them.  Sets r->pages; `always` runs the pager even
 * when piped. */
static int bat_paging(shc_rule *r, const shc_optres *res)
{
    const shc_optval *last = NULL;
    size_t plain = 0;
    for (size_t i = 0; i < res->nopts; i++) {
        const shc_optval *ov = &res->opts[i];
        if (ov->opt->role == SHC_ROLE_PAGING || ov->opt->role == SHC_ROLE_NOPAGER)
            last = ov;
        else if (ov->opt->role == SHC_ROLE_PLAIN)
            plain++;
        else if (ov->opt->role == SHC_ROLE_STYLE)
            plain = 0;
    }
    bool never = plain >= 2;
    if (last && last->opt->role == SHC_ROLE_NOPAGER)
        never = true;
    else if (last && !strcmp(last->value, "never"))
        never = true;
    else if (last && strcmp(last->value, "auto") != 0)
        return shc__reject(r, last->argi, "bat: --paging=%s may run a pager", last->value);
    r->pages = !never;
    return 0;
}

/* Whether bat 0.22 reads the file's git diff (src/printer.rs: in --diff mode, or when its style
 * has the changes component): --decorations=never, -p and -n leave no style component but
 * plain or numbers (app.rs checks them before --style); a --style after them decides
 * (clap drops the -p before it), changes being in changes, full, auto and default. */
static bool bat_gutter(const shc_optres *res)
{
    bool on = true;
    for (size_t i = 0; i < res->nopts; i++) {
        const shc_opt *o = res->opts[i].opt;
        const char *v = res->opts[i].value;
        if (o->short_name == 'd')
            return true;
        if (o->role == SHC_ROLE_PLAIN || o->short_name == 'n' ||
            (v && o->long_name && !strcmp(o->long_name, "decorations") && !strcmp(v, "never")))
            on = false;
        else if (v && o->long_name && !strcmp(o->long_name, "style"))
            on = strstr(v, "changes") || strstr(v, "full") || strstr(v, "auto") ||
                 strstr(v, "default");
    }
    return on;
}

static void rule_read(shc_rule *r, const shc_cmdspec *spec, const shc_optres *res)
{
    switch (spec->id) {
    case SHC_CMD_cat: r->whole_output = true; break;
    case SHC_CMD_nl:
        if (shc__check_nl_styles(r, res) < 0)
            return;
        r->whole_output = true;
        break;
    case SHC_CMD_head:
        if (shc__check_counts(r, spec->name, res, false) < 0)
            return;
        break;
    case SHC_CMD_tail:
        if (shc__check_counts(r, spec->name, res, true) < 0)
            return;
        for (size_t i = 0; i < res->nops; i++)
            if (res->ops[i].value[0] == '+' && !res->ops[i].after_dashdash) {
                shc__reject(r, res->ops[i].argi, "tail: obsolete '+N' form");
                return;
            }
        break;
    case SHC_CMD_bat: {
        if (bat_paging(r, res) < 0)
            return;
        const shc_optval *rg = shc__opt_first(res, SHC_ROLE_RANGE);
        r->whole_output = !rg;
        r->blobs = bat_gutter(res);
        if (rg) {
            const char *v = rg->value, *colon = strchr(v, ':');
            long a = 1, b = 0;
            size_t alen = colon ? (size_t)(colon - v) : strlen(v);
            if ((alen && shc__parse_num(v, alen, &a) < 0) ||
                (colon && colon[1] && shc__parse_num(colon + 1, strlen(colon + 1), &b) < 0) ||
                (!colon && alen == 0)) {
                shc__reject(r, rg->argi, "bat: line range '%s' is not N:M", v);
                return;
            }
            if (!colon)
                b = a;
            r->line = a == 0 ? 1 : a;
            r->line_end = b;
        }
        break;
    }
    case SHC_CMD_sed: {
        size_t files;
        long a, b;
        bool last;
        if (shc__sed_script(r, res, &files, &a, &b, &last) < 0)
            return;
        if (read_operands(r, spec->name, res, files) < 0)
            return;
        r->line = a;
        r->line_end = b;
        r->last_line = last;
        several_files(r);
        return;
    }
    case SHC_CMD_rg:
    case SHC_CMD_grep:
    case SHC_CMD_ag:
    case SHC_CMD_ack:
    case SHC_CMD_git:
    case SHC_CMD_git_grep:
    case SHC_CMD_git_ls_files:
    case SHC_CMD_fd:
    case SHC_CMD_ls:
    case SHC_CMD_tree:
    case SHC_CMD_wc:
    case SHC_CMD_sort:
    case SHC_CMD_uniq:
    case SHC_CMD_cut:
    case SHC_CMD_tr:
    case SHC_CMD_column:
    case SHC_CMD_cd:
    case SHC_CMD_xargs:
    case SHC_CMD__COUNT: break;
    }
    if (read_operands(r, spec->name, res, 0) == 0)
        several_files(r);
}

/* The pattern of a grep-like command: the first -e, else the first operand. */
static int search_pattern(shc_rule *r, const char *cmd, const shc_optres *res, size_t *first_path)
{
    const shc_optval *e = shc__opt_first(res, SHC_ROLE_PATTERN);
    if (e) {
        r->query = e->value;
        *first_path = 0;
        return 0;
    }
    if (res->nops == 0)
        return shc__reject(r, 0, "%s: no pattern", cmd);
    r->query = res->ops[0].value;
    *first_path = 1;
    return 0;
}

static void rule_search(shc_rule *r, const shc_cmdspec *spec, const shc_optres *res)
{
    size_t first = 0;
    if (spec->id == SHC_CMD_rg && shc__opt_first(res, SHC_ROLE_FILES)) {
        if (shc__opt_first(res, SHC_ROLE_PATTERN)) {
            shc__reject(r, shc__opt_first(res, SHC_ROLE_PATTERN)->argi,
                        "rg: --files takes no pattern");
            return;
        }
        if (root_operands(r, spec->name, res, 0, true) == 0)
            r->kind = SHC_KIND_LIST;
        return;
    }
    if (spec->id == SHC_CMD_ag && !shc__opt_first(res, SHC_ROLE_NOVCS)) {
        shc__reject(r, 0, "ag: without -U it runs `sh -c \"git config ...\"` to find excludes");
        return;
    }
    if (search_pattern(r, spec->name, res, &first) < 0)
        return;
    if (spec->id == SHC_CMD_rg || spec->id == SHC_CMD_ag ||
        (spec->id == SHC_CMD_grep &&
         (shc__opt_first(res, SHC_ROLE_RECURSIVE) || shc__opt_first(res, SHC_ROLE_DIRACTION)))) {
        if (shc__check_text_mode(r, spec->name, res) < 0)
            return;
    }
    if (spec->id == SHC_CMD_grep &&
        shc__check_patterns(r, spec->name, res, first ? res->ops[0].value : NULL,
                            first ? res->ops[0].argi : 0) < 0)
        return;
    /* rg's default engine is linear; ag's PCRE and ack's Perl always backtrack */
    if (spec->id != SHC_CMD_grep &&
        shc__check_engine(r, spec->name, res, first ? res->ops[0].value : NULL,
                          first ? res->ops[0].argi : 0, spec->id != SHC_CMD_rg) < 0)
        return;
    if (root_operands(r, spec->name, res, first, false) < 0)
        return;
    if (spec->id == SHC_CMD_grep && r->npaths == 0) {
        /* grep.c: -r, -R and -d ACTION all set `directories`; the last one wins */
        bool rec = false;
        for (size_t i = 0; i < res->nopts; i++) {
            if (res->opts[i].opt->role == SHC_ROLE_RECURSIVE)
                rec = true;
            else if (res->opts[i].opt->role == SHC_ROLE_DIRACTION)
                rec = !strcmp(res->opts[i].value, "recurse");
        }
        if (!rec) {
            shc__reject(r, 0, "%s: without a file it reads standard input", spec->name);
            return;
        }
    }
    r->kind = SHC_KIND_SEARCH;
}

static void rule_fd(shc_rule *r, const shc_cmdspec *spec, const shc_optres *res)
{
    const char *pat = res->nops ? res->ops[0].value : NULL;
    size_t pat_argi = res->nops ? res->ops[0].argi : 0;
    if (root_operands(r, spec->name, res, pat ? 1 : 0, false) < 0)
        return;
    for (size_t i = 0; i < res->nopts; i++) {
        if (res->opts[i].opt->role != SHC_ROLE_SEARCHPATH)
            continue;
        if (res->nops > 1) {
            shc__reject(r, res->opts[i].argi,
                        "fd: --search-path with path operands (clap reports a conflict)");
            return;
        }
        if (res->opts[i].value[0] == '\0' || !strcmp(res->opts[i].value, "-")) {
            shc__reject(r, res->opts[i].argi, "fd: bad --search-path");
            return;
        }
        r->paths[r->npaths++] = res->opts[i].value;
    }
    r->path = r->npaths ? r->paths[0] : NULL;
    if (pat && strchr(pat, '/') && !shc__opt_first(res, SHC_ROLE_FULLPATH)) {
        shc__reject(r, pat_argi, "fd: a pattern with '/' needs --full-path (fd reports an error)");
        return;
    }
    if (!pat || !strcmp(pat, ".") || !strcmp(pat, "") || !strcmp(pat, "^")) {
        if (r->npaths > 1) {
            shc__reject(r, 0, "fd: several directories have no single location");
            return;
        }
        r->kind = SHC_KIND_LIST;
        return;
    }
    /* the pattern and every --and go to the regex crate (-g: globs, -F: literals) */
    bool glob = false;
    for (size_t i = 0; i < res->nopts; i++)
        glob |= res->opts[i].opt->long_name && !strcmp(res->opts[i].opt->long_name, "glob");
    if (!glob && shc__check_engine(r, spec->name, res, pat, pat_argi, false) < 0)
        return;
    r->query = pat;
    r->kind = SHC_KIND_SEARCH;
}

void shc__policy_primary(shc_rule *r, const char *const *argv, size_t argc)
{
    shc__rule_init(r);
    if (argc > SHC_MAX_ARGS) {
        shc__reject(r, 0, "%s: too many words", argv[0]);
        return;
    }
    if (!strcmp(argv[0], "find")) {
        shc__policy_find(r, argv, argc);
        goto done;
    }
    const shc_cmdspec *spec = shc__policy_lookup(argv[0], strlen(argv[0]));
    if (!spec) {
        shc__reject(r, 0, "%s: not a read, search or list command", argv[0]);
        return;
    }
    shc_optres res;
    switch (spec->id) {
    case SHC_CMD_git: shc__policy_git(r, argv, argc); break;
    case SHC_CMD_cat:
    case SHC_CMD_head:
    case SHC_CMD_tail:
    case SHC_CMD_nl:
    case SHC_CMD_bat:
    case SHC_CMD_sed:
        if (spec->id == SHC_CMD_bat && argc > 1 && !strcmp(argv[1], "cache")) {
            shc__reject(r, 1, "bat: `bat cache` is bat's cache subcommand (--clear, --build)");
            break;
        }
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) == 0)
            rule_read(r, spec, &res);
        break;
    case SHC_CMD_rg:
    case SHC_CMD_grep:
    case SHC_CMD_ag:
    case SHC_CMD_ack:
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) == 0)
            rule_search(r, spec, &res);
        /* ack's first pass (no abbreviation, case-sensitive) skips every ackrc only for the
         * word --noenv itself before `--` */
        if (spec->id == SHC_CMD_ack) {
            bool noenv = false;
            for (size_t i = 1; i < argc && strcmp(argv[i], "--") && !noenv; i++)
                noenv = !strcmp(argv[i], "--noenv");
            r->rc_files = !noenv;
        }
        break;
    case SHC_CMD_fd:
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) == 0)
            rule_fd(r, spec, &res);
        break;
    case SHC_CMD_ls:
    case SHC_CMD_tree:
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) == 0 &&
            (spec->id != SHC_CMD_tree || shc__check_tree_patterns(r, &res) == 0) &&
            root_operands(r, spec->name, &res, 0, true) == 0) {
            r->kind = SHC_KIND_LIST;
            r->shallow = spec->id == SHC_CMD_ls && !shc__opt_first(&res, SHC_ROLE_RECURSIVE);
        }
        break;
    case SHC_CMD_git_grep:
    case SHC_CMD_git_ls_files:
    case SHC_CMD_wc:
    case SHC_CMD_sort:
    case SHC_CMD_uniq:
    case SHC_CMD_cut:
    case SHC_CMD_tr:
    case SHC_CMD_column:
    case SHC_CMD_cd:
    case SHC_CMD_xargs:
    case SHC_CMD__COUNT:
        shc__reject(r, 0, "%s: not a read, search or list command", argv[0]);
        break;
    }
done:
    if (r->kind != SHC_KIND_TERMINAL && !r->reason[0]) {
        /* "cmd: kind" without printf: this is the hot path */
        size_t n = strlen(argv[0]), k = strlen(shc_kind_name(r->kind));
        if (n + k + 3 <= sizeof r->reason) {
            memcpy(r->reason, argv[0], n);
            memcpy(r->reason + n, ": ", 2);
            memcpy(r->reason + n + 2, shc_kind_name(r->kind), k + 1);
        }
    }
}
