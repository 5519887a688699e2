/* The work-tree files the workspace git check records because git runs what they say
 * (gitsnap.h): a config file that a config git reads includes (include.path, includeIf.*.path,
 * at any depth, whatever the condition) when it lies inside the workspace, and the files a
 * repository's hooks run.  A hook is often a small launcher for a tracked file: pre-commit's
 * hook runs the `entry:` commands of .pre-commit-config.yaml, lefthook's runs lefthook.yml,
 * overcommit's .overcommit.yml, husky 4's package.json, lint-staged's its config; a
 * hand-written hook runs ./scripts/x.sh.  So each hook's text (the files under a git
 * directory's hooks/ and under the core.hooksPath directories, but git's *.sample) is read:
 * a manager's name in it records that manager's config files, and each word that names a file
 * of the workspace (relative to the work tree, or absolute) records that file, up to
 * SHC__GS_MAX_WORDS a snapshot.  A named file that is absent is noted (gitcache.c), so that
 * the one a command creates makes the next check look again. */
#define _GNU_SOURCE
#include "confine/gitsnap.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_HOOK_TEXT = 65536 };

/* Whether abs is spelt inside the snapshot's directory: only those are resolved (resolving
 * one through a symlink, /bin/sh or a linked ~/.gitconfig, would give up the snapshot's reuse). */
static bool spelt_inside(const shc_gitsnap *s, const char *abs)
{
    size_t dl = strlen(s->dir);
    return !strncmp(abs, s->dir, dl) && abs[dl] == '/';
}

void shc__gs_included(shc_gitsnap *s, const char *path)
{
    char r[PATH_MAX];
    struct stat st;
    /* an absent one is noted by its reader; shc__gs_inside would give up reuse for it */
    if (spelt_inside(s, path) && stat(path, &st) == 0 && shc__gs_inside(s, path, r, sizeof r))
        shc__gs_add(s, r, NULL);
}

/* Hook managers: a name in a hook's text, and the configs (relative to the work tree) whose
 * commands that manager's hook runs.  simple-git-hooks copies the command into the hook
 * itself; husky 5 and later run .husky/ (a core.hooksPath directory, recorded as such). */
static const struct manager {
    const char *name;
    const char *files[12];
} managers[] = {
    {"pre-commit", {".pre-commit-config.yaml", ".pre-commit-config.yml", ".pre-commit-hooks.yaml"}},
    {"lefthook",
     {"lefthook.yml", ".lefthook.yml", "lefthook-local.yml", ".lefthook-local.yml", "lefthook.yaml",
      ".lefthook.yaml", "lefthook-local.yaml", ".lefthook-local.yaml", ".config/lefthook.yml",
      "lefthook.json", "lefthook.toml"}},
    {"overcommit", {".overcommit.yml"}},
    {"husky-run", {"package.json", ".huskyrc", ".huskyrc.json", ".huskyrc.js"}},
    {"lint-staged",
     {"package.json", ".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml",
      ".lintstagedrc.yml", ".lintstagedrc.js", ".lintstagedrc.mjs", ".lintstagedrc.cjs",
      "lint-staged.config.js", "lint-staged.config.mjs", "lint-staged.config.cjs"}},
};

/* Records the file wt/word (word absolute: itself) when it is one inside the workspace; notes
 * it when absent (spelt inside the workspace, no ".." in it).  0, 1 full, -1. */
static int record(shc_gitsnap *s, const char *wt, const char *word)
{
    char abs[PATH_MAX], r[PATH_MAX];
    struct stat st;
    int k = word[0] == '/' ? snprintf(abs, sizeof abs, "%s", word)
                           : snprintf(abs, sizeof abs, "%s/%s", wt, word);
    if (k <= 0 || (size_t)k >= sizeof abs || s->words >= SHC__GS_MAX_WORDS)
        return 0;
    if (!spelt_inside(s, abs)) /* outside the workspace: Landlock keeps it */
        return 0;
    if (lstat(abs, &st) != 0) {
        if (!strstr(abs, "/../") && !strstr(abs, "/./"))
            shc__gs_note(s, abs, -1);
        return 0;
    }
    if (S_ISDIR(st.st_mode) || !shc__gs_inside(s, abs, r, sizeof r))
        return 0;
    s->words++;
    return shc__gs_add(s, r, NULL);
}

/* The hook file rel's words that name workspace files, and the managers it names. */
static int hook(shc_gitsnap *s, const char *wt, const char *rel, bool *named)
{
    char path[PATH_MAX];
    size_t l = strlen(rel);
    if (snprintf(path, sizeof path, "%s/%s", s->dir, rel) >= (int)sizeof path ||
        (l > 7 && !strcmp(rel + l - 7, ".sample")))
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;
    char *text = malloc(MAX_HOOK_TEXT + 1);
    ssize_t n = text ? read(fd, text, MAX_HOOK_TEXT) : -1;
    close(fd);
    if (n <= 0) {
        free(text);
        return text ? 0 : -1;
    }
    text[n] = 0;
    for (size_t m = 0; m < sizeof managers / sizeof managers[0]; m++)
        named[m] |= strstr(text, managers[m].name) != NULL;
    int rc = 0;
    static const char sep[] = " \t\r\n\"'`;&|()<>=:$,{}[]";
    for (char *save = NULL, *w = strtok_r(text, sep, &save); !rc && w;
         w = strtok_r(NULL, sep, &save))
        if (w[0] != '-' && strcmp(w, ".") && strcmp(w, "..") && strpbrk(w, "/."))
            rc = record(s, wt, w);
    free(text);
    return rc;
}

static bool under_hooks(const char *name)
{
    const char *h = strstr(name, "hooks/");
    return h && (h == name || h[-1] == '/') && !strchr(h + 6, '/');
}

int shc__gs_work_files(shc_gitsnap *s, const char *wt, size_t from, size_t hooks)
{
    bool named[sizeof managers / sizeof managers[0]] = {false};
    size_t end = s->n;
    int rc = 0;
    for (size_t i = from; !rc && i < end; i++) {
        char *name = strdup(s->e[i].name); /* s->e moves as entries are added */
        if (!name)
            return -1;
        if (S_ISREG(s->e[i].mode) && (i >= hooks || under_hooks(name)))
            rc = hook(s, wt, name, named);
        free(name);
    }
    for (size_t m = 0; !rc && m < sizeof managers / sizeof managers[0]; m++)
        for (size_t f = 0; !rc && named[m] && managers[m].files[f]; f++)
            rc = record(s, wt, managers[m].files[f]);
    return rc;
}
