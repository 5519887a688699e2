/* Paths as the kernel resolves them, when the real directory is known (`shcard acp`, `shcard
 * run`, `explain --cwd`, the library's opts.cwd).  The text of a path says nothing of the links
 * in it: `cat alias/../pipe` opens hidden/pipe when alias -> hidden/inner, `grep -r foo
 * usrlink/..` walks `/` when usrlink -> /usr, and `cd alias && git ls-files` runs git in the
 * repository alias leads to (git, rg, fd and libgit2 find their repository and ignore files from
 * the physical directory).  So with a real directory every path is resolved with realpath()
 * (the kernel's own walk, component by component, `..` after the link) and the resolved path is
 * judged: where it leads (/, /dev, /proc, /sys, /run), what it is (a FIFO, a device, a socket, a
 * huge file) and, for the tools that read their repository's files, the repository and ignore
 * files of both the written and the resolved chain of parents (repo.c).
 *
 * bash's `cd DIR` is logical (DIR is joined onto $PWD and normalised lexically, and only when
 * that fails is DIR tried as written; `cd -P` is physical), but the process's directory is
 * physical: the base of every relative path after `cd` is realpath() of that directory. */
#define _DEFAULT_SOURCE /* realpath */
#include "classify/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef SHC_WASM_HOST_H
#include <unistd.h>
#endif
#include <sys/stat.h>

static const char *copy_out(char *buf, size_t cap, const char *s)
{
    int w = snprintf(buf, cap, "%s", s);
    return w < 0 || (size_t)w >= cap ? NULL : buf;
}

const char *shc__cd_base(const char *real_cwd, const char *chain, bool physical, char *buf,
                         size_t cap)
{
    if (!chain)
        return copy_out(buf, cap, real_cwd);
    char raw[4096];
    int w = chain[0] == '/' ? snprintf(raw, sizeof raw, "%s", chain)
                            : snprintf(raw, sizeof raw, "%s/%s", real_cwd, chain);
    if (w < 0 || (size_t)w >= sizeof raw)
        return NULL;
    shc_path np;
    if (shc__path_norm(&np, NULL, raw) < 0)
        return NULL;
    const char *lexical = np.norm[0] ? np.norm : "/";
    char *real = physical ? NULL : realpath(lexical, NULL); /* bash: the logical name first */
    const char *reached = lexical;
    if (!real)
        real = realpath(reached = raw, NULL); /* then the name as written (cd -P: only that) */
    if (!real) /* the cd fails and the command after && does not run: judged as written */
        return copy_out(buf, cap, lexical);
    if (shc__path_magic(reached)) {
        /* `cd d` with d -> /proc/self/cwd: realpath() answered for shcard's directory, the
         * command's process lands in its own */
        free(real);
        return NULL;
    }
    const char *out = copy_out(buf, cap, real);
    free(real);
    return out;
}


/* lstat() where there is one (not in the WebAssembly build: see magic_link) */
static bool is_link(const char *path)
{
#ifdef SHC_WASM_HOST_H
    (void)path;
    return false;
#else
    struct stat lst;
    return lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
#endif
}

bool shc__path_real(const char *kbase, const char *p, const char *lexical, unsigned bad,
                    const char *cmd, bool deep, const char *what, shc_ignbudget *b, char *msg,
                    size_t cap)
{
    /* a search or listing walks; git and bat (libgit2) read their repository; rg, fd, ag and
     * git read the ignore files of every directory they walk */
    bool walks = (bad & SHC_PATH_ROOT) != 0;
    bool bat = !strcmp(cmd, "bat") || !strcmp(cmd, "batcat"), git = bat || !strcmp(cmd, "git");
    bool ignores = git || !strcmp(cmd, "rg") || !strcmp(cmd, "ag") || !strcmp(cmd, "fd") ||
                   !strcmp(cmd, "fdfind");
    bool subtree = deep && walks;
    b->whole_files |= !strcmp(cmd, "ag") || !strcmp(cmd, "ack");
    /* a file-valued option's value is a list of patterns (--ignore-file, --exclude-from, -p,
     * -X): rg and fd compile every glob, so it is bounded like the ignore files (repo.c) */
    bool patterns = !strcmp(what, "pattern file");
    char raw[8192];
    int w = p[0] == '/' || !kbase ? snprintf(raw, sizeof raw, "%s", p)
                                  : snprintf(raw, sizeof raw, "%s/%s", kbase, p);
    if (w < 0 || (size_t)w >= sizeof raw) {
        snprintf(msg, cap, "the path '%.60s...' is too long to judge", p);
        return true;
    }
    errno = 0;
    char *real = realpath(raw, NULL);
    if (!real && errno != ENOENT && errno != ENOTDIR) {
        /* ELOOP, EACCES, ENAMETOOLONG: the kernel's answer is not known here */
        snprintf(msg, cap, "'%s' cannot be resolved here", p);
        return true;
    }
    if (real) {
        shc_path rp;
        struct stat st;
        unsigned rj = shc__path_check(NULL, real, &rp) & bad;
        const char *why = NULL;
        if (rj & SHC_PATH_ROOT)
            snprintf(msg, cap, "'%s' leads to the whole filesystem", p);
        else if (walks && b->subtree && shc__path_system_root(NULL, real))
            snprintf(msg, cap, "'%s' leads to the system directory '%s' (walking it is most of "
                     "the file system)", p, why = real);
        else if (rj & (SHC_PATH_SPECIAL | SHC_PATH_TOOLONG))
            snprintf(msg, cap, "'%s' leads to a device or process file", p);
        else if ((bad & SHC_PATH_SPECIAL) && (why = shc__fs_special(real)) != NULL)
            snprintf(msg, cap, "'%s' is on a %s file system (special or network: may block or "
                     "never end)", p, why);
        else if ((why = shc__path_stat(real)) != NULL)
            snprintf(msg, cap, "%s '%s' is %s", what, p, why);
        else if (stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
                 (b->input -= st.st_size << (bat ? 10 : 0)) < 0)
            snprintf(msg, cap, "%s '%s': %s", what, p,
                     why = bat ? "the files bat names hold over 1 MiB together (it highlights "
                                 "at under 1 MB/s: 2 MB of JavaScript ran past 5 s)"
                               : "the files the command names hold over 1 GiB together (each "
                                 "word is read)");
        else if (patterns && (stat(real, &st) != 0 || st.st_size > SHC_IGNORE_MAX))
            snprintf(msg, cap, "%s '%s' is %s", what, p,
                     why = "over 64 KiB (the tool compiles every pattern in it)");
        if (rj & (SHC_PATH_ROOT | SHC_PATH_SPECIAL | SHC_PATH_TOOLONG) || why) {
            free(real);
            return true;
        }
    }
    if ((!real && is_link(raw)) || shc__path_magic(raw)) {
        /* /proc/self/fd/N, /dev/stdin and their kind resolve in shcard's own process here, not
         * in the command's (whose fd 1 is its terminal); a link that leads nowhere here may
         * lead somewhere for the tool */
        free(real);
        snprintf(msg, cap, "'%s' goes through a link that only the command's process can resolve",
                 p);
        return true;
    }
    /* what the tool reads without being told, from the parents of the resolved path and of the
     * written one (a missing path: the written one, as git still runs there); git finds its
     * repository from its physical directory whatever the pathspec */
    bool bad_repo = false;
    if (walks || git) {
        /* kbase's parents are real's when real is below it: walked once */
        size_t kn = kbase ? strlen(kbase) : 0;
        bool below = real && kbase && !strncmp(real, kbase, kn) && (!real[kn] || real[kn] == '/');
        const char *dirs[3] = {real, real && !strcmp(real, lexical) ? NULL : lexical,
                               git && !below ? kbase : NULL};
        char file[512] = "";
        const char *why = b->globals ? NULL : shc__global_check(cmd, b, file, sizeof file);
        b->globals = true;
        if (why) {
            snprintf(msg, cap, "the user's global file '%s' is %s", file, why);
            free(real);
            return true;
        }
        for (size_t i = 0; i < 3 && !why; i++)
            if (dirs[i])
                why = shc__repo_check(dirs[i], walks, git, git && strcmp(cmd, "git") != 0, b,
                                      file, sizeof file);
        if (why) {
            snprintf(msg, cap, "the repository's '%s' is %s", file, why);
            bad_repo = true;
        }
        /* and below it: the mounts it enters, its size, the ignore files of every directory
         * the tool walks */
        struct stat st;
        if (!why && subtree && real && stat(real, &st) == 0 && S_ISDIR(st.st_mode) &&
            ((why = shc__fs_mounts_below(real, file, sizeof file)) != NULL ||
             (why = shc__tree_check(real, ignores, git, b, file, sizeof file)) != NULL)) {
            snprintf(msg, cap, "'%s' below the walked directory is %s", file, why);
            bad_repo = true;
        }
    }
    free(real);
    return bad_repo;
}

/* git matches a pathspec pattern against every path below its literal directory, so it walks
 * (and reads the .gitattributes, ignore files and nested repositories of) all of it: judged as
 * that directory where the subtree is scanned (the bridge context), terminal elsewhere.  The
 * GIT_*_PATHSPECS variables the command would inherit change the rules (icase walks the whole
 * directory git runs in whatever the pathspec): terminal. */
const char *shc__pathspec_judged(const char *q, bool subtree, char *buf, size_t cap, char *msg,
                                 size_t mcap)
{
#ifndef __wasi__ /* the WebAssembly module reads no environment (and scans no subtree) */
    static const char *const vars[] = {"GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS",
                                       "GIT_ICASE_PATHSPECS", "GIT_LITERAL_PATHSPECS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) {
            snprintf(msg, mcap, "git: %s in the environment changes how git matches '%s'",
                     vars[i], q);
            return NULL;
        }
#endif
    size_t dl;
    if (!shc__pathspec_pattern(q, &dl))
        return q;
    int w = dl ? snprintf(buf, cap, "%.*s", (int)dl, q) : snprintf(buf, cap, ".");
    if (!subtree || w < 0 || (size_t)w >= cap) {
        snprintf(msg, mcap, "git: '%s' is a pattern: git matches it in every directory below "
                 "'%.*s' (judged only where shcard scans that subtree: the bridge context)",
                 q, (int)(dl ? dl : 1), dl ? q : ".");
        return NULL;
    }
    return buf;
}
