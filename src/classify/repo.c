/* What a command reads from its repository without being told, judged when the real directory is
 * known (`shcard acp`, `shcard run`, `explain --cwd`, the library's opts.cwd).  Found by the
 * classifier red teams, each seen blocking, reading for ever or executing:
 *
 * - ignore files: rg, fd, ag, tree --gitignore and git read `.gitignore`, `.ignore`, `.rgignore`,
 *   `.fdignore`, `.agignore` in the directory they walk and in every parent, `.gitattributes`
 *   (git grep, bat's libgit2) and `.git/info/exclude`; a symlink to /dev/zero or /dev/tty, or a
 *   FIFO, there makes `rg foo .` read for ever or wait, and rg and fd compile every glob: 1 MiB
 *   of globs took rg 6 s and 180 MB, 64 KiB 0.5 s (fd 1.2 s).  Each such file must be a regular
 *   file that is not a symlink, and together they may hold SHC_IGNORE_MAX bytes.
 * - the git directory, whole: git and libgit2 read far more than config, HEAD and index (the
 *   split index's `sharedindex.*`, `objects/info/alternates`, loose objects when bat diffs the
 *   work tree, every `.git/modules/NAME/config` under --recurse-submodules, the common directory
 *   of a worktree).  Rather than list them, the whole control directory -- .git, the directory a
 *   gitfile names, its common directory -- must be ordinary: regular files and directories
 *   only, no symbolic link, no file over its bound (objects aside), no alternates, at most
 *   SHC_GIT_MAX_ENTRIES entries (one bounded scan; past a bound it is terminal; the object
 *   store only for bat, whose libgit2 reads blobs).  Every file named `config` or
 *   `config.worktree` in it (the repository's, a worktree's, a submodule's) must name none of
 *   the keys that run programs, read other files or change how a pattern is read.
 *   shc__git_dir_ordinary()'s answer depends only on that directory tree, so a caller may cache
 *   it per directory and modification times.
 *
 * - ignore and attribute files in subdirectories of the walk (a FIFO `.gitattributes` there
 *   blocked `git grep`), and every nested `.git` there judged as a git directory of its own
 *   (rg, ag and fd read its info/exclude, git its HEAD and, entering a submodule, the rest): in
 *   the bridge context only (shc__tree_check: a walk costs milliseconds a command), each
 *   plain, 64 KiB each and 256 KiB together, 20000 entries at most.
 * What stays unseen: FIFOs or huge files inside the walk (the tools skip what is not a regular
 * file when they walk), subdirectories' ignore files and nested repositories outside the
 * bridge context (submodules git may enter: rundir.c), the global configuration, the
 * environment. */
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
#define SHC_CONFIG_MAX (1L << 20)        /* a git config file larger than this is refused */
#define SHC_GIT_MAX_FILE (256LL << 20)   /* a file in the git directory (objects/ aside) */
#define SHC_GIT_MAX_ENTRIES 20000        /* entries of one git directory, all levels together */
#define SHC_GIT_MAX_DEPTH 12             /* levels below the git directory (modules nest) */
#define SHC_TREE_MAX_ENTRIES 20000       /* entries of a walked tree read for its ignore files */
#define SHC_TREE_MAX_DEPTH 64            /* levels of a walked tree */
#define SHC_TREE_IGNORE_MAX (256L << 10) /* ignore files below a walked directory, together */

static const char *const ignore_names[] = {".gitignore", ".ignore",        ".rgignore", ".fdignore",
                                           ".agignore",  ".gitattributes", ".hgignore"};

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

/* NULL when path does not exist or is a regular file of at most max bytes (also through a
 * symlink whose target is not under /dev, /proc, /sys or /run); else why not.  *size gets its
 * size (0 when missing). */
static const char *plain_file(const char *path, long long max, long long *size)
{
    struct stat st;
    *size = 0;
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
    *size = (long long)st.st_size;
    if (st.st_size > max)
        return "a very large file";
    return NULL;
}

/* fopen(path, "r"), except in the WebAssembly build: its host answers stat() and realpath()
 * only (bindings/node/shcard_wasm.c), so a file that must be read is refused there. */
static FILE *open_text(const char *path)
{
#ifdef __wasi__
    return (void)path, NULL;
#else
    return fopen(path, "r");
#endif
}

/* A path file as git reads it (`.git`'s gitdir line, commondir): the whole file, only trailing
 * newlines and carriage returns stripped (a newline inside is part of the path).  1 with out
 * set; 0 when it cannot be opened; -1 when it is too long or a control character is left in
 * it (shcard would judge another directory than git uses). */
static int read_pathfile(const char *path, char *out, size_t cap)
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

static int join(char *out, size_t cap, const char *dir, const char *name)
{
    int w = snprintf(out, cap, "%s/%s", strcmp(dir, "/") ? dir : "", name);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

void shc__ignbudget_init(shc_ignbudget *b)
{
    b->ignore = SHC_IGNORE_MAX;
    b->tree = SHC_TREE_IGNORE_MAX;
    b->nseen = 0;
}

/* Takes size bytes of the file p from *left unless b has counted that file already; false
 * when *left goes below zero. */
static bool charge(shc_ignbudget *b, const char *p, long long size, long long *left)
{
    struct stat st;
    if (size <= 0 || stat(p, &st) != 0)
        return true;
    for (size_t i = 0; i < b->nseen; i++)
        if (b->seen[i].dev == (unsigned long long)st.st_dev &&
            b->seen[i].ino == (unsigned long long)st.st_ino)
            return true;
    if (b->nseen < sizeof b->seen / sizeof *b->seen) {
        b->seen[b->nseen].dev = (unsigned long long)st.st_dev;
        b->seen[b->nseen++].ino = (unsigned long long)st.st_ino;
    }
    return (*left -= size) >= 0;
}

/* An ignore file dir/name, joined into p[0..n): plain, and within what is left of the
 * command's budget. */
static const char *ignore_at(char *p, size_t n, const char *dir, const char *name,
                             shc_ignbudget *budget, char *what, size_t cap)
{
    if (join(p, n, dir, name) < 0) {
        snprintf(what, cap, "%s/%s", dir, name);
        return "a path too long to judge";
    }
    long long size;
    const char *why = plain_file(p, SHC_IGNORE_MAX, &size);
    if (!why && !charge(budget, p, size, &budget->ignore))
        why = "one ignore file too many: together they hold over 64 KiB of patterns (rg and fd "
              "compile every glob)";
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
    char *real = realpath(g, NULL);
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
    if (join(cf, sizeof cf, p, "commondir") < 0)
        return "a path too long to judge";
    char line[2048] = "";
    int got = read_pathfile(cf, line, sizeof line);
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
    if (join(cf, sizeof cf, p, "commondir") < 0 || access(cf, F_OK) == 0) {
        snprintf(what, cap, "%s", cf);
        return "a git common directory shcard cannot follow";
    }
    return NULL;
#endif
}
typedef struct tscan {
    bool git; /* git walks (ls-files -o, grep --untracked) or recurses: nested .git judged whole */
    size_t entries;
    shc_ignbudget *b;
    char *what;
    size_t cap;
} tscan;

/* The ignore files of every directory below p[0..len) (rg, fd, ag and git read each one as
 * they walk; a FIFO named .gitattributes in a subdirectory blocked `git grep`): each must be
 * plain, all together within SHC_TREE_IGNORE_MAX, at most SHC_TREE_MAX_ENTRIES entries seen. */
static const char *tree_ignores(char *p, size_t len, int depth, tscan *s)
{
#ifdef __wasi__
    return (void)p, (void)len, (void)depth, (void)s, "a tree the WebAssembly build cannot walk";
#else
    if (depth > SHC_TREE_MAX_DEPTH) {
        snprintf(s->what, s->cap, "%s", p);
        return "nested too deeply to judge";
    }
    DIR *d = opendir(p);
    if (!d) {
        /* git does not list it: it takes paths from the index and opens <dir>/.gitattributes
         * by name, which needs only search permission (a FIFO there blocked git grep) */
        snprintf(s->what, s->cap, "%s", p);
        return "a directory shcard cannot list (a tool may still open files in it by name)";
    }
    const char *why = NULL;
    struct dirent *e;
    while (!why && (e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
            continue;
        size_t n = strlen(nm);
        if (++s->entries > SHC_TREE_MAX_ENTRIES || len + 1 + n + 1 > SHC_PATH_MAX) {
            snprintf(s->what, s->cap, "%s", p);
            why = s->entries > SHC_TREE_MAX_ENTRIES
                      ? "too large a tree to judge its ignore files (over 20000 entries)"
                      : "a path too long to judge";
            break;
        }
        if (!strcmp(nm, ".git")) {
            /* depth 0: the walked directory's own, judged by shc__repo_check; below it a nested
             * repository (a submodule, a clone): rg, ag and fd read its info/exclude (a FIFO
             * there blocked them), git its HEAD (ls-files -o) and, entering it, the rest */
            char g[SHC_PATH_MAX];
            int k = depth == 0 ? 0 : shc__git_dir_of(p, g, sizeof g, &why);
            if (k < 0)
                snprintf(s->what, s->cap, "%s/.git", p);
            else if (k > 0)
                why = shc__git_dir_judge(g, s->git, false, s->b, s->what, s->cap);
            continue;
        }
        bool ign = false;
        for (size_t i = 0; i < sizeof ignore_names / sizeof *ignore_names && !ign; i++)
            ign = !strcmp(nm, ignore_names[i]);
        if (!ign && (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
            continue;
        p[len] = '/';
        memcpy(p + len + 1, nm, n + 1);
        struct stat st;
        if (ign) {
            long long size;
            why = plain_file(p, SHC_IGNORE_MAX, &size);
            if (!why && !charge(s->b, p, size, &s->b->tree))
                why = "one ignore file too many: the walked tree holds over 256 KiB of them";
            if (why)
                snprintf(s->what, s->cap, "%s", p);
        } else if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            why = tree_ignores(p, len + 1 + n, depth + 1, s);
        }
        p[len] = '\0';
    }
    closedir(d);
    return why;
#endif
}

const char *shc__tree_check(const char *abs_dir, bool git, shc_ignbudget *b, char *what,
                            size_t cap)
{
    struct stat st;
    if (stat(abs_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    char p[SHC_PATH_MAX];
    int w = snprintf(p, sizeof p, "%s", abs_dir);
    if (w < 0 || (size_t)w >= sizeof p)
        return "a path too long to judge";
    tscan s = {git, 0, b, what, cap};
    return tree_ignores(p, (size_t)w, 0, &s);
}

/* The info/ files git reads as patterns in the git directory g (exclude: ls-files -o and the
 * walkers; attributes: git grep looks up every file searched; sparse-checkout: ls-files and
 * grep): in the ignore budget with the work tree's ignore files. */
static const char *git_info(const char *g, shc_ignbudget *budget, char *what, size_t cap)
{
    static const char *const names[] = {"info/exclude", "info/attributes", "info/sparse-checkout"};
    char p[SHC_PATH_MAX];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *why = ignore_at(p, sizeof p, g, names[i], budget, what, cap);
        if (why)
            return why;
    }
    return NULL;
}

/* The info/ files of the common directory g/commondir names (a worktree's, a linked
 * repository's). */
static const char *common_info(const char *g, shc_ignbudget *budget, char *what, size_t cap)
{
    char cf[SHC_PATH_MAX], line[2048] = "", common[SHC_PATH_MAX];
    long long size;
    if (join(cf, sizeof cf, g, "commondir") < 0)
        return "a path too long to judge";
    const char *why = plain_file(cf, 4096, &size);
    int got = why || size == 0 ? 0 : read_pathfile(cf, line, sizeof line);
    if (why || (size > 0 && got == 0)) {
        snprintf(what, cap, "%s", cf);
        return why ? why : "a git common directory shcard cannot follow";
    }
    if (size == 0)
        return NULL;
    int w = got < 0 || !line[0] ? -1
            : line[0] == '/' ? snprintf(common, sizeof common, "%s", line)
                             : snprintf(common, sizeof common, "%s/%s", g, line);
    if (w < 0 || (size_t)w >= sizeof common) {
        snprintf(what, cap, "%s", cf);
        return "a git common directory shcard cannot follow";
    }
    return git_info(common, budget, what, cap);
}

const char *shc__git_dir_judge(const char *g, bool whole, bool objects, shc_ignbudget *budget,
                               char *what, size_t cap)
{
    const char *why = whole ? shc__git_dir_ordinary(g, objects, what, cap) : NULL;
    if (!why && !(why = git_info(g, budget, what, cap)))
        why = common_info(g, budget, what, cap);
    return why;
}

int shc__git_dir_of(const char *d, char *g, size_t cap, const char **why)
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
    char line[4096 + 8] = "";
    if (read_pathfile(p, line, sizeof line) <= 0 || strncmp(line, "gitdir: ", 8) != 0 ||
        !line[8]) {
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

const char *shc__repo_check(const char *abs_dir, bool walks, bool git, bool objects,
                            shc_ignbudget *budget, char *what, size_t cap)
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
        /* git reads .gitignore (ls-files -o) and .gitattributes (grep; bat's libgit2) too */
        for (size_t i = 0; i < sizeof ignore_names / sizeof *ignore_names; i++) {
            const char *why = ignore_at(p, sizeof p, d, ignore_names[i], budget, what, cap);
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
                const char *why = shc__git_dir_judge(d, true, objects, budget, what, cap);
                if (why)
                    return why;
            }
        }
        if (!seen_before && (walks || git)) {
            char g[4096];
            const char *why = NULL;
            int k = shc__git_dir_of(d, g, sizeof g, &why);
            if (k < 0) {
                snprintf(what, cap, "%s/.git", strcmp(d, "/") ? d : "");
                return why;
            }
            if (k > 0) {
                git_seen = true;
                /* the walkers read only info/, here and in the common directory; git the
                 * whole directory, and its info/ files count in the ignore budget */
                if ((why = shc__git_dir_judge(g, git, objects, budget, what, cap)) != NULL)
                    return why;
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
