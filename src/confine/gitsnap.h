/* The workspace git check's snapshot (confine.h, shc_gitsnap_*), shared by the file that takes
 * it (gitsnap.c) and the one that compares two (gitdiff.c).  Internal to src/confine/. */
#ifndef SHC_CONFINE_GITSNAP_H
#define SHC_CONFINE_GITSNAP_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "confine/confine.h"

enum {
    SHC__GS_MAX_ENTRIES = 32768, /* files in one snapshot */
    SHC__GS_MAX_DIRS = 32768,    /* workspace directories searched for git directories */
    SHC__GS_MAX_REPOS = 512,     /* git directories (a .git, or one by its content) */
    SHC__GS_MAX_DEPTH = 12,      /* directories under a git directory */
    SHC__GS_MAX_SCAN_DEPTH = 32, /* directories below the workspace searched for git directories */
    SHC__GS_MAX_HOOKS = 16,      /* core.hooksPath values */
    SHC__GS_MAX_INCLUDES = 8,    /* include depth */
    SHC__GS_MAX_WORDS = 256,     /* work-tree files a snapshot records because a hook names them */
};

typedef struct shc__gs_entry {
    char *name; /* relative to the snapshot's directory */
    unsigned mode;
    bool gitdir; /* a directory git takes as a git directory by its content (no .git name) */
    bool marker; /* a CACHEDIR.TAG, a dependency directory or a tagged one (the search's skips) */
    bool skipped; /* a directory the search did not enter (a marker one) */
    long long size;
    uint64_t hash, ino, ctime_ns; /* a write changes ctime, which no call can set back */
} shc__gs_entry;

/* A directory or file a snapshot's content depends on beyond its entries (gitcache.c): each
 * directory read, each config file read or found absent. */
typedef struct shc__gs_dep {
    char *path; /* absolute */
    bool exists;
    unsigned mode;
    long long size;
    uint64_t dev, ino, mtime_ns, ctime_ns;
} shc__gs_dep;

struct shc_gitsnap {
    char *dir;
    shc__gs_dep *deps;
    size_t ndeps, depcap;
    bool noreuse;      /* something it read cannot be re-checked by a stat: never reused */
    uint64_t start_ns; /* when it was begun (CLOCK_REALTIME) */
    const struct shc_gitsnap *prev; /* while an "after" is taken: the "before", whose skips it
                                     * follows (NULL: skips decided by the rule) */
    unsigned words;                 /* work-tree files recorded for a hook's words */
    shc__gs_entry *e;
    size_t n, cap;
    unsigned unchecked;  /* repositories past a cap */
    unsigned unsearched; /* directories not searched (past the depth or the directory cap) */
};

/* A snapshot of dir (canonical), sorted by name (shc__gitsnap_by_name), without duplicates;
 * NULL out of memory.  prev: the snapshot taken before the command (NULL for a first one): a
 * directory is skipped only when prev skipped the same directory (gitsnap.c). */
shc_gitsnap *shc__gitsnap_take(const char *dir, const shc_gitsnap *prev);
/* The entry named name in a sorted snapshot, or NULL. */
const shc__gs_entry *shc__gs_find(const shc_gitsnap *s, const char *name);
/* Adds the entry for rel (not listed when absent); *mode its type (0 when absent).  0, 1 when
 * the snapshot is full, -1 out of memory. */
int shc__gs_add(shc_gitsnap *s, const char *rel, unsigned *mode);
/* abs resolved through symlinks, relative to the snapshot's directory, into out ("." for the
 * directory itself); false when outside. */
bool shc__gs_inside(shc_gitsnap *s, const char *abs, char *out, size_t cap);
/* The work-tree files the hooks of one repository run (gitwork.c): the hook managers' configs
 * named by a hook's text, and each workspace file a hook names as a word.  wt: the work tree
 * (absolute); the repository's entries from `from`, its hook directories' from `hooks`.
 * 0, 1 when the snapshot is full, -1 out of memory. */
int shc__gs_work_files(shc_gitsnap *s, const char *wt, size_t from, size_t hooks);
/* An included config file: recorded (hashed like config) when it lies inside the workspace. */
void shc__gs_included(shc_gitsnap *s, const char *path);

/* The config files (gitconf.c): core.hooksPath values as written. */
typedef struct shc__gs_hooks {
    char v[SHC__GS_MAX_HOOKS][PATH_MAX];
    int n;
} shc__gs_hooks;
/* A pathname value as git reads it: "~/" is the home directory; a relative one is taken
 * relative to base.  false when it does not fit. */
bool shc__gs_pathname(const char *val, const char *base, char *out, size_t cap);
void shc__gs_read_config(shc_gitsnap *s, const char *path, int depth, shc__gs_hooks *h);
void shc__gs_read_user_config(shc_gitsnap *s, shc__gs_hooks *h);

/* The reuse of a snapshot (gitcache.c): notes what abs (fd, when >= 0, is open on it) is now;
 * whether every noted file and directory and every entry is still what it was. */
void shc__gs_note(shc_gitsnap *s, const char *abs, int fd);
bool shc__gs_still(const shc_gitsnap *s);
void shc__gs_free_deps(shc_gitsnap *s);
int shc__gitsnap_by_name(const void *a, const void *b);

#endif
