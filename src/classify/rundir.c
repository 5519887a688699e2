/* What a tool reads from the directory its process runs in when no path names it, judged when
 * the real directory is known (`shcard acp`, `shcard run`, `explain --cwd`, the library's
 * opts.cwd).  Both were found by the classifier red team:
 *
 * - ack loads a project ackrc: the first `.ackrc` or `_ackrc` from getcwd() up to `/`
 *   (App::Ack::ConfigFinder), where only --pager is refused, so `--files-from=FIFO` blocked and
 *   `--follow` walks links.  Any entry of either name there (a file, a link, a FIFO, a
 *   directory) is terminal unless the command holds the word `--noenv` before `--` (the only
 *   form ack's first pass reads).  ~/.ackrc is found this way when the directory is below HOME;
 *   /etc/ackrc and $ACKRC are the user's environment (ack 3 reads no option variable).
 * - git enters submodules when any configuration it reads says so (`submodule.recurse`,
 *   `submodule.active`: the repository's configuration refuses every submodule key (repo.c), but
 *   the user's global one may hold them) and runs what the submodule's own configuration names
 *   (its core.fsmonitor ran under `git grep`).  It enters the gitlinks of the index (mode
 *   160000), each through `PATH/.git` (a directory, or a gitfile leading anywhere) or, when
 *   that is missing, `.git/modules/NAME` (inside the top git directory, judged with it).  So
 *   every gitlink of the index of the repository git finds from the process's directory is
 *   judged: a path through no symbolic link, its .git judged as a git directory of its own
 *   (shc__git_dir_judge, whole), its `.gitmodules` plain, and its own gitlinks in turn (nested
 *   at most SHC_SUBMODULE_DEPTH, SHC_SUBMODULE_MAX in all).  An index git splits (`link`:
 *   entries in a shared file), one over SHC_INDEX_MAX or one shcard cannot parse is terminal.
 * - work-tree `git grep` reads every regular file of the index whole (grep_source_load_file:
 *   xmallocz(st_size), no binary or hole shortcut; a tracked 3 GiB sparse file ran past any
 *   bound), and `git ls-files -m` reads and hashes the work-tree file of every entry whose
 *   recorded size is 0 or that is racily clean (ie_modified).  git joins each pathspec onto the
 *   process's directory and removes `..` by the letter, so `-- ..`, `../x` or a pattern below
 *   `..` widen the search to the parent.  So the work-tree files of the regular entries below the common top
 *   of the process's directory and every pathspec's literal directory are lstat'ed, every index
 *   walked here (submodules' too) in one budget: their sizes together (a hole reads as zeros)
 *   at most SHC_GREP_TREE_MAX. */
#define _DEFAULT_SOURCE /* realpath */
#include "classify/policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SHC_RD_PATH 4096
#define SHC_INDEX_MAX (64L << 20)   /* an index larger than this is not parsed: terminal */
#define SHC_GITMODULES_MAX (1L << 20) /* a .gitmodules larger than this: terminal */
#define SHC_SUBMODULE_DEPTH 4       /* submodules inside submodules */
#define SHC_SUBMODULE_MAX 64        /* gitlinks judged for one command (each a git dir scan) */
#define SHC_GREP_TREE_MAX (1LL << 30) /* bytes of tracked work-tree files one git grep reads */

typedef struct rstate {
    unsigned links; /* checked-out submodules judged so far */
    const char *grep_base; /* git grep: the directory whose tracked files it reads, or NULL */
    long long grep_bytes;  /* their sizes so far */
    shc_ignbudget *b;
    char *msg;
    size_t cap;
} rstate;

static bool fail(rstate *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(rstate *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, s->cap, fmt, ap);
    va_end(ap);
    return true;
}

/* ack: `.ackrc` / `_ackrc` in dir or a parent. */
static bool ackrc(const char *dir, rstate *s)
{
    char d[SHC_RD_PATH], p[SHC_RD_PATH + 16];
    if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d)
        return fail(s, "ack: its directory '%.60s...' is too long to look for an ackrc", dir);
    for (;;) {
        static const char *const names[] = {".ackrc", "_ackrc"};
        struct stat st;
        for (size_t i = 0; i < 2; i++) {
            snprintf(p, sizeof p, "%s/%s", strcmp(d, "/") ? d : "", names[i]);
            if (lstat(p, &st) == 0 || errno != ENOENT)
                return fail(s,
                            "ack: it reads options from '%s' (a project ackrc may hold "
                            "--files-from, --follow, --type-set ...); --noenv skips it",
                            p);
        }
        char *slash = strrchr(d, '/');
        if (!slash || !strcmp(d, "/"))
            return false;
        slash == d ? (void)(d[1] = 0) : (void)(*slash = 0);
    }
}

static uint32_t be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static bool submodules(const char *top, const char *g, int depth, rstate *s);

/* git grep: the work-tree file top/path of a regular index entry, in the byte budget when it is
 * below the directory git grep searches and a regular file there (git lstat()s it and reads
 * only regular files). */
static bool grep_charge(const char *top, const char *path, rstate *s)
{
    char wt[SHC_RD_PATH];
    size_t bn = strlen(s->grep_base);
    int w = snprintf(wt, sizeof wt, "%s/%s", strcmp(top, "/") ? top : "", path);
    if (w < 0 || (size_t)w >= sizeof wt)
        return fail(s, "git: the index entry '%.60s...' is too long to judge", path);
    if (strcmp(s->grep_base, "/") &&
        (strncmp(wt, s->grep_base, bn) != 0 || (wt[bn] != '/' && wt[bn] != '\0')))
        return false; /* outside the directory searched */
    struct stat st;
    if (lstat(wt, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    s->grep_bytes += st.st_size;
    if (s->grep_bytes > SHC_GREP_TREE_MAX)
        return fail(s, "git: the tracked files it reads hold over 1 GiB together (it reads each "
                       "whole; '%s' is %lld bytes)", wt, (long long)st.st_size);
    return false;
}

/* One gitlink: top/path. */
static bool gitlink(const char *top, const char *path, int depth, rstate *s)
{
    char wt[SHC_RD_PATH], g[SHC_RD_PATH], what[512] = "";
    int w = snprintf(wt, sizeof wt, "%s/%s", strcmp(top, "/") ? top : "", path);
    if (w < 0 || (size_t)w >= sizeof wt)
        return fail(s, "git: the submodule path '%.60s...' is too long to judge", path);
    errno = 0;
    char *real = realpath(wt, NULL);
    if (!real)
        return errno == ENOENT ? false /* not checked out: .git/modules/NAME, judged */
                               : fail(s, "git: the submodule '%s' cannot be resolved here", wt);
    bool same = !strcmp(real, wt);
    free(real);
    if (!same) /* git opens PATH/.git through the link: judge nothing that moves */
        return fail(s, "git: the submodule '%s' goes through a symbolic link", wt);
    const char *why = NULL;
    int k = shc__git_dir_of(wt, g, sizeof g, &why);
    if (k == 0)
        return false;
    if (k < 0)
        return fail(s, "git: the submodule's '%s/.git' is %s", wt, why);
    if (++s->links > SHC_SUBMODULE_MAX)
        return fail(s, "git: over %d checked-out submodules to judge", SHC_SUBMODULE_MAX);
    if ((why = shc__git_dir_judge(g, true, false, s->b, what, sizeof what)) != NULL)
        return fail(s, "git: the submodule's '%s' is %s", what, why);
    if (depth + 1 > SHC_SUBMODULE_DEPTH)
        return fail(s, "git: the submodule '%s' is nested too deeply to judge", wt);
    return submodules(wt, g, depth + 1, s);
}

/* The .gitmodules of the work tree top: absent, or a plain file git can read to its end. */
static bool gitmodules(const char *top, rstate *s)
{
    char p[SHC_RD_PATH + 16];
    struct stat st;
    snprintf(p, sizeof p, "%s/.gitmodules", strcmp(top, "/") ? top : "");
    if (lstat(p, &st) != 0)
        return errno == ENOENT ? false : fail(s, "git: '%s' cannot be examined", p);
    if (!S_ISREG(st.st_mode) || st.st_size > SHC_GITMODULES_MAX)
        return fail(s, "git: '%s' is not a small regular file (git reads it to enter "
                       "submodules)", p);
    return false;
}

/* The index entries of buf[0..n) (versions 2 to 4, SHA-1 names): every gitlink judged. */
static bool index_entries(const char *top, const unsigned char *buf, size_t n, int depth,
                          rstate *s, const char *ip)
{
#define BAD "git: the index '%s' is not one shcard can read"
#define OFFSETS "git: the index '%s' has an entry offset table (git may read other entries)"
    if (n < 12 + 20 || memcmp(buf, "DIRC", 4) != 0)
        return fail(s, BAD, ip);
    uint32_t version = be32(buf + 4), count = be32(buf + 8);
    if (version < 2 || version > 4)
        return fail(s, BAD, ip);
    /* With index.threads (the repository's own config may set it) git finds the EOIE
     * extension at its fixed place before the trailer, not by walking, and reads the entries
     * from the offsets IEOT gives, each block with no previous name (version 4): another
     * reading than this walk, so such an index is refused.  git writes them only when told
     * (index.recordEndOfIndexEntries, index.recordOffsetTable). */
    if (n >= 12 + 32 + 20 && !memcmp(buf + n - 20 - 32, "EOIE", 4))
        return fail(s, OFFSETS, ip);
    size_t off = 12, end = n - 20, prevlen = 0;
    char path[SHC_RD_PATH];
    for (uint32_t i = 0; i < count; i++) {
        if (off + 62 > end)
            return fail(s, BAD, ip);
        uint32_t mode = be32(buf + off + 24);
        size_t flen = ((size_t)buf[off + 60] << 8 | buf[off + 61]) & 0xFFF; /* git's name length */
        size_t hdr = (buf[off + 60] & 0x40) ? 64 : 62; /* extended flags (version 3 and up) */
        if (hdr == 64 && version < 3)
            return fail(s, BAD, ip);
        size_t at = off + hdr, strip = 0;
        if (version == 4) { /* the name: strip N bytes of the previous one, then a suffix */
            if (at >= end)
                return fail(s, BAD, ip);
            unsigned char c = buf[at++];
            strip = c & 127;
            while (c & 128) {
                if (at >= end || strip > SHC_RD_PATH)
                    return fail(s, BAD, ip);
                c = buf[at++];
                strip = ((strip + 1) << 7) + (c & 127);
            }
            if (strip > prevlen)
                return fail(s, BAD, ip);
        }
        const unsigned char *nul = at < end ? memchr(buf + at, 0, end - at) : NULL;
        if (!nul)
            return fail(s, BAD, ip);
        size_t len = (size_t)(nul - (buf + at)), keep = version == 4 ? prevlen - strip : 0;
        if (keep + len >= sizeof path)
            return fail(s, "git: an index entry in '%s' is too long to judge", ip);
        if (flen != 0xFFF && flen != keep + len) /* git reads flen bytes, not up to the NUL */
            return fail(s, "git: an index entry in '%s' names its path differently for git", ip);
        memcpy(path + keep, buf + at, len);
        path[prevlen = keep + len] = '\0';
        off = version == 4 ? at + len + 1 : off + ((hdr + len + 8) & ~(size_t)7);
        if ((mode & 0170000) == 0160000 && gitlink(top, path, depth, s))
            return true;
        if ((mode & 0170000) == 0100000 && s->grep_base && grep_charge(top, path, s))
            return true;
    }
    for (; off + 8 <= end; off += 8 + be32(buf + off + 4)) { /* the extensions */
        if (!memcmp(buf + off, "link", 4))
            return fail(s, "git: the index '%s' is split (its entries are in a shared file "
                           "shcard does not read)", ip);
        if (!memcmp(buf + off, "IEOT", 4) || !memcmp(buf + off, "EOIE", 4))
            return fail(s, OFFSETS, ip);
        if (be32(buf + off + 4) > end - off - 8)
            return fail(s, BAD, ip);
    }
    return false;
#undef BAD
#undef OFFSETS
}

/* The gitlinks of the index of the git directory g, whose work tree is top. */
static bool submodules(const char *top, const char *g, int depth, rstate *s)
{
#ifdef __wasi__
    (void)index_entries, (void)gitmodules, (void)top, (void)depth;
    return fail(s, "git: the WebAssembly build cannot read the index of '%s'", g);
#else
    char ip[SHC_RD_PATH + 8];
    struct stat st;
    snprintf(ip, sizeof ip, "%s/index", g);
    if (gitmodules(top, s))
        return true;
    if (lstat(ip, &st) != 0)
        return errno == ENOENT ? false : fail(s, "git: '%s' cannot be examined", ip);
    if (!S_ISREG(st.st_mode) || st.st_size > SHC_INDEX_MAX)
        return fail(s, "git: the index '%s' is not a regular file of at most 64 MiB", ip);
    FILE *f = fopen(ip, "rb");
    unsigned char *buf = malloc((size_t)st.st_size + 1);
    size_t n = f && buf ? fread(buf, 1, (size_t)st.st_size + 1, f) : 0;
    if (f)
        fclose(f);
    bool out = !buf || n != (size_t)st.st_size
                   ? fail(s, "git: the index '%s' cannot be read whole", ip)
                   : index_entries(top, buf, n, depth, s, ip);
    free(buf);
    return out;
#endif
}

/* git finds its repository from its directory up: the first .git (a bare repository, a
 * directory holding HEAD and objects, has no work tree and so no submodule to enter). */
static bool git_submodules(const char *dir, rstate *s)
{
    char d[SHC_RD_PATH], p[SHC_RD_PATH + 16], g[SHC_RD_PATH];
    if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d)
        return fail(s, "git: its directory '%.60s...' is too long to judge", dir);
    for (;;) {
        struct stat st;
        snprintf(p, sizeof p, "%s/.git", strcmp(d, "/") ? d : "");
        if (lstat(p, &st) == 0) {
            const char *why = NULL;
            int k = shc__git_dir_of(d, g, sizeof g, &why);
            if (k < 0)
                return fail(s, "git: '%s' is %s", p, why);
            if (submodules(d, g, 0, s))
                return true;
            /* git passes over a .git directory that is no repository (an empty one) and uses
             * a parent's: judge the parents too unless git surely stops here */
            if (!S_ISDIR(st.st_mode) || shc__git_stops_at(g))
                return false;
        }
        char o[SHC_RD_PATH + 16];
        snprintf(p, sizeof p, "%s/HEAD", strcmp(d, "/") ? d : "");
        snprintf(o, sizeof o, "%s/objects", strcmp(d, "/") ? d : "");
        char *slash = strrchr(d, '/');
        if ((lstat(p, &st) == 0 && lstat(o, &st) == 0 && shc__git_stops_at(d)) || !slash ||
            !strcmp(d, "/"))
            return false;
        slash == d ? (void)(d[1] = 0) : (void)(*slash = 0);
    }
}

/* out (a "/a/b" string, "" for /) cut to its longest leading directory that also leads p. */
static void common_top(char *out, const char *p)
{
    size_t n = 0;
    while (out[n] && out[n] == p[n])
        n++;
    if (!((out[n] == '\0' || out[n] == '/') && (p[n] == '\0' || p[n] == '/')))
        while (n > 0 && out[n] != '/')
            n--;
    out[n] = '\0';
}

/* The directory whose tracked files the command reads: kbase widened to every pathspec's
 * literal directory (a pattern's part before its first special, cut at a '/'). */
static bool tracked_base(const char *kbase, const shc_rule *r, char *out, size_t cap, rstate *s)
{
    shc_path np;
    if (shc__path_norm(&np, NULL, kbase) < 0 || strlen(np.norm) >= cap)
        return fail(s, "git: its directory '%.60s...' is too long to judge", kbase);
    snprintf(out, cap, "%s", np.norm);
    for (size_t i = 0; i < r->npaths; i++) {
        char lit[SHC_RD_PATH];
        size_t dl;
        const char *p = r->paths[i];
        if (shc__pathspec_pattern(p, &dl))
            snprintf(lit, sizeof lit, "%.*s", (int)(dl < sizeof lit ? dl : sizeof lit - 1), p);
        else if (snprintf(lit, sizeof lit, "%s", p) >= (int)sizeof lit)
            return fail(s, "git: the pathspec '%.60s...' is too long to judge", p);
        if (shc__path_norm(&np, kbase, lit[0] ? lit : ".") < 0 || np.climb)
            return fail(s, "git: the pathspec '%.60s...' is too long to judge", p);
        common_top(out, np.norm);
    }
    if (!out[0])
        snprintf(out, cap, "/");
    return false;
}

bool shc__rundir_check(const char *kbase, const char *cmd, const shc_rule *r, shc_ignbudget *b,
                       char *msg, size_t cap)
{
    rstate s = {0, NULL, 0, b, msg, cap};
    char base[SHC_RD_PATH];
    if (!kbase)
        return false;
    if (r->rc_files && ackrc(kbase, &s))
        return true;
    if (strcmp(cmd, "git") != 0)
        return false;
    /* git ls-files -X FILE: git matches FILE's lines with wildmatch like .gitignore's, so they
     * get the same reading (a plain file within the ignore budget, no line over 2 `**`) */
    for (size_t i = 0; r->kind == SHC_KIND_LIST && i < r->ninputs; i++) {
        char p[SHC_RD_PATH], what[256];
        const char *in = r->inputs[i], *why;
        int w = in[0] == '/' ? snprintf(p, sizeof p, "%s", in)
                             : snprintf(p, sizeof p, "%s/%s", strcmp(kbase, "/") ? kbase : "", in);
        if (in[0] == '~' || w < 0 || (size_t)w >= sizeof p)
            return fail(&s, "git ls-files: the exclude file '%.60s' cannot be judged here", in);
        if ((why = shc__pattern_file(p, true, b, what, sizeof what)))
            return fail(&s, "git ls-files: the exclude file '%s' is %s", what, why);
    }
    if (r->tracked_reads) { /* git grep, git ls-files -m */
        if (tracked_base(kbase, r, base, sizeof base, &s))
            return true;
        s.grep_base = base;
    }
    return git_submodules(kbase, &s);
}
