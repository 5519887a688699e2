/* The user's global files a tool reads whatever the directory, judged as the ignore files of
 * every command of that tool (regular, within the 64 KiB pattern budget, git's files without a
 * line of more than two `**`).  A red team made them FIFOs with the project outside HOME and
 * `git grep foo`, `git ls-files -o --exclude-standard` and `ag -U foo .` blocked:
 * - git: $XDG_CONFIG_HOME/git/{config,ignore,attributes} (~/.config/git/ when unset),
 *   ~/.gitconfig, and the files core.excludesFile and core.attributesFile name there;
 * - rg and fd (the same ignore crate): the git configuration files and the global excludes
 *   file (core.excludesFile, else $XDG_CONFIG_HOME/git/ignore); fd also $XDG_CONFIG_HOME/fd/ignore;
 * - ag: ~/.agignore.
 * Includes ([include], [includeIf]) in the git configuration are not followed. */
#include "classify/policy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SHC_GCONF_MAX (64L << 10) /* bytes of a global git configuration file read */

#ifndef __wasi__
/* dir/rel where dir is $XDG_CONFIG_HOME (absolute) or $HOME/.config; -1 when neither. */
static int xdg_path(char *out, size_t cap, const char *rel)
{
    const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
    int w = x && x[0] == '/' ? snprintf(out, cap, "%s/%s", x, rel)
            : h && h[0] == '/' ? snprintf(out, cap, "%s/.config/%s", h, rel)
                               : -1;
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

static int home_path(char *out, size_t cap, const char *rel)
{
    const char *h = getenv("HOME");
    int w = h && h[0] == '/' ? snprintf(out, cap, "%s/%s", h, rel) : -1;
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

/* The values of core.<key> in the git configuration file conf (a plain file already judged),
 * each judged as a pattern file; ~/ expanded as git does. */
static const char *config_files(const char *conf, const char *key, shc_ignbudget *b, char *what,
                                size_t cap)
{
    FILE *f = fopen(conf, "r");
    if (!f)
        return NULL;
    char line[4096], path[4096];
    bool core = false;
    long seen = 0;
    const char *why = NULL;
    while (!why && fgets(line, sizeof line, f) && (seen += (long)strlen(line)) <= SHC_GCONF_MAX) {
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '[') {
            s++;
            while (isspace((unsigned char)*s))
                s++;
            core = !strncasecmp(s, "core", 4) && (s[4] == ']' || isspace((unsigned char)s[4]));
            char *close = strchr(s, ']');
            s = close ? close + 1 : s + strlen(s);
            while (isspace((unsigned char)*s))
                s++;
        }
        size_t kn = strlen(key);
        if (!core || strncasecmp(s, key, kn) != 0)
            continue;
        s += kn;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s++ != '=')
            continue;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strcspn(s, "\r\n;#");
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
            s++, n -= 2;
        s[n] = '\0';
        if (!n)
            continue;
        int w = s[0] == '~' && s[1] == '/' ? (home_path(path, sizeof path, s + 2) < 0 ? -1 : 0)
                : s[0] == '/' ? snprintf(path, sizeof path, "%s", s)
                              : -1;
        if (w < 0 || (size_t)w >= sizeof path) {
            /* relative: git takes it from the directory it runs in; ~user: another home */
            snprintf(what, cap, "%s", conf);
            why = "a global git configuration naming a file shcard cannot follow";
            break;
        }
        why = shc__pattern_file(path, true, b, what, cap);
    }
    fclose(f);
    return why;
}
#endif

const char *shc__global_check(const char *cmd, shc_ignbudget *b, char *what, size_t cap)
{
#ifdef __wasi__ /* the WebAssembly module reads no environment */
    (void)cmd, (void)b, (void)what, (void)cap;
    return NULL;
#else
    bool git = !strcmp(cmd, "git"), fd = !strcmp(cmd, "fd") || !strcmp(cmd, "fdfind");
    bool crate = fd || !strcmp(cmd, "rg");
    char p[4096];
    const char *why = NULL;
    if (!strcmp(cmd, "ag"))
        return home_path(p, sizeof p, ".agignore") < 0 ? NULL
                                                       : shc__pattern_file(p, false, b, what, cap);
    if (!git && !crate)
        return NULL;
    /* the configuration files, then what they name, then the default places */
    char confs[2][4096];
    bool have[2] = {xdg_path(confs[0], sizeof confs[0], "git/config") == 0,
                    home_path(confs[1], sizeof confs[1], ".gitconfig") == 0};
    for (size_t i = 0; i < 2 && !why; i++)
        if (have[i] && !(why = shc__config_file(confs[i], b, what, cap))) {
            why = config_files(confs[i], "excludesfile", b, what, cap);
            if (!why && git)
                why = config_files(confs[i], "attributesfile", b, what, cap);
        }
    if (!why && xdg_path(p, sizeof p, "git/ignore") == 0)
        why = shc__pattern_file(p, true, b, what, cap);
    if (!why && git && xdg_path(p, sizeof p, "git/attributes") == 0)
        why = shc__pattern_file(p, true, b, what, cap);
    if (!why && fd && xdg_path(p, sizeof p, "fd/ignore") == 0)
        why = shc__pattern_file(p, false, b, what, cap);
    return why;
#endif
}
