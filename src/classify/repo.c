/* What a command reads from its repository without naming it, judged when the real directory is
 * known (`shcard acp`, `shcard run`, `explain --cwd`, the library's opts.cwd).  Found by the
 * second classifier red team, each seen blocking, reading for ever or executing:
 *
 * - ignore files: rg, fd, ag, tree --gitignore and git read `.gitignore`, `.ignore`, `.rgignore`,
 *   `.fdignore`, `.agignore` in the directory they walk and in every parent, `.gitattributes`
 *   (git grep) and `.git/info/exclude`; a symlink to /dev/zero or /dev/tty, or a FIFO, there
 *   makes `rg foo .` read for ever or wait.  Each such file, where it exists, must be a regular
 *   file that is not a symlink and not huge.
 * - git's own files and configuration: `.git/config`, `HEAD`, `index` as FIFOs block every git
 *   command (and bat, whose libgit2 reads the config for its change markers); the configuration
 *   runs programs (`core.fsmonitor` on `git ls-files` and `git grep`), reads other files
 *   (`include.path = /dev/stdin`, `core.excludesFile`), or changes how a pattern is read
 *   (`grep.patternType`, `diff.X.xfuncname` for `git grep -p`).  The repository's config files
 *   must be regular files that name none of the keys below.
 *
 * What stays unseen: ignore and attribute files in subdirectories of the walk, and FIFOs or huge
 * files inside it (a walk of every directory at classification time would cost more than the
 * command); the user's global git configuration and environment. */
#define _DEFAULT_SOURCE /* realpath */
#include "classify/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <sys/stat.h>

#define SHC_REPO_MAX_FILE (64L << 20) /* an ignore or config file larger than this is refused */

static const char *const ignore_names[] = {".gitignore", ".ignore", ".rgignore", ".fdignore",
                                           ".agignore", ".gitattributes"};

/* Keys of a repository's git configuration that execute programs, read other files, or change
 * how a command reads its arguments (matched as case-insensitive substrings of the file: a
 * superset, so a comment that names one is refused too). */
static const char *const git_keys[] = {
    "fsmonitor", "include",  "excludesfile", "attributesfile", "funcname", "patterntype",
    "extendedregexp", "pager", "textconv", "promisor", "partialclone", "sshcommand", "worktree",
    "filter"};

/* NULL when path does not exist or is a regular file of a sane size (also through a symlink
 * whose target is not under /dev, /proc, /sys or /run); else why not. */
static const char *plain_file(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return NULL;
    if (S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real)
            return NULL; /* dangling: the tool finds nothing */
        shc_path np;
        unsigned j = shc__path_check(NULL, real, &np);
        free(real);
        if (j & (SHC_PATH_SPECIAL | SHC_PATH_ROOT | SHC_PATH_TOOLONG))
            return "a symbolic link to a device or process file";
        if (stat(path, &st) != 0)
            return NULL;
    }
    if (!S_ISREG(st.st_mode))
        return S_ISDIR(st.st_mode) ? "a directory" : "not a regular file (a FIFO, device or socket)";
    if (st.st_size > SHC_REPO_MAX_FILE)
        return "a very large file";
    return NULL;
}

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

static int join(char *out, size_t cap, const char *dir, const char *name)
{
    int w = snprintf(out, cap, "%s/%s", strcmp(dir, "/") ? dir : "", name);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

/* plain_file() of dir/name, joined into p[0..n); on a problem, what names the file. */
static const char *plain_at(char *p, size_t n, const char *dir, const char *name, char *what,
                            size_t cap)
{
    if (join(p, n, dir, name) < 0) {
        snprintf(what, cap, "%s/%s", dir, name);
        return "a path too long to judge";
    }
    const char *why = plain_file(p);
    if (why)
        snprintf(what, cap, "%s", p);
    return why;
}

/* The config file's text holds one of git_keys. */
static bool config_risky(const char *path)
{
    FILE *f = open_text(path);
    if (!f)
        return true; /* it exists (the caller lstat()ed it) but cannot be read: refuse */
    static const size_t cap = 1u << 20;
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
        if (risky || total > cap)
            break;
        keep = len < 24 ? len : 24; /* a key split across two reads */
        memmove(buf, buf + len - keep, keep);
    }
    fclose(f);
    return risky || total > cap;
}

/* Checks git's files in the git directory g (config, config.worktree, HEAD, index, info/exclude,
 * and the common directory's).  Returns why not, or NULL. */
static const char *git_dir_check(const char *g, int depth, char *what, size_t cap)
{
    static const char *const files[] = {"config", "config.worktree", "HEAD", "index",
                                        "info/exclude", "commondir", "info/attributes"};
    char p[4096];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        const char *why = plain_at(p, sizeof p, g, files[i], what, cap);
        if (why)
            return why;
        struct stat st;
        if (i < 2 && lstat(p, &st) == 0 && config_risky(p)) {
            snprintf(what, cap, "%s", p);
            return "a git configuration that may run programs or read other files";
        }
    }
    if (join(p, sizeof p, g, "commondir") < 0) {
        snprintf(what, cap, "%s/commondir", g);
        return "a path too long to judge";
    }
    struct stat st;
    if (lstat(p, &st) != 0)
        return NULL; /* no common directory: g is the whole git directory */
    FILE *f = open_text(p);
    char line[2048] = "";
    bool got = f && fgets(line, sizeof line, f) != NULL;
    if (f)
        fclose(f);
    line[strcspn(line, "\r\n")] = 0;
    if (!got || !line[0] || depth > 0) {
        snprintf(what, cap, "%s", p);
        return "a git common directory shcard cannot follow";
    }
    char common[4096];
    int w = line[0] == '/' ? snprintf(common, sizeof common, "%s", line)
                           : snprintf(common, sizeof common, "%s/%s", g, line);
    if (w < 0 || (size_t)w >= sizeof common) {
        snprintf(what, cap, "%s", p);
        return "a path too long to judge";
    }
    return git_dir_check(common, depth + 1, what, cap);
}

/* The git directory for the work tree directory d: d/.git, or the `gitdir:` a .git file names.
 * Returns 1 with *g set, 0 when d has no .git, -1 (why set) when it cannot be judged. */
static int git_dir_of(const char *d, char *g, size_t cap, const char **why)
{
    char p[4096];
    struct stat st;
    if (join(p, sizeof p, d, ".git") < 0) {
        *why = "a path too long to judge";
        return -1;
    }
    if (lstat(p, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode)) {
        snprintf(g, cap, "%s", p);
        return 1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > 4096) {
        *why = "a .git that is neither a directory nor a small file";
        return -1;
    }
    FILE *f = open_text(p);
    char line[4096] = "";
    bool got = f && fgets(line, sizeof line, f);
    if (f)
        fclose(f);
    line[strcspn(line, "\r\n")] = 0;
    if (!got || strncmp(line, "gitdir: ", 8) != 0 || !line[8]) {
        *why = "a .git file shcard cannot follow";
        return -1;
    }
    int w = line[8] == '/' ? snprintf(g, cap, "%s", line + 8) : snprintf(g, cap, "%s/%s", d, line + 8);
    if (w < 0 || (size_t)w >= cap) {
        *why = "a path too long to judge";
        return -1;
    }
    return 1;
}

const char *shc__repo_check(const char *abs_dir, bool walks, bool git, char *what, size_t cap)
{
    char d[4096];
    struct stat st;
    /* what names the file a problem is in; until one is found, the directory judged (every
     * return below that gives up on a path leaves it so or names a deeper file) */
    snprintf(what, cap, "%s", abs_dir);
    if (snprintf(d, sizeof d, "%s", abs_dir) >= (int)sizeof d)
        return "a path too long to judge";
    /* a file operand (bat's): its directory */
    if (stat(d, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char *slash = strrchr(d, '/');
        if (slash == d)
            d[1] = 0;
        else if (slash)
            *slash = 0;
    }
    bool git_seen = false;
    for (;;) {
        char p[4096];
        if (walks)
            for (size_t i = 0; i < sizeof ignore_names / sizeof *ignore_names; i++) {
                const char *why = plain_at(p, sizeof p, d, ignore_names[i], what, cap);
                if (why)
                    return why;
            }
        bool seen_before = git_seen;
        if (!git_seen && git) {
            /* git takes a directory that holds HEAD and objects (or commondir) for a bare
             * repository: a repository can carry one (`evil/config` with core.worktree = ..
             * and core.fsmonitor ran on `cd evil && git ls-files`) */
            char h[4096], o[4096], cd[4096];
            struct stat hs;
            if (join(h, sizeof h, d, "HEAD") < 0 || join(o, sizeof o, d, "objects") < 0 ||
                join(cd, sizeof cd, d, "commondir") < 0) {
                snprintf(what, cap, "%s", d);
                return "a path too long to judge";
            }
            if (lstat(h, &hs) == 0 && (lstat(o, &hs) == 0 || lstat(cd, &hs) == 0)) {
                git_seen = true;
                const char *why = git_dir_check(d, 0, what, cap);
                if (why)
                    return why;
            }
        }
        if (!seen_before && (walks || git)) {
            char g[4096];
            const char *why = NULL;
            int k = git_dir_of(d, g, sizeof g, &why);
            if (k < 0) {
                snprintf(what, cap, "%s/.git", strcmp(d, "/") ? d : "");
                return why;
            }
            if (k > 0) {
                git_seen = true;
                if (!git) {
                    /* the walkers read info/exclude only */
                    if ((why = plain_at(p, sizeof p, g, "info/exclude", what, cap)))
                        return why;
                } else if ((why = git_dir_check(g, 0, what, cap))) {
                    return why;
                }
            }
        }
        if (!strcmp(d, "/"))
            break;
        char *slash = strrchr(d, '/');
        if (!slash)
            break;
        if (slash == d)
            d[1] = 0;
        else
            *slash = 0;
    }
    return NULL;
}
