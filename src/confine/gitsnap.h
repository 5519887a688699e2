/* The workspace git check's snapshot (confine.h, shc_gitsnap_*), shared by the file that takes
 * it (gitsnap.c) and the one that compares two (gitdiff.c).  Internal to src/confine/. */
#ifndef SHC_CONFINE_GITSNAP_H
#define SHC_CONFINE_GITSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "confine/confine.h"

enum {
    SHC__GS_MAX_ENTRIES = 32768, /* files in one snapshot */
    SHC__GS_MAX_DIRS = 32768,    /* workspace directories searched for git directories */
    SHC__GS_MAX_REPOS = 512,     /* git directories (a .git, or one by its content) */
    SHC__GS_MAX_DEPTH = 12,      /* directories under a git directory */
    SHC__GS_MAX_SCAN_DEPTH = 32, /* directories below the workspace searched for git directories */
};

typedef struct shc__gs_entry {
    char *name; /* relative to the snapshot's directory */
    unsigned mode;
    bool gitdir; /* a directory git takes as a git directory by its content (no .git name) */
    long long size;
    uint64_t hash, ino, ctime_ns; /* a write changes ctime, which no call can set back */
} shc__gs_entry;

struct shc_gitsnap {
    char *dir;
    shc__gs_entry *e;
    size_t n, cap;
    unsigned unchecked;  /* repositories past a cap */
    unsigned unsearched; /* directories not searched (past the depth or the directory cap) */
};

/* A snapshot of dir (canonical), sorted by name (shc__gitsnap_by_name); NULL out of memory. */
shc_gitsnap *shc__gitsnap_take(const char *dir);
int shc__gitsnap_by_name(const void *a, const void *b);

#endif
