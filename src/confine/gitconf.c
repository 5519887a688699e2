/* The config files git reads that the workspace git check looks into for core.hooksPath
 * (gitsnap.h): the system's and the user's, the repositories' own, and what they include.
 * Each file read (or found absent) is noted for the snapshot's reuse (gitcache.c); an included
 * one that lies inside the workspace is a control file itself (gitwork.c). */
#define _GNU_SOURCE
#include "confine/gitsnap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A pathname value as git reads it: "~/" is the home directory; a relative one is taken
 * relative to base.  false when it does not fit. */
bool shc__gs_pathname(const char *val, const char *base, char *out, size_t cap)
{
    const char *home = getenv("HOME");
    int k;
    if (!strncmp(val, "~/", 2))
        k = home ? snprintf(out, cap, "%s/%s", home, val + 2) : -1;
    else if (val[0] == '/')
        k = snprintf(out, cap, "%s", val);
    else
        k = snprintf(out, cap, "%s/%s", base, val);
    return k > 0 && (size_t)k < cap;
}

/* Every core.hooksPath value in the config file at path and the files it includes (include.path
 * and includeIf.*.path, whatever the condition: a value that may count is watched), added to h
 * as written. */
void shc__gs_read_config(shc_gitsnap *s, const char *path, int depth, shc__gs_hooks *h)
{
    if (depth <= SHC__GS_MAX_INCLUDES)
        shc__gs_note(s, path, -1); /* its absence counts too */
    if (depth > 0 && depth <= SHC__GS_MAX_INCLUDES)
        shc__gs_included(s, path); /* a work-tree file git reads as config: a control file */
    FILE *f = depth <= SHC__GS_MAX_INCLUDES ? fopen(path, "re") : NULL;
    if (!f)
        return;
    char line[PATH_MAX + 64], dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *sl = strrchr(dir, '/');
    if (sl)
        *sl = 0;
    enum { OTHER, CORE, INCLUDE } sec = OTHER;
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        if (*p == '[') {
            size_t n = strcspn(p + 1, " \t]\".");
            sec = n == 4 && !strncasecmp(p + 1, "core", 4)        ? CORE
                  : (n == 7 && !strncasecmp(p + 1, "include", 7)) ||
                          (n == 9 && !strncasecmp(p + 1, "includeIf", 9))
                      ? INCLUDE
                      : OTHER;
            char *end = strchr(p, ']');
            if (!end)
                continue;
            p = end + 1 + strspn(end + 1, " \t"); /* "[core] hooksPath = x" is one line */
        }
        const char *key = sec == CORE ? "hookspath" : sec == INCLUDE ? "path" : NULL;
        size_t kl = key ? strlen(key) : 0;
        if (!key || strncasecmp(p, key, kl))
            continue;
        p += kl + strspn(p + kl, " \t");
        if (*p != '=')
            continue;
        p++;
        p += strspn(p, " \t\"");
        size_t n = strcspn(p, "\"\r\n#;");
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        char val[PATH_MAX], inc[PATH_MAX];
        if (!n || n >= sizeof val)
            continue;
        memcpy(val, p, n);
        val[n] = 0;
        if (sec == INCLUDE) {
            if (shc__gs_pathname(val, dir, inc, sizeof inc))
                shc__gs_read_config(s, inc, depth + 1, h);
        } else if (h->n < SHC__GS_MAX_HOOKS) {
            memcpy(h->v[h->n++], val, n + 1);
        }
    }
    fclose(f);
}

/* The config files git reads besides the repository's own: system and global. */
void shc__gs_read_user_config(shc_gitsnap *s, shc__gs_hooks *h)
{
    char p[PATH_MAX];
    const char *v = getenv("GIT_CONFIG_SYSTEM");
    if (!getenv("GIT_CONFIG_NOSYSTEM"))
        shc__gs_read_config(s, v && *v ? v : "/etc/gitconfig", 0, h);
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
    if ((v = getenv("GIT_CONFIG_GLOBAL")) != NULL && *v) {
        shc__gs_read_config(s, v, 0, h);
        return;
    }
    if (xdg && *xdg && snprintf(p, sizeof p, "%s/git/config", xdg) < (int)sizeof p)
        shc__gs_read_config(s, p, 0, h);
    else if (home && snprintf(p, sizeof p, "%s/.config/git/config", home) < (int)sizeof p)
        shc__gs_read_config(s, p, 0, h);
    if (home && snprintf(p, sizeof p, "%s/.gitconfig", home) < (int)sizeof p)
        shc__gs_read_config(s, p, 0, h);
}

