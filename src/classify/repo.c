/* What a command reads from its repository without being told, judged when the real directory is
 * known (`shcard acp`, `shcard run`, `explain --cwd`, the library's opts.cwd); each rule was
 * found by a red team blocking, reading for ever or executing, and
 * docs/classifier-repositories.md states them with their bounds:
 * - ignore files in the walked directory and every parent (a link to /dev/zero or a FIFO made
 *   `rg foo .` wait; rg and fd compile every glob): regular, SHC_IGNORE_MAX bytes together;
 * - the git directory, whole, in one bounded scan (git and libgit2 read far more than config,
 *   HEAD and index): regular files and directories only, no link or alternates, bounded sizes
 *   and entries, every config naming no key that runs programs or reads other files.  Its
 *   answer depends only on that tree (a caller may cache it by modification times);
 * - ignore files below the walk, and every nested `.git` there judged as a git directory of
 *   its own (rg, ag and fd read its info/exclude, git its HEAD and, entering a submodule, the
 *   rest), in the bridge context only (shc__tree_check);
 * - the submodules git may enter and ack's project .ackrc: rundir.c.
 * Unseen: FIFOs or huge files inside the walk (the tools skip them), nested repositories that
 * are no submodules outside the bridge context, global git configuration and the environment. */
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
#define SHC_TREE_MAX_DEPTH 64            /* levels of a walked tree */
#define SHC_TREE_IGNORE_MAX (256L << 10) /* ignore files below a walked directory, together */

static const char *const ignore_names[] = {".gitignore", ".ignore",        ".rgignore", ".fdignore",
                                           ".agignore",  ".gitattributes", ".hgignore"};


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
        /* .ignore -> /proc/self/fd/1: realpath() answers for shcard's descriptor (a pipe:
         * "dangling"), the tool opens its own terminal */
        if (shc__path_magic(path))
            return "a symbolic link through a device or process file";
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


void shc__ignbudget_init(shc_ignbudget *b)
{
    b->ignore = SHC_IGNORE_MAX;
    b->tree = SHC_TREE_IGNORE_MAX;
    b->wild = SHC_PATTERN_WEIGHT;
    b->input = SHC_INPUT_MAX;
    b->entries = 0;
    b->names = SHC_TREE_MAX_NAMES;
    b->whole_files = b->globals = b->subtree = b->blobs = b->per_match = false;
    b->nseen = 0;
}

/* Takes size bytes of the file p from *left unless b has counted that file already: -1 when
 * *left goes below zero, 0 when counted before (or empty), 1 when counted now. */
static int charge(shc_ignbudget *b, const char *p, long long size, long long *left)
{
    struct stat st;
    if (size <= 0 || stat(p, &st) != 0)
        return 0;
    for (size_t i = 0; i < b->nseen; i++)
        if (b->seen[i].dev == (unsigned long long)st.st_dev &&
            b->seen[i].ino == (unsigned long long)st.st_ino)
            return 0;
    if (b->nseen < sizeof b->seen / sizeof *b->seen) {
        b->seen[b->nseen].dev = (unsigned long long)st.st_dev;
        b->seen[b->nseen++].ino = (unsigned long long)st.st_ino;
    }
    return (*left -= size) >= 0 ? 1 : -1;
}

/* git matches the lines of .gitignore, .gitattributes and info/{exclude,attributes,
 * sparse-checkout} with wildmatch(), which backtracks over every `**` against every directory
 * of a path: with one file 1,000 directories deep, a line of 2 `**` segments (`**`, `a`, `**`,
 * `b` joined by slashes) took 0.02 s of `git grep foo`, 3 `**` 1.1 s; 60 directories deep, 5
 * `**` 0.05 s, 6 0.5 s, 8 2.3 s, 13 did not
 * finish (single `*` are cheap: 16 of them 0.01 s).  And git, rg and fd match every line
 * against every path: 10 lines of 2 `**` over 19,000 tracked files 60 deep took 2.8 s.  NULL
 * when no line of the regular file p holds more than SHC_MAX_DOUBLESTARS `**` (git's files)
 * and its wildcard lines fit in what is left of b->wild (fresh: not counted before). */
static const char *wild_lines(const char *p, const char *name, bool git, shc_ignbudget *b,
                              bool fresh)
{
    static const char *const git_names[] = {".gitignore", ".gitattributes", "exclude",
                                            "attributes", "sparse-checkout"};
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (size_t i = 0; i < sizeof git_names / sizeof *git_names && !git; i++)
        git = !strcmp(base, git_names[i]);
#ifdef __wasi__ /* the host answers stat() and realpath() only: a file to read is refused */
    (void)p, (void)b, (void)fresh;
    return git ? "a git pattern file the WebAssembly build cannot read" : NULL;
#else
    FILE *f = git || fresh ? fopen(p, "r") : NULL;
    if (!f)
        return NULL;
    char *buf = malloc(SHC_IGNORE_MAX + 1);
    size_t n = buf ? fread(buf, 1, SHC_IGNORE_MAX, f) : 0;
    fclose(f);
    if (!buf)
        return "out of memory reading an ignore file";
    buf[n] = '\0';
    for (size_t i = 0; i < n; i++)
        buf[i] = buf[i] ? buf[i] : ' '; /* a NUL byte does not hide the rest of its line */
    const char *why = shc__pattern_lines(buf, n, git, fresh ? &b->wild : NULL);
    free(buf);
    return why;
#endif
}

/* An ignore file dir/name, joined into p[0..n): plain, and within what is left of the
 * command's budget. */
static const char *ignore_at(char *p, size_t n, const char *dir, const char *name,
                             shc_ignbudget *budget, char *what, size_t cap)
{
    if (shc__path_join(p, n, dir, name) < 0) {
        snprintf(what, cap, "%s/%s", dir, name);
        return "a path too long to judge";
    }
    long long size;
    const char *why = plain_file(p, SHC_IGNORE_MAX, &size);
    int fresh = why ? 0 : charge(budget, p, size, &budget->ignore);
    if (fresh < 0)
        why = "one ignore file too many: together they hold over 64 KiB of patterns (rg and fd "
              "compile every glob)";
    if (!why && size > 0)
        why = wild_lines(p, name, false, budget, fresh > 0);
    if (why)
        snprintf(what, cap, "%s", p);
    return why;
}

const char *shc__pattern_file(const char *p, bool git, shc_ignbudget *b, char *what, size_t cap)
{
    long long size;
    const char *why = plain_file(p, SHC_IGNORE_MAX, &size);
    int fresh = why ? 0 : charge(b, p, size, &b->ignore);
    if (fresh < 0)
        why = "one ignore file too many: together they hold over 64 KiB of patterns (rg and fd "
              "compile every glob)";
    if (!why && size > 0)
        why = wild_lines(p, p, git, b, fresh > 0);
    if (why)
        snprintf(what, cap, "%s", p);
    return why;
}
const char *shc__config_file(const char *p, shc_ignbudget *b, char *what, size_t cap)
{
    long long size;
    const char *why = plain_file(p, SHC_IGNORE_MAX, &size);
    if (!why && charge(b, p, size, &b->ignore) < 0)
        why = "one ignore file too many: together they hold over 64 KiB of patterns (rg and fd "
              "compile every glob)";
    if (why)
        snprintf(what, cap, "%s", p);
    return why;
}

typedef struct tscan {
    bool ignores; /* the tool reads the ignore files of every directory (rg, fd, ag, git) */
    bool git; /* git walks (ls-files -o, grep --untracked) or recurses: nested .git judged whole */
    shc_ignbudget *b;
    char *what;
    size_t cap;
    size_t root; /* the walked root's length: a path below it is printed from there */
} tscan;

/* Every entry below p[0..len): counted with its full path against the command's bounds (find
 * prints each path: 3,000 nested directories of 250-byte names made 1.1 GB of `find .`; grep -r,
 * ack, ls -R and tree read no ignore file, so nothing else bounded their walks); the ignore
 * files of every directory for the tools that read them (a FIFO named .gitattributes in a
 * subdirectory blocked `git grep`), all together within SHC_TREE_IGNORE_MAX; the regular files
 * for the tools that read them whole (ag, ack and git grep --no-index judge "binary" by the
 * first block: 24 KB of text then a 20 GiB hole was read to its end). */
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
    if (!d && !s->ignores)
        return NULL; /* grep -r, find, ack, ls -R, tree: they cannot list it either */
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
        s->b->names -= (long long)(len + 1 + n);
        if (++s->b->entries > SHC_TREE_MAX_ENTRIES || s->b->names < 0 ||
            len + 1 + n + 1 > SHC_PATH_MAX ||
            (s->b->per_match && len + 1 + n - s->root > SHC_MATCH_PATH_MAX)) {
            snprintf(s->what, s->cap, "%s", p);
            why = s->b->per_match && len + 1 + n + 1 <= SHC_PATH_MAX &&
                          len + 1 + n - s->root > SHC_MATCH_PATH_MAX
                      ? "a path over 1 KiB below a searched directory (a search may print it "
                        "before every matching line)"
                  : s->b->entries > SHC_TREE_MAX_ENTRIES
                      ? "too large a tree to judge (over 20000 entries below the walked "
                        "directories together)"
                  : s->b->names < 0 ? "too large a tree to judge (its full paths hold over 8 MiB "
                                      "together: a listing prints each)"
                                    : "a path too long to judge";
            break;
        }
        bool ign = false;
        for (size_t i = 0; s->ignores && i < sizeof ignore_names / sizeof *ignore_names && !ign;
             i++)
            ign = !strcmp(nm, ignore_names[i]);
        if (s->ignores && !strcmp(nm, ".git")) {
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
        bool whole = s->b->whole_files && (e->d_type == DT_REG || e->d_type == DT_UNKNOWN);
        if (!ign && !whole && (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
            continue;
        p[len] = '/';
        memcpy(p + len + 1, nm, n + 1);
        struct stat st;
        if (ign) {
            long long size;
            why = plain_file(p, SHC_IGNORE_MAX, &size);
            int fresh = why ? 0 : charge(s->b, p, size, &s->b->tree);
            if (fresh < 0)
                why = "one ignore file too many: the walked tree holds over 256 KiB of them";
            if (!why && size > 0)
                why = wild_lines(p, nm, false, s->b, fresh > 0);
            if (why)
                snprintf(s->what, s->cap, "%s", p);
        } else if (lstat(p, &st) != 0) {
            /* gone since readdir: the tool does not see it either */
        } else if (S_ISDIR(st.st_mode)) {
            why = tree_ignores(p, len + 1 + n, depth + 1, s);
        } else if (whole && S_ISREG(st.st_mode) && (s->b->input -= st.st_size) < 0) {
            snprintf(s->what, s->cap, "%s", p);
            why = "a tree whose files hold over 1 GiB together (with the named files), read to "
                  "the end by a tool that judges binary files by their first block";
        }
        p[len] = '\0';
    }
    closedir(d);
    return why;
#endif
}

const char *shc__tree_check(const char *abs_dir, bool ignores, bool git, shc_ignbudget *b,
                            char *what, size_t cap)
{
    struct stat st;
    if (stat(abs_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    char p[SHC_PATH_MAX];
    int w = snprintf(p, sizeof p, "%s", abs_dir);
    if (w < 0 || (size_t)w >= sizeof p)
        return "a path too long to judge";
    tscan s = {ignores, git, b, what, cap, (size_t)w};
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
    if (shc__path_join(cf, sizeof cf, g, "commondir") < 0)
        return "a path too long to judge";
    const char *why = plain_file(cf, 4096, &size);
    int got = why || size == 0 ? 0 : shc__read_pathfile(cf, line, sizeof line);
    if (why || (size > 0 && got == 0)) {
        snprintf(what, cap, "%s", cf);
        return why ? why : "a git common directory shcard cannot follow";
    }
    if (size == 0)
        return NULL;
    int w = got < 0 || !line[0] ? -1
            : line[0] == '/' ? snprintf(common, sizeof common, "%s", line)
                             : snprintf(common, sizeof common, "%s/%s", g, line);
    shc_path wp;
    if (w < 0 || (size_t)w >= sizeof common || shc__path_magic(common) ||
        (shc__path_check(NULL, common, &wp) & SHC_PATH_SPECIAL)) {
        /* a common directory through /proc/self/cwd resolves in the command's process */
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
    if (shc__path_join(p, sizeof p, d, ".git") < 0) {
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
    if (shc__read_pathfile(p, line, sizeof line) <= 0 || strncmp(line, "gitdir: ", 8) != 0 ||
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
            if (shc__path_join(h, sizeof h, d, "HEAD") < 0 ||
                shc__path_join(o, sizeof o, d, "objects") < 0 ||
                shc__path_join(cd, sizeof cd, d, "commondir") < 0) {
                snprintf(what, cap, "%s", d);
                return "a path too long to judge";
            }
            if (lstat(h, &hs) == 0 && (lstat(o, &hs) == 0 || lstat(cd, &hs) == 0)) {
                git_seen = shc__git_stops_at(d);
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
                /* a .git file git cannot follow is fatal to git; a .git directory that is no
                 * repository is passed over for the parent's */
                bool dir_form = shc__path_join(p, sizeof p, d, ".git") == 0 &&
                                lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
                git_seen = git_seen || !dir_form || shc__git_stops_at(g);
                /* the walkers read only info/, here and in the common directory; git the
                 * whole directory, and its info/ files count in the ignore budget */
                if ((why = shc__git_dir_judge(g, git, objects, budget, what, cap)) != NULL)
                    return why;
                if (objects && budget->blobs) {
                    snprintf(what, cap, "%s", g);
                    return "a git repository, and bat's change gutter diffs the file against "
                           "its index blob, which libgit2 inflates whole (a 389 KB object held "
                           "400 MB): -p, -n or --decorations=never turn the gutter off";
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
