/* The git control directory judged whole, for repo.c (paths and ignore files) and the rules:
 * git and libgit2 read far more than config, HEAD and index (the split index's
 * `sharedindex.*`, alternates, loose objects when bat compares the work tree, every
 * `.git/modules/NAME/config`, a worktree's common directory), so rather than list them, the
 * whole directory -- .git, the directory a gitfile names, its common directory -- must be
 * ordinary: regular files and directories only, no symbolic link, no file over its bound
 * (objects aside), no alternates, at most SHC_GIT_MAX_ENTRIES entries (one bounded scan; past
 * a bound it is terminal; the object store only for bat, whose libgit2 reads blobs).  Every
 * file named `config` or `config.worktree` in it must name none of the keys that run programs,
 * read other files or change how a pattern is read.  Also: the files git reads a path from
 * (`.git`, commondir) read as git reads them, and whether git stops at a directory when it
 * looks for its repository (shc__git_stops_at).  docs/classifier-repositories.md states the
 * rules and bounds. */
#define _DEFAULT_SOURCE /* realpath */
#include "classify/policy.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHC_PATH_MAX 4096
#define SHC_CONFIG_MAX (1L << 20)      /* a git config file larger than this is refused */
#define SHC_GIT_MAX_FILE (256LL << 20) /* a file in the git directory (objects/ aside) */
#define SHC_GIT_MAX_ENTRIES 20000      /* entries of one git directory, all levels together */
#define SHC_GIT_MAX_DEPTH 12           /* levels below the git directory (modules nest) */

/* Keys of a repository's git configuration that execute programs, read other files, or change
 * how a command reads its arguments (matched as case-insensitive substrings of the file: a
 * superset, so a comment that names one is refused too). */
static const char *const git_keys[] = {
    "fsmonitor", "include",  "excludesfile", "attributesfile", "funcname", "patterntype",
    "extendedregexp", "pager", "textconv", "promisor", "partialclone", "sshcommand", "worktree",
    "filter", "external", "alternate", "gitproxy",
    /* submodule.recurse makes git grep and ls-files enter submodules, whose own .git in the
     * work tree is judged by no one; every submodule.* key is refused */
    "submodule",
    /* grep.threads, index.threads, pack.threads: as many threads as it says */
    "threads",
    /* extensions.objectFormat = sha256: index entries of another width (rundir.c reads the
     * index for its gitlinks) */
    "objectformat"};

/* fopen(path, "r"), except in the WebAssembly build: its host answers stat() and realpath()
 * only (bindings/node/shcard_wasm.c), so a file that must be read is refused there. */
static FILE *open_text(const char *path)
{
#ifdef __wasi__
    (void)path;
    return NULL;
#else
    return fopen(path, "r");
#endif
}

/* A path file as git reads it (`.git`'s gitdir line, commondir): the whole file, only trailing
 * newlines and carriage returns stripped (a newline inside is part of the path).  1 with out
 * set; 0 when it cannot be opened; -1 when it is too long or a control character is left in
 * it (shcard would judge another directory than git uses). */
int shc__read_pathfile(const char *path, char *out, size_t cap)
{
    FILE *f = open_text(path);
    if (!f)
        return 0;
    size_t n = fread(out, 1, cap - 1, f);
    bool more = fgetc(f) != EOF;
    fclose(f);
    if (more)
        return -1;
    while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
        n--;
    out[n] = 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
            return -1;
    return 1;
}

int shc__path_join(char *out, size_t cap, const char *dir, const char *name)
{
    int w = snprintf(out, cap, "%s/%s", strcmp(dir, "/") ? dir : "", name);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

/* The config file's text holds one of git_keys. */
static bool config_risky(const char *path)
{
    FILE *f = open_text(path);
    if (!f)
        return true; /* it exists (the caller lstat()ed it) but cannot be read: refuse */
    char buf[4096 + 32];
    size_t keep = 0, total = 0;
    bool risky = false;
    for (;;) {
        size_t n = fread(buf + keep, 1, sizeof buf - 1 - keep, f);
        if (n == 0)
            break;
        total += n;
        size_t len = keep + n;
        buf[len] = 0;
        for (size_t i = keep; i < len; i++)
            buf[i] = buf[i] == 0 ? ' ' : (char)tolower((unsigned char)buf[i]);
        for (size_t k = 0; k < sizeof git_keys / sizeof *git_keys && !risky; k++)
            if (strstr(buf, git_keys[k]))
                risky = true;
        if (risky || total > SHC_CONFIG_MAX)
            break;
        keep = len < 24 ? len : 24; /* a key split across two reads */
        memmove(buf, buf + len - keep, keep);
    }
    fclose(f);
    return risky || total > SHC_CONFIG_MAX;
}

typedef struct gscan {
    bool objects; /* libgit2 (bat) reads objects: the object store is scanned too */
    size_t entries;
    char *what;
    size_t cap;
} gscan;

/* One entry of a git directory, p (its name at p + name): why it is not ordinary, or NULL. */
static const char *git_entry(char *p, size_t len, size_t name, int depth, unsigned char type,
                             gscan *s);

/* Scans the directory p[0..len) (a buffer of SHC_PATH_MAX bytes): every entry ordinary. */
static const char *git_tree(char *p, size_t len, int depth, gscan *s)
{
    if (depth > SHC_GIT_MAX_DEPTH) {
        snprintf(s->what, s->cap, "%s", p);
        return "nested too deeply to judge";
    }
    DIR *d = opendir(p);
    if (!d) {
        snprintf(s->what, s->cap, "%s", p);
        return "a directory shcard cannot read";
    }
    const char *why = NULL;
    struct dirent *e;
    while (!why && (e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
            continue;
        size_t n = strlen(nm);
        if (++s->entries > SHC_GIT_MAX_ENTRIES || len + 1 + n + 1 > SHC_PATH_MAX) {
            snprintf(s->what, s->cap, "%s", p);
            why = s->entries > SHC_GIT_MAX_ENTRIES ? "too large to judge (over 20000 entries)"
                                                   : "a path too long to judge";
            break;
        }
        p[len] = '/';
        memcpy(p + len + 1, nm, n + 1);
        why = git_entry(p, len + 1 + n, len + 1, depth, e->d_type, s);
        p[len] = '\0';
    }
    closedir(d);
    return why;
}

static const char *git_entry(char *p, size_t len, size_t name, int depth, unsigned char type,
                             gscan *s)
{
    const char *nm = p + name, *why = NULL;
    /* the directory entry's own type answers most entries without a stat: directories, and
     * objects (loose objects are inflated, packs mapped in windows: their size does not make
     * a read endless); a stat only for the other regular files, links, and unknown types */
    /* git ls-files and worktree git grep read no object (revisions and --cached are terminal):
     * for them the object store is skipped but for objects/info (alternates) */
    bool skip = !s->objects && name >= 9 && !memcmp(p + name - 9, "/objects/", 9) &&
                strcmp(nm, "info") != 0;
    if (type == DT_DIR)
        return skip ? NULL : git_tree(p, len, depth + 1, s);
    if (type == DT_REG && strstr(p, "/objects/") && strcmp(nm, "alternates") != 0 &&
        strcmp(nm, "http-alternates") != 0)
        return NULL;
    struct stat st;
    if (lstat(p, &st) != 0)
        why = "a file that cannot be examined";
    else if (S_ISDIR(st.st_mode))
        return skip ? NULL : git_tree(p, len, depth + 1, s);
    else if (S_ISLNK(st.st_mode))
        why = "a symbolic link (git and libgit2 follow it out of the repository)";
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file (a FIFO, device or socket)";
    else if (!strcmp(nm, "alternates") || !strcmp(nm, "http-alternates"))
        why = "a list of alternates (objects read from another directory)";
    else if (!strcmp(nm, "config") || !strcmp(nm, "config.worktree")) {
        if (st.st_size > SHC_CONFIG_MAX || config_risky(p))
            why = "a git configuration that may run programs or read other files";
    } else if (st.st_size > SHC_GIT_MAX_FILE)
        why = "a very large file";
    if (why)
        snprintf(s->what, s->cap, "%s", p);
    return why;
}

/* The git directory g must not lead to a device, a process file or the root. */
static const char *git_top(const char *g, char *p, gscan *s)
{
    /* a gitdir or commondir written as /proc/self/cwd/x: realpath() answers for shcard's
     * directory, git for the command's */
    shc_path wp;
    bool magic = shc__path_magic(g) || (shc__path_check(NULL, g, &wp) & SHC_PATH_SPECIAL);
    char *real = magic ? NULL : realpath(g, NULL);
    if (!real) {
        snprintf(s->what, s->cap, "%s", g);
        return "a git directory that cannot be resolved";
    }
    shc_path np;
    unsigned j = shc__path_check(NULL, real, &np);
    int w = snprintf(p, SHC_PATH_MAX, "%s", real);
    free(real);
    if (j & (SHC_PATH_SPECIAL | SHC_PATH_ROOT | SHC_PATH_TOOLONG) || w < 0 || w >= SHC_PATH_MAX) {
        snprintf(s->what, s->cap, "%s", g);
        return "a git directory in a device or process directory";
    }
    return git_tree(p, (size_t)w, 0, s);
}

const char *shc__git_dir_ordinary(const char *g, bool objects, char *what, size_t cap)
{
#ifdef __wasi__
    (void)git_top, (void)objects;
    snprintf(what, cap, "%s", g); /* no directory listing here */
    return "a git directory the WebAssembly build cannot examine";
#else
    gscan s = {objects, 0, what, cap};
    char p[SHC_PATH_MAX];
    const char *why = git_top(g, p, &s);
    if (why)
        return why;
    /* a worktree's (or a linked repository's) common directory: read, and scanned too */
    char cf[SHC_PATH_MAX];
    if (shc__path_join(cf, sizeof cf, p, "commondir") < 0)
        return "a path too long to judge";
    char line[2048] = "";
    int got = shc__read_pathfile(cf, line, sizeof line);
    if (got == 0)
        return NULL; /* none (the scan saw every file that is there) */
    char common[SHC_PATH_MAX];
    int w = got < 0 || !line[0] ? -1
            : line[0] == '/' ? snprintf(common, sizeof common, "%s", line)
                             : snprintf(common, sizeof common, "%s/%s", p, line);
    if (w < 0 || (size_t)w >= sizeof common) {
        snprintf(what, cap, "%s", cf);
        return "a git common directory shcard cannot follow";
    }
    if ((why = git_top(common, p, &s)) != NULL)
        return why;
    if (shc__path_join(cf, sizeof cf, p, "commondir") < 0 || access(cf, F_OK) == 0) {
        snprintf(what, cap, "%s", cf);
        return "a git common directory shcard cannot follow";
    }
    return NULL;
#endif
}

/* Whether git surely takes g as a repository and stops looking in the parents: git's own test
 * (is_git_directory: a valid HEAD, objects and refs), stricter.  git passes over a .git
 * directory that is none (an empty w/.git let `git ls-files` run the fsmonitor of the
 * repository above); with a commondir, the walk goes on too. */
bool shc__git_stops_at(const char *g)
{
    static const char *const dirs[] = {"objects", "refs"};
    char p[4096], head[128] = "";
    struct stat st;
    if (shc__path_join(p, sizeof p, g, "commondir") < 0 || lstat(p, &st) == 0)
        return false;
    for (size_t i = 0; i < 2; i++)
        if (shc__path_join(p, sizeof p, g, dirs[i]) < 0 || stat(p, &st) != 0 ||
            !S_ISDIR(st.st_mode) || (st.st_mode & 0111) != 0111) /* searchable by git */
            return false;
    FILE *f = shc__path_join(p, sizeof p, g, "HEAD") < 0 || lstat(p, &st) != 0 ||
                      !S_ISREG(st.st_mode) ? NULL : open_text(p);
    if (!f)
        return false;
    head[fread(head, 1, sizeof head - 1, f)] = '\0';
    fclose(f);
    size_t hex = strspn(head, "0123456789abcdef");
    return !strncmp(head, "ref: refs/", 10) ||
           ((hex == 40 || hex == 64) && (head[hex] == '\n' || !head[hex]));
}
