/* The entries of a workspace git check's snapshot (gitsnap.h): one file or directory added
 * with its type, size, inode, change time and a hash of its content or link target
 * (shc__gs_add), the entries' order and lookup by name, and a path resolved into the snapshot's
 * directory (shc__gs_inside).  The lowest part of the check: the scan (gitsnap.c), the configs
 * (gitconf.c), the files hooks name (gitwork.c) and the comparison (gitdiff.c) use it. */
#define _GNU_SOURCE
#include "confine/gitsnap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef shc__gs_entry gs_entry;

enum {
    MAX_ENTRIES = SHC__GS_MAX_ENTRIES,
    MAX_HASHED = 1 << 20, /* bytes of a file hashed (a larger one is compared by size and times) */
};

int shc__gitsnap_by_name(const void *a, const void *b)
{
    return strcmp(((const gs_entry *)a)->name, ((const gs_entry *)b)->name);
}

const shc__gs_entry *shc__gs_find(const shc_gitsnap *s, const char *name)
{
    gs_entry key = {.name = (char *)(uintptr_t)name};
    return s->n ? bsearch(&key, s->e, s->n, sizeof *s->e, shc__gitsnap_by_name) : NULL;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Adds the entry for rel (absent files are not listed: their absence is what is compared);
 * *mode its type (0 when absent).  0, 1 when the snapshot is full, -1 out of memory. */
int shc__gs_add(shc_gitsnap *s, const char *rel, unsigned *mode)
{
    char path[PATH_MAX];
    struct stat st;
    if (mode)
        *mode = 0;
    if (snprintf(path, sizeof path, "%s/%s", s->dir, rel) >= (int)sizeof path ||
        lstat(path, &st) != 0)
        return 0;
    if (s->n >= MAX_ENTRIES)
        return 1;
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
    e->gitdir = e->marker = e->skipped = false;
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
    if (mode)
        *mode = e->mode;
    return 0;
}

/* abs resolved through symlinks (its missing tail kept as written), relative to the
 * snapshot's directory, into out ("." for the directory itself); false when outside. */
bool shc__gs_inside(shc_gitsnap *s, const char *abs, char *out, size_t cap)
{
    char buf[PATH_MAX], tail[PATH_MAX] = "";
    if (snprintf(buf, sizeof buf, "%s", abs) >= (int)sizeof buf)
        return false;
    for (int i = 0; i < 16; i++) {
        char *real = realpath(buf, NULL);
        if (real && (*tail || strcmp(real, buf)))
            s->noreuse = true; /* through a symlink, or not there: not re-checked by a stat */
        if (real) {
            size_t dl = strlen(s->dir);
            int k = -1;
            if (!strncmp(real, s->dir, dl) && (!real[dl] || real[dl] == '/'))
                k = real[dl] || *tail ? snprintf(out, cap, "%s%s", real[dl] ? real + dl + 1 : "",
                                                 real[dl] ? tail : tail + 1)
                                      : snprintf(out, cap, ".");
            free(real);
            return k > 0 && (size_t)k < cap;
        }
        char *sl = strrchr(buf, '/');
        if ((errno != ENOENT && errno != ENOTDIR) || !sl || sl == buf || strstr(sl, "/.."))
            return s->noreuse = true, false;
        char t[PATH_MAX];
        if (snprintf(t, sizeof t, "%s%s", sl, tail) >= (int)sizeof t)
            return false;
        memcpy(tail, t, strlen(t) + 1);
        *sl = 0;
    }
    return false;
}
