/* The workspace git check's comparison (confine.h, shc_gitsnap_changed): two snapshots taken by
 * gitsnap.c, before and after a sandboxed command, told file by file ("'.git/config' (changed)"),
 * a directory that became a git directory by its content as such, and what the caps left out of
 * either snapshot. */
#define _GNU_SOURCE
#include "confine/gitsnap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef shc__gs_entry gs_entry;


static bool same(const gs_entry *a, const gs_entry *b)
{
    /* a directory's own size and times change with its entries: those are compared one by one */
    if (S_ISDIR(a->mode) && S_ISDIR(b->mode))
        return a->mode == b->mode && a->ino == b->ino; /* not one moved away and remade */
    return a->mode == b->mode && a->size == b->size && a->hash == b->hash && a->ino == b->ino &&
           a->ctime_ns == b->ctime_ns;
}

/* Appends "'name' (what)" to *out; false when out of memory. */
static bool say(char **out, size_t *len, const char *name, const char *what)
{
    size_t add_len = strlen(name) + strlen(what) + 8;
    char *o = realloc(*out, *len + add_len);
    if (!o)
        return false;
    *len += (size_t)snprintf(o + *len, add_len, "%s'%s' (%s)", *len ? ", " : "", name, what);
    *out = o;
    return true;
}

/* Appends text as it is; false when out of memory. */
static bool say_plain(char **out, size_t *len, const char *text)
{
    size_t add_len = strlen(text) + 4;
    char *o = realloc(*out, *len + add_len);
    if (!o)
        return false;
    *len += (size_t)snprintf(o + *len, add_len, "%s%s", *len ? "; " : "", text);
    *out = o;
    return true;
}

static char *changed(const shc_gitsnap *before, shc_gitsnap **after);

char *shc_gitsnap_changed(const shc_gitsnap *before)
{
    return changed(before, NULL);
}

char *shc_gitsnap_changed_keep(shc_gitsnap *before, shc_gitsnap **after)
{
    *after = NULL;
    /* nothing it read changed: no scan (past a cap, the notice needs one: as before) */
    if (before && !before->unchecked && !before->unsearched && shc__gs_still(before)) {
        *after = before;
        return NULL;
    }
    char *what = changed(before, after);
    shc_gitsnap_free(before);
    return what;
}

static char *changed(const shc_gitsnap *before, shc_gitsnap **after)
{
    if (after)
        *after = NULL;
    if (!before)
        return NULL;
    shc_gitsnap *now = shc__gitsnap_take(before->dir, before); /* skips as before's */
    if (!now)
        return strdup("(the repository's files could not be read again)");
    char *out = NULL;
    size_t len = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < before->n; i++) {
        const gs_entry *b = &before->e[i], *a = shc__gs_find(now, b->name);
        if (!a || a->gitdir != b->gitdir)
            ok = say(&out, &len, b->name,
                     b->gitdir ? "no longer a git directory"
                     : !a      ? "removed"
                               : "became a git directory");
        else if (!same(a, b))
            ok = say(&out, &len, b->name, "changed");
    }
    for (size_t i = 0; ok && i < now->n; i++)
        if (!shc__gs_find(before, now->e[i].name))
            ok = say(&out, &len, now->e[i].name,
                     now->e[i].gitdir ? "became a git directory"
                     : now->e[i].marker
                         ? "created: a cache tag or dependency directory, which later checks "
                           "do not search"
                         : "created");
    unsigned skipped = now->unchecked > before->unchecked ? now->unchecked : before->unchecked;
    char what[160];
    if (ok && skipped) {
        snprintf(what, sizeof what,
                 "the control files of %u %s were not checked (over %d repositories, or over %d "
                 "files)",
                 skipped, skipped == 1 ? "repository" : "repositories", SHC__GS_MAX_REPOS,
                 SHC__GS_MAX_ENTRIES);
        ok = say_plain(&out, &len, what);
    }
    skipped = now->unsearched > before->unsearched ? now->unsearched : before->unsearched;
    if (ok && skipped) {
        snprintf(what, sizeof what,
                 "%u %s not searched for git directories (deeper than %d, or over %d "
                 "directories)",
                 skipped, skipped == 1 ? "directory was" : "directories were",
                 SHC__GS_MAX_SCAN_DEPTH, SHC__GS_MAX_DIRS);
        ok = say_plain(&out, &len, what);
    }
    if (after && ok)
        *after = now;
    else
        shc_gitsnap_free(now);
    if (!ok) {
        free(out);
        return strdup("(out of memory comparing the repository's files)");
    }
    return out;
}

/* The cache (gitcache.c tells whether a snapshot still holds). */
shc_gitsnap *shc_gitsnap_take_reuse(const char *dir, shc_gitsnap **cache)
{
    char *real = realpath(dir ? dir : ".", NULL);
    shc_gitsnap *last = cache ? *cache : NULL;
    if (cache)
        *cache = NULL;
    if (!real) {
        shc_gitsnap_free(last);
        return NULL;
    }
    if (last && !strcmp(last->dir, real) && shc__gs_still(last)) {
        free(real);
        return last;
    }
    shc_gitsnap_free(last);
    shc_gitsnap *s = shc__gitsnap_take(real, NULL);
    free(real);
    return s;
}
