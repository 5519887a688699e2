/* git: the global options (git.c handle_options), then git grep or git ls-files (parse-options),
 * and the words git grep reads as revisions.  A revision makes git read objects, and a partial
 * clone fetches missing objects from its remote (network, writes under .git): an operand that
 * may be a revision is terminal, `-- PATH` is not. */
#include "classify/policy.h"

#include <string.h>

bool shc__git_maybe_rev(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        return true;
    /* rev:path, :path, :/text, @, @{...}, rev^, rev~N, rev^{type} */
    if (strpbrk(s, ":@^~{"))
        return true;
    /* a describe name: NAME-gHEX */
    if (strstr(s, "-g"))
        return true;
    /* an object name, full or abbreviated (4 hex digits at least) */
    bool hex = n >= 4;
    for (size_t i = 0; hex && i < n; i++)
        hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F');
    if (hex)
        return true;
    /* Otherwise only a ref name: check_refname_format() refuses these for every dwim rule
     * ("%s", "refs/%s", "refs/heads/%s", ...), and refs_resolve_ref_unsafe() then finds nothing. */
    if (s[0] == '.' || strstr(s, "/.") || strstr(s, "..") || s[n - 1] == '/' || s[n - 1] == '.')
        return false;
    if (n >= 5 && !strcmp(s + n - 5, ".lock"))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c == 0x7f || c == '*' || c == '?' || c == '[' || c == '\\')
            return false;
    }
    return true;
}

/* A pathspec operand: "" is an error, "-" is refused like a stdin operand elsewhere; a leading
 * ':' is pathspec magic (`:/`, `:(top)x`, `:!x`), which names other places than the word does
 * (the top of the work tree) and the path rules would judge the wrong directory.  git joins
 * the pathspec onto its prefix and removes each `..` with the component before it by the
 * letter (prefix_path, normalize_path_copy) before it looks for glob specials, so `sub/?/../..`
 * is the top of the work tree: a `..` component after a glob special would make the literal
 * directory (shc__pathspec_pattern) the wrong one. */
static int check_pathspec(shc_rule *r, const char *cmd, const shc_operand *op)
{
    if (!strcmp(op->value, "-") || op->value[0] == '\0')
        return shc__reject(r, op->argi, "%s: '%s' is not a path that can be shown", cmd, op->value);
    size_t g = strcspn(op->value, "*?[\\");
    for (const char *c = op->value + g; *c; c++)
        if (c[0] == '.' && c[1] == '.' && c[-1] == '/' && (c[2] == '/' || !c[2]))
            return shc__reject(r, op->argi,
                               "%s: '%s' has a '..' after a glob special (git removes it with the "
                               "component before it, pattern or not: it may climb above the "
                               "directory the pattern seems to stay in)",
                               cmd, op->value);
    if (op->value[0] == ':')
        return shc__reject(r, op->argi,
                           "%s: '%s' is pathspec magic (it may name the whole work tree)", cmd,
                           op->value);
    return 0;
}

bool shc__pathspec_pattern(const char *p, size_t *dirlen)
{
    /* pathspec.c simple_length(): the literal part ends at the first glob special */
    size_t n = strcspn(p, "*?[\\");
    if (!p[n])
        return false;
    while (n > 0 && p[n - 1] != '/')
        n--;
    *dirlen = n;
    return true;
}

/* git grep whose last of -E/-G/-F/-P (one setting: the last wins) is not -F or -P: every
 * pattern in the subset above. */
static int check_glibc(shc_rule *r, const char *cmd, const shc_optres *res, const char *operand,
                       size_t operand_argi)
{
    const char *why;
    char mode = 'G';
    for (size_t i = 0; i < res->nopts; i++)
        if (strchr("EGFP", res->opts[i].opt->short_name ? res->opts[i].opt->short_name : 'x'))
            mode = res->opts[i].opt->short_name;
    if (mode == 'F' || mode == 'P')
        return 0;
    /* a pattern without specials goes to git's fixed-string matcher (kwset): only the others
     * count in the glibc bytes, all together (git tries each on every line) */
    size_t bytes = 0;
    for (size_t i = 0; i <= res->nopts; i++) {
        bool last = i == res->nopts;
        const char *v = last ? operand
                        : res->opts[i].opt->role == SHC_ROLE_PATTERN ? res->opts[i].value
                                                                     : NULL;
        size_t argi = last ? operand_argi : res->opts[i].argi;
        if (!v || !shc__regex_special(v))
            continue;
        if ((why = shc__glibc_repeat_why(v)))
            return shc__reject(r, argi, "%s: %s", cmd, why);
        if ((bytes += strlen(v)) > SHC_MAX_GLIBC_BYTES)
            return shc__reject(r, argi, "%s: %s", cmd, shc__glibc_long_why);
    }
    return 0;
}

static void add_path(shc_rule *r, const char *p)
{
    r->pathspecs = true;
    r->paths[r->npaths++] = p;
    if (!r->path)
        r->path = p;
}

/* cmd_grep(): an optional `--`, the pattern (unless -e), revisions up to the first non-revision
 * or the next `--`, then paths.  res->ops holds the words after the options, raw. */
static void rule_grep(shc_rule *r, const shc_cmdspec *spec, const shc_optres *res)
{
    const shc_optval *e = shc__opt_first(res, SHC_ROLE_PATTERN);
    size_t i = 0, n = res->nops;
    const shc_operand *ops = res->ops;
    if (!e && i < n && !strcmp(ops[i].value, "--"))
        i++;
    if (e) {
        r->query = e->value;
    } else if (i < n) {
        r->query = ops[i++].value;
    } else {
        shc__reject(r, 0, "%s: no pattern", spec->name);
        return;
    }
    if (shc__check_patterns(r, spec->name, res, e ? NULL : r->query, e ? 0 : ops[i - 1].argi) < 0 ||
        check_glibc(r, spec->name, res, e ? NULL : r->query, e ? 0 : ops[i - 1].argi) < 0)
        return;
    bool norevs = shc__opt_first(res, SHC_ROLE_NOREVS) != NULL;
    r->whole_files = norevs;
    r->tracked_reads = true;
    bool dashdash = false, seen_dashdash = false;
    for (size_t j = i; j < n; j++)
        seen_dashdash |= !strcmp(ops[j].value, "--");
    for (; i < n; i++) {
        if (!strcmp(ops[i].value, "--")) {
            dashdash = true;
            i++;
            break;
        }
        if (ops[i].value[0] == '-')
            break; /* not a revision; an error below */
        if (norevs) {
            if (seen_dashdash) {
                shc__reject(r, ops[i].argi, "%s: --no-index/--untracked with revisions (an error)",
                            spec->name);
                return;
            }
            break;
        }
        if (shc__git_maybe_rev(ops[i].value)) {
            shc__reject(r, ops[i].argi,
                        "%s: '%s' may name a revision: git reads its objects, which a partial "
                        "clone fetches from its remote (write -- %s)",
                        spec->name, ops[i].value, ops[i].value);
            return;
        }
        break;
    }
    for (; i < n; i++) {
        if (!dashdash && ops[i].value[0] == '-') {
            shc__reject(r, ops[i].argi, "%s: option '%s' after the pattern (an error)", spec->name,
                        ops[i].value);
            return;
        }
        if (check_pathspec(r, spec->name, &ops[i]) < 0)
            return;
        add_path(r, ops[i].value);
    }
    r->kind = SHC_KIND_SEARCH;
}

void shc__policy_git(shc_rule *r, const char *const *argv, size_t argc)
{
    shc_optres res;
    if (shc__opts_parse(&res, r, shc__policy_spec(SHC_CMD_git), argv, 1, argc, false) < 0)
        return;
    if (res.nops == 0) {
        shc__reject(r, 0, "git: no subcommand");
        return;
    }
    const shc_operand *sub = &res.ops[0];
    shc_cmd_id id;
    if (!strcmp(sub->value, "grep"))
        id = SHC_CMD_git_grep;
    else if (!strcmp(sub->value, "ls-files"))
        id = SHC_CMD_git_ls_files;
    else {
        shc__reject(r, sub->argi, "git %s: only git grep and git ls-files are searches or lists",
                    sub->value);
        return;
    }
    bool nopager = shc__opt_first(&res, SHC_ROLE_NOPAGER) != NULL;
    const shc_cmdspec *spec = shc__policy_spec(id);
    if (shc__opts_parse(&res, r, spec, argv, sub->argi + 1, argc, true) < 0)
        return;
    if (id == SHC_CMD_git_grep) {
        r->pages = !nopager;
        rule_grep(r, spec, &res);
        return;
    }
    for (size_t i = 0; i < res.nops; i++) {
        if (check_pathspec(r, spec->name, &res.ops[i]) < 0)
            return;
        if (i > 0) {
            shc__reject(r, res.ops[i].argi, "%s: several directories have no single location",
                        spec->name);
            return;
        }
        add_path(r, res.ops[i].value);
    }
    /* -m: an entry whose recorded size is 0 (any index after read-tree or --cacheinfo) or that
     * is racily clean has its work-tree file read and hashed whole (ie_modified) */
    for (size_t i = 0; i < res.nopts; i++)
        r->tracked_reads |= res.opts[i].opt->short_name == 'm';
    r->kind = SHC_KIND_LIST;
}
