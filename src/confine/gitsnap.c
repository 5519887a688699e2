/* What a sandboxed command changed among the files of a repository that make git run programs
 * (confine.h, shc_gitsnap_*): `.git` itself (a directory, or a file pointing elsewhere) and
 * every file under it, at any depth, except what git itself rewrites in ordinary work and what
 * cannot run code: objects, refs, logs, the index, HEAD and the other state files of each git
 * directory (the top one, and each directory with a HEAD below it: submodules' under
 * `.git/modules`, worktrees' under `.git/worktrees`).  So no knowledge of where git keeps
 * submodules, worktrees or hooks is needed.  Also the git directory a `.git` file names when
 * it is inside the snapshot's directory, and the directories core.hooksPath names inside it:
 * the values are read from every config file git reads (system, global, the repository's
 * config and config.worktree, and their includes whatever their condition) and resolved
 * through symlinks.  Landlock cannot keep the workspace writable and its `.git` control files
 * not (rights granted on a directory reach everything under it), so the agent looks before and
 * after, and says what changed: a hook or a `core.fsmonitor` written by a sandboxed command
 * would otherwise run, unsandboxed, at the user's next git command.  Each file is known by its
 * type, mode, size, inode, change time (which a write sets and no call can set back) and a hash
 * of its content (or a symlink's target).  The git directories are searched for in the whole
 * directory, as git's discovery finds them from wherever the user runs it: a `.git` at any
 * depth, and a directory git takes as a git directory by its content alone (an implicit bare
 * repository: HEAD, objects, refs), which git finds before the `.git` of the directory above.
 * A repository past the caps (repositories, files) is not checked, a directory past the search's
 * caps (depth, directories) not searched, and the notice says how many (gitdiff.c). */
#define _GNU_SOURCE
#include "confine/gitsnap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef shc__gs_entry gs_entry;

enum {
    MAX_DIRS = SHC__GS_MAX_DIRS,
    MAX_REPOS = SHC__GS_MAX_REPOS,
    MAX_DEPTH = SHC__GS_MAX_DEPTH,
    MAX_SCAN_DEPTH = SHC__GS_MAX_SCAN_DEPTH,
};


#define add shc__gs_add
#define inside shc__gs_inside

/* What git writes in a git directory in ordinary work, and what cannot run code: not listed. */
static bool git_state(const char *name)
{
    static const char *const skip[] = {
        "objects",       "refs",          "logs",          "lfs",           "annex",
        "rr-cache",      "index",         "HEAD",          "ORIG_HEAD",     "FETCH_HEAD",
        "MERGE_HEAD",    "MERGE_MSG",     "MERGE_MODE",    "MERGE_RR",      "AUTO_MERGE",
        "REBASE_HEAD",   "REVERT_HEAD",   "CHERRY_PICK_HEAD", "COMMIT_EDITMSG", "TAG_EDITMSG",
        "SQUASH_MSG",    "packed-refs",   "shallow",       "gc.pid",        "gc.log",
        "rebase-merge",  "rebase-apply",  "sequencer",     "fsmonitor--daemon",
        "fsmonitor--daemon.ipc",          "NOTES_MERGE_PARTIAL", "NOTES_MERGE_REF",
        "NOTES_MERGE_WORKTREE",           "BISECT_LOG",    "BISECT_START",  "BISECT_TERMS",
        "BISECT_EXPECTED_REV",            "BISECT_ANCESTORS_OK", "BISECT_NAMES",
        "BISECT_HEAD",   "BISECT_RUN",    "MERGE_AUTOSTASH", "svn"};
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (!strcmp(name, skip[i]))
            return true;
    size_t n = strlen(name);
    return !strncmp(name, "sharedindex.", 12) || (n > 5 && !strcmp(name + n - 5, ".lock"));
}

static int walk(shc_gitsnap *s, const char *rel, bool gitdir, int depth, bool deep);

/* The directory the symlink rel names, when it is one inside the snapshot's directory: its
 * entries at every depth, under their own names. */
static int walk_link(shc_gitsnap *s, const char *rel, int depth)
{
    char abs[PATH_MAX], r[PATH_MAX];
    struct stat st;
    if (snprintf(abs, sizeof abs, "%s/%s", s->dir, rel) >= (int)sizeof abs ||
        stat(abs, &st) != 0 || !S_ISDIR(st.st_mode) || !inside(s, abs, r, sizeof r))
        return 0;
    return walk(s, r, false, depth, true);
}

/* Adds every entry under the directory rel: with `deep`, at every depth, leaving out a git
 * directory's state (git_state) in rel when gitdir says it is one, and in each directory below
 * that has a HEAD (a submodule's or a worktree's git directory).  0, 1 full, -1. */
static int walk(shc_gitsnap *s, const char *rel, bool gitdir, int depth, bool deep)
{
    char path[PATH_MAX], r[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", s->dir, rel) >= (int)sizeof path)
        return 0;
    if (depth > MAX_DEPTH)
        return 1; /* deeper than any layout git makes: counted as not checked */
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    shc__gs_note(s, path, fd);
    if (!gitdir && depth > 0) {
        struct stat st;
        gitdir = fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0;
    }
    int rc = 0;
    struct dirent *de;
    while (!rc && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
            (gitdir && git_state(de->d_name)))
            continue;
        int k = snprintf(r, sizeof r, "%s/%s", rel, de->d_name);
        if (k <= 0 || (size_t)k >= sizeof r)
            continue;
        unsigned mode;
        rc = add(s, r, &mode);
        if (!rc && deep && S_ISDIR(mode))
            rc = walk(s, r, false, depth + 1, true);
        else if (!rc && deep && S_ISLNK(mode)) /* .git/hooks -> ../tools/hooks */
            rc = walk_link(s, r, depth + 1);
    }
    closedir(d);
    return rc;
}


/* Watches the directories the hooksPath values name inside the snapshot's directory, relative
 * to the work tree rel (husky's .husky/_ runs the scripts of .husky itself: that one too). */
static int add_hooks(shc_gitsnap *s, const char *rel, const char *gitdir,
                     const shc__gs_hooks *user)
{
    shc__gs_hooks h = *user;
    char p[PATH_MAX], base[PATH_MAX], abs[PATH_MAX], r[PATH_MAX];
    static const char *const own[] = {"config", "config.worktree", "commondir/config"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        if (i == 2) { /* a linked worktree's shared config */
            char c[PATH_MAX];
            FILE *f = snprintf(p, sizeof p, "%s/commondir", gitdir) < (int)sizeof p
                          ? fopen(p, "re") : NULL;
            bool got = f && fgets(c, sizeof c, f);
            if (f)
                fclose(f);
            c[got ? strcspn(c, "\r\n") : 0] = 0;
            if (!got || !c[0] || !shc__gs_pathname(c, gitdir, base, sizeof base) ||
                snprintf(p, sizeof p, "%s/config", base) >= (int)sizeof p)
                continue;
        } else if (snprintf(p, sizeof p, "%s/%s", gitdir, own[i]) >= (int)sizeof p) {
            continue;
        }
        shc__gs_read_config(s, p, 0, &h);
    }
    if (snprintf(base, sizeof base, "%s%s%s", s->dir, *rel ? "/" : "", rel) >= (int)sizeof base)
        return 0;
    int rc = 0;
    for (int i = 0; !rc && i < h.n; i++) {
        if (!shc__gs_pathname(h.v[i], base, abs, sizeof abs) || !inside(s, abs, r, sizeof r))
            continue; /* outside the workspace: Landlock keeps it */
        rc = walk(s, r, false, MAX_DEPTH, false);
        char *slash = strrchr(r, '/');
        if (!rc && slash && !strcmp(slash, "/_")) {
            *slash = 0;
            rc = walk(s, r, false, MAX_DEPTH, false);
        }
    }
    return rc;
}

/* The hook directories the configs of the git directory gd (relative) name, then the
 * work-tree files the hooks run (gitwork.c); the repository's entries begin at start. */
static int hooks_and_work(shc_gitsnap *s, const char *rel, const char *gd,
                          const shc__gs_hooks *user, size_t start)
{
    char abs[PATH_MAX], wt[PATH_MAX];
    if (snprintf(abs, sizeof abs, "%s/%s", s->dir, gd) >= (int)sizeof abs ||
        snprintf(wt, sizeof wt, "%s%s%s", s->dir, *rel ? "/" : "", rel) >= (int)sizeof wt)
        return 0;
    size_t hooks = s->n;
    int rc = add_hooks(s, rel, abs, user);
    return rc ? rc : shc__gs_work_files(s, wt, start, hooks);
}

/* The repository files under rel ("" for the directory itself).  0, 1 when the snapshot is
 * full, -1 out of memory. */
static int add_repo(shc_gitsnap *s, const char *rel, const shc__gs_hooks *user)
{
    char r[PATH_MAX], gd[PATH_MAX];
    unsigned mode;
    size_t start = s->n;
    if (snprintf(r, sizeof r, "%s%s.git", rel, *rel ? "/" : "") >= (int)sizeof r)
        return 0;
    int rc = add(s, r, &mode);
    if (rc || !mode)
        return rc;
    if (S_ISDIR(mode)) {
        rc = walk(s, r, true, 0, true);
    } else if (S_ISLNK(mode)) {
        if (snprintf(gd, sizeof gd, "%s/%s", s->dir, r) >= (int)sizeof gd ||
            !inside(s, gd, r, sizeof r))
            return 0;
        rc = walk(s, r, true, 0, true);
    } else if (S_ISREG(mode)) { /* "gitdir: X": that directory too, when it is in here */
        char line[PATH_MAX + 16], abs[PATH_MAX];
        FILE *f = snprintf(gd, sizeof gd, "%s/%s", s->dir, r) < (int)sizeof gd
                      ? fopen(gd, "re") : NULL;
        bool got = f && fgets(line, sizeof line, f) && !strncmp(line, "gitdir:", 7);
        if (f)
            fclose(f);
        if (!got)
            return 0;
        char *v = line + 7 + strspn(line + 7, " \t");
        v[strcspn(v, "\r\n")] = 0;
        if (snprintf(gd, sizeof gd, "%s%s%s", s->dir, *rel ? "/" : "", rel) >= (int)sizeof gd ||
            !shc__gs_pathname(v, gd, abs, sizeof abs) || !inside(s, abs, r, sizeof r))
            return 0;
        rc = walk(s, r, true, 0, true);
    }
    return rc ? rc : hooks_and_work(s, rel, r, user, start);
}

/* The git directory rel ("" for the snapshot's own) found by its content: itself, marked (one
 * that becomes a git directory is told as such), and its files as for a .git, with the hook
 * directories its config names.  0, 1 when the snapshot is full, -1 out of memory. */
static int add_bare(shc_gitsnap *s, const char *rel, const shc__gs_hooks *user)
{
    const char *r = *rel ? rel : ".";
    unsigned mode;
    size_t start = s->n;
    int rc = add(s, r, &mode);
    if (rc || !mode)
        return rc;
    s->e[s->n - 1].gitdir = true;
    rc = walk(s, r, true, 0, true);
    return rc ? rc : hooks_and_work(s, rel, r, user, start);
}

/* fn(s, rel, user), and a repository past a cap counted as not checked (its entries taken out
 * again, so that the two snapshots list the same files). */
static int capped(shc_gitsnap *s,
                  int (*fn)(shc_gitsnap *, const char *, const shc__gs_hooks *),
                  const char *rel, const shc__gs_hooks *user, unsigned *repos)
{
    if ((*repos)++ >= MAX_REPOS) {
        s->unchecked++;
        return 0;
    }
    size_t start = s->n;
    int rc = fn(s, rel, user);
    if (rc != 1)
        return rc;
    while (s->n > start)
        free(s->e[--s->n].name);
    s->unchecked++;
    return 0;
}

/* Directories the search does not enter: what package managers and tools fill with thousands
 * of directories of their own (a git run from inside one is not the user's work), and any
 * directory tagged as a cache (CACHEDIR.TAG, as cargo's target/ is).  A command can make
 * either, so only one that was already there before it is skipped (marker_skip). */
static bool dep_dir(const char *name)
{
    static const char *const deps[] = {"node_modules", ".venv", "__pycache__", ".tox",
                                       ".mypy_cache", ".pytest_cache", ".gradle", ".next"};
    for (size_t i = 0; i < sizeof deps / sizeof deps[0]; i++)
        if (!strcmp(name, deps[i]))
            return true;
    return false;
}

/* Records the marker rel (a tag file, or a directory that is skipped by the rule): an entry,
 * so that one created, changed or remade by the command is reported; for a directory, whether
 * it is skipped: always in a first snapshot, and in an "after" one only when the "before"
 * skipped this same directory (not one remade in its place).  A full snapshot: searched. */
static bool marker_skip(shc_gitsnap *s, const char *rel)
{
    unsigned mode;
    int rc = add(s, rel, &mode);
    if (rc || !mode) {
        s->unchecked += rc == 1;
        return false;
    }
    shc__gs_entry *e = &s->e[s->n - 1];
    e->marker = true;
    if (!S_ISDIR(mode))
        return false;
    const shc__gs_entry *p = s->prev ? shc__gs_find(s->prev, rel) : NULL;
    e->skipped = !s->prev || (p && p->skipped && p->mode == e->mode && p->ino == e->ino);
    return e->skipped;
}

/* The names in the open directory fd, read once: which of git's names it holds, and its
 * subdirectories (NUL-joined in *subs, *nsubs of them, freed by the caller); false: no memory. */
typedef struct {
    bool git, head, objects, refs, commondir, cachetag;
} dir_names;

static bool read_names(int fd, dir_names *n, char **subs, size_t *len, size_t *nsubs)
{
    char buf[8192];
    size_t cap = 0;
    *subs = NULL, *len = *nsubs = 0;
    memset(n, 0, sizeof *n);
    for (;;) {
        long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (got <= 0)
            return true;
        for (long off = 0; off < got;) {
            struct linux_dirent64_k {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *de = (struct linux_dirent64_k *)(buf + off);
            off += de->reclen;
            const char *nm = de->name;
            if (!strcmp(nm, ".") || !strcmp(nm, ".."))
                continue;
            n->git |= !strcmp(nm, ".git");
            n->head |= !strcmp(nm, "HEAD");
            n->objects |= !strcmp(nm, "objects");
            n->refs |= !strcmp(nm, "refs");
            n->commondir |= !strcmp(nm, "commondir");
            n->cachetag |= !strcmp(nm, "CACHEDIR.TAG");
            struct stat st;
            bool dir = de->type == DT_UNKNOWN
                           ? fstatat(fd, nm, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)
                           : de->type == DT_DIR;
            if (!dir || !strcmp(nm, ".git"))
                continue;
            size_t l = strlen(nm) + 1;
            if (*len + l > cap) {
                size_t nc = cap ? cap * 2 : 1024;
                while (nc < *len + l)
                    nc *= 2;
                char *g = realloc(*subs, nc);
                if (!g)
                    return false;
                *subs = g;
                cap = nc;
            }
            memcpy(*subs + *len, nm, l);
            *len += l;
            (*nsubs)++;
        }
    }
}

/* Searches the directory rel ("" for the snapshot's own, depth 0; fd open on it, closed here)
 * and every directory below it for git directories, as git's discovery finds them from
 * wherever the user runs it: each .git (a directory, a symlink, or a "gitdir:" file), and each
 * directory git takes as one by its content (not searched further: what it holds is its
 * files).  Symlinks are not followed (git starts from the physical directory).  Each
 * directory's names are read once (no lookups by name): a few system calls a directory.
 * Directories past MAX_SCAN_DEPTH or MAX_DIRS are counted as not searched.  0, or -1 out of
 * memory. */
static int scan_fd(shc_gitsnap *s, int fd, const char *rel, int depth,
                   const shc__gs_hooks *user, unsigned *repos, unsigned *dirs)
{
    char abs[PATH_MAX];
    if (snprintf(abs, sizeof abs, "%s%s%s", s->dir, *rel ? "/" : "", rel) < (int)sizeof abs)
        shc__gs_note(s, abs, fd);
    else
        s->noreuse = true;
    dir_names n;
    char *subs = NULL;
    size_t len = 0, nsubs = 0;
    if (!read_names(fd, &n, &subs, &len, &nsubs)) {
        free(subs);
        close(fd);
        return -1;
    }
    int rc = n.git ? capped(s, add_repo, rel, user, repos) : 0;
    /* looser than git on purpose: any HEAD, with objects, refs or a commondir */
    if (!rc && n.head && (n.objects || n.refs || n.commondir)) {
        free(subs);
        close(fd);
        return capped(s, add_bare, rel, user, repos);
    }
    char r[PATH_MAX];
    bool tagged = false;
    if (!rc && n.cachetag &&
        snprintf(r, sizeof r, "%s%sCACHEDIR.TAG", rel, *rel ? "/" : "") < (int)sizeof r) {
        marker_skip(s, r);
        tagged = marker_skip(s, *rel ? rel : ".");
    }
    const char *nm = subs;
    for (size_t i = 0; !rc && !tagged && i < nsubs; i++, nm += strlen(nm) + 1) {
        int k = snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", nm);
        if (k > 0 && (size_t)k < sizeof r && dep_dir(nm) && marker_skip(s, r))
            continue;
        if (depth >= MAX_SCAN_DEPTH || (*dirs)++ >= MAX_DIRS || k <= 0 || (size_t)k >= sizeof r) {
            s->unsearched++;
            continue;
        }
        int sub = openat(fd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            rc = scan_fd(s, sub, r, depth + 1, user, repos, dirs);
    }
    free(subs);
    close(fd);
    return rc;
}

static int scan(shc_gitsnap *s, const char *rel, int depth, const shc__gs_hooks *user,
                unsigned *repos, unsigned *dirs)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s%s%s", s->dir, *rel ? "/" : "", rel) >= (int)sizeof path)
        return 0;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? 0 : scan_fd(s, fd, rel, depth, user, repos, dirs);
}


shc_gitsnap *shc__gitsnap_take(const char *dir, const shc_gitsnap *prev)
{
    shc_gitsnap *s = calloc(1, sizeof *s);
    shc__gs_hooks *user = calloc(1, sizeof *user);
    if (!s || !user || !(s->dir = strdup(dir))) {
        free(s);
        free(user);
        return NULL;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    s->start_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    s->prev = prev;
    shc__gs_read_user_config(s, user);
    unsigned repos = 0, dirs = 0;
    int rc = scan(s, "", 0, user, &repos, &dirs);
    free(user);
    if (rc) {
        shc_gitsnap_free(s);
        return NULL;
    }
    s->prev = NULL;
    if (s->n)
        qsort(s->e, s->n, sizeof *s->e, shc__gitsnap_by_name);
    size_t k = 0; /* a file reached two ways (an include under .git, a hook's word) once */
    for (size_t i = 0; i < s->n; i++) {
        if (k && !strcmp(s->e[k - 1].name, s->e[i].name)) {
            s->e[k - 1].marker |= s->e[i].marker;
            s->e[k - 1].skipped |= s->e[i].skipped;
            free(s->e[i].name);
        } else {
            s->e[k++] = s->e[i];
        }
    }
    s->n = k;
    return s;
}
shc_gitsnap *shc_gitsnap_take(const char *dir)
{
    char *real = realpath(dir ? dir : ".", NULL);
    if (!real)
        return NULL;
    shc_gitsnap *s = shc__gitsnap_take(real, NULL);
    free(real);
    return s;
}

void shc_gitsnap_free(shc_gitsnap *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].name);
    free(s->e);
    shc__gs_free_deps(s);
    free(s->dir);
    free(s);
}
