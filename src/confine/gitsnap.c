/* What a sandboxed command changed among the files of a repository that make git run programs
 * (confine.h, shc_gitsnap_*): `.git` itself (a directory, or a file pointing elsewhere),
 * `.git/config`, `config.worktree`, `commondir`, `info/attributes`, every entry of `.git/hooks`
 * each submodule's `config` under `.git/modules`, and the directory core.hooksPath names when it
 * is inside the snapshot's directory.  Landlock cannot keep the workspace
 * writable and its `.git` control files not (rights granted on a directory reach everything
 * under it), so the agent looks before and after, and says what changed: a hook or a
 * `core.fsmonitor` written by a sandboxed command would otherwise run, unsandboxed, at the
 * user's next git command.  Each file is known by its type, mode, size, inode, change time
 * (which a write sets and no call can set back) and a hash of its content (or a symlink's
 * target). */
#define _GNU_SOURCE
#include "confine/confine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_ENTRIES = 4096, MAX_HASHED = 4 << 20, MAX_SUBDIRS = 256 };

typedef struct gs_entry {
    char *name; /* relative to the snapshot's directory */
    unsigned mode;
    long long size;
    uint64_t hash, ino, ctime_ns; /* a write changes ctime, which no call can set back */
} gs_entry;

struct shc_gitsnap {
    char *dir;
    gs_entry *e;
    size_t n, cap;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Adds the entry for rel (absent files are not listed: their absence is what is compared). */
static int add(shc_gitsnap *s, const char *rel)
{
    char path[PATH_MAX];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", s->dir, rel) >= (int)sizeof path ||
        lstat(path, &st) != 0 || s->n >= MAX_ENTRIES)
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        gs_entry *e = realloc(s->e, cap * sizeof *e);
        if (!e)
            return -1;
        s->e = e;
        s->cap = cap;
    }
    gs_entry *e = &s->e[s->n];
    e->name = strdup(rel);
    if (!e->name)
        return -1;
    e->mode = (unsigned)st.st_mode;
    e->size = (long long)st.st_size;
    e->ino = (uint64_t)st.st_ino;
    e->ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000u + (uint64_t)st.st_ctim.tv_nsec;
    e->hash = 14695981039346656037ull;
    if (S_ISLNK(st.st_mode)) {
        char t[PATH_MAX];
        ssize_t k = readlink(path, t, sizeof t);
        if (k > 0)
            e->hash = fnv(e->hash, t, (size_t)k);
    } else if (S_ISREG(st.st_mode) && st.st_size <= MAX_HASHED) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        char buf[16384];
        ssize_t k;
        while (fd >= 0 && (k = read(fd, buf, sizeof buf)) > 0)
            e->hash = fnv(e->hash, buf, (size_t)k);
        if (fd >= 0)
            close(fd);
    }
    s->n++;
    return 0;
}

/* Adds every entry of the directory rel (one level), and with `sub`, rel/ENTRY/sub for each. */
static int add_dir(shc_gitsnap *s, const char *rel, const char *sub)
{
    char path[PATH_MAX], r[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", s->dir, rel) >= (int)sizeof path)
        return 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int rc = 0;
    struct dirent *de;
    while (!rc && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        int k = sub ? snprintf(r, sizeof r, "%s/%s/%s", rel, de->d_name, sub)
                    : snprintf(r, sizeof r, "%s/%s", rel, de->d_name);
        if (k > 0 && (size_t)k < sizeof r)
            rc = add(s, r);
    }
    closedir(d);
    return rc;
}

static const char *const files[] = {".git",           ".git/config", ".git/config.worktree",
                                    ".git/commondir", ".git/hooks",  ".git/info/attributes",
                                    ".git/info",      ".git/modules"};

/* core.hooksPath from the repository's .git/config (rel: the repository's directory), as a
 * path relative to the snapshot's directory, into out; false when unset or elsewhere. */
static bool hooks_path(const shc_gitsnap *s, const char *rel, char *out, size_t cap)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s%s.git/config", s->dir, rel, *rel ? "/" : "") >=
        (int)sizeof path)
        return false;
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char line[PATH_MAX + 64], val[PATH_MAX] = "";
    bool core = false;
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        if (*p == '[') {
            core = !strncasecmp(p, "[core]", 6);
            continue;
        }
        if (!core || strncasecmp(p, "hookspath", 9))
            continue;
        p += 9 + strspn(p + 9, " \t");
        if (*p != '=')
            continue;
        p++;
        p += strspn(p, " \t\"");
        size_t n = strcspn(p, "\"\r\n");
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n < sizeof val) {
            memcpy(val, p, n);
            val[n] = 0; /* the last one counts, as for git */
        }
    }
    fclose(f);
    if (!val[0])
        return false;
    size_t dl = strlen(s->dir);
    int k;
    if (val[0] == '/') {
        if (strncmp(val, s->dir, dl) || val[dl] != '/')
            return false; /* outside the workspace: Landlock keeps it */
        k = snprintf(out, cap, "%s", val + dl + 1);
    } else {
        k = snprintf(out, cap, "%s%s%s", rel, *rel ? "/" : "", val);
    }
    return k > 0 && (size_t)k < cap && !strstr(out, "..");
}

/* The repository files under rel ("" for the directory itself). */
static int add_repo(shc_gitsnap *s, const char *rel)
{
    char r[PATH_MAX];
    const char *sep = *rel ? "/" : "";
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof files / sizeof files[0]; i++)
        if (snprintf(r, sizeof r, "%s%s%s", rel, sep, files[i]) < (int)sizeof r)
            rc = add(s, r);
    if (!rc && snprintf(r, sizeof r, "%s%s.git/hooks", rel, sep) < (int)sizeof r)
        rc = add_dir(s, r, NULL);
    if (!rc && hooks_path(s, rel, r, sizeof r)) {
        /* core.hooksPath inside the workspace (husky: .husky/_, whose scripts run the files
         * in .husky itself, so the parent too) */
        rc = add_dir(s, r, NULL);
        char *slash = strrchr(r, '/');
        if (!rc && slash && !strcmp(slash, "/_")) {
            *slash = 0;
            rc = add_dir(s, r, NULL);
        }
    }
    if (!rc && snprintf(r, sizeof r, "%s%s.git/modules", rel, sep) < (int)sizeof r) {
        rc = add_dir(s, r, "config");
        if (!rc)
            rc = add_dir(s, r, "hooks");
    }
    return rc;
}

static shc_gitsnap *take(const char *dir)
{
    shc_gitsnap *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = strdup(dir))) {
        free(s);
        return NULL;
    }
    /* the directory's repository, and those of its subdirectories one level down (a project
     * checked out inside the session's directory) */
    int rc = add_repo(s, "");
    DIR *d = rc ? NULL : opendir(dir);
    struct dirent *de;
    for (int k = 0; d && !rc && k < MAX_SUBDIRS && (de = readdir(d)) != NULL;) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..") ||
                                     !strcmp(de->d_name, ".git")))
            continue;
        if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
            continue;
        k++;
        rc = add_repo(s, de->d_name);
    }
    if (d)
        closedir(d);
    if (rc) {
        shc_gitsnap_free(s);
        return NULL;
    }
    return s;
}

shc_gitsnap *shc_gitsnap_take(const char *dir)
{
    char *real = realpath(dir ? dir : ".", NULL);
    if (!real)
        return NULL;
    shc_gitsnap *s = take(real);
    free(real);
    return s;
}

static const gs_entry *find(const shc_gitsnap *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->e[i].name, name))
            return &s->e[i];
    return NULL;
}

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

char *shc_gitsnap_changed(const shc_gitsnap *before)
{
    if (!before)
        return NULL;
    shc_gitsnap *now = take(before->dir);
    if (!now)
        return strdup("(the repository's files could not be read again)");
    char *out = NULL;
    size_t len = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < before->n; i++) {
        const gs_entry *b = &before->e[i], *a = find(now, b->name);
        if (!a)
            ok = say(&out, &len, b->name, "removed");
        else if (!same(a, b))
            ok = say(&out, &len, b->name, "changed");
    }
    for (size_t i = 0; ok && i < now->n; i++)
        if (!find(before, now->e[i].name))
            ok = say(&out, &len, now->e[i].name, "created");
    shc_gitsnap_free(now);
    if (!ok) {
        free(out);
        return strdup("(out of memory comparing the repository's files)");
    }
    return out;
}

void shc_gitsnap_free(shc_gitsnap *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].name);
    free(s->e);
    free(s->dir);
    free(s);
}
