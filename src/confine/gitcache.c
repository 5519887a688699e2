/* The workspace git check's snapshot kept from one sandboxed command to the next (confine.h,
 * shc_gitsnap_take_reuse): the "after" snapshot of a command is the next command's "before"
 * when nothing it was made of has changed since, which a stat of each tells: every directory
 * it read (a name created, removed or renamed in a directory changes its mtime), every file it
 * listed (a write changes its ctime, which no call can set back) and every config file it read
 * or found absent.  Not reused, and taken again in full: a snapshot that followed a symlink
 * or a path out of the workspace (what is outside is not noted), that could not note
 * something, or any of whose times is within RACY_NS of its start (a change in the same tick
 * of the clock that stamps files would leave the time as it was). */
#define _GNU_SOURCE
#include "confine/gitsnap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { MAX_DEPS = 65536 };
#define RACY_NS 20000000ull /* 20 ms: two ticks of the coarsest clock (HZ=100) that stamps files */

static uint64_t ns(struct timespec t)
{
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void fill(shc__gs_dep *d, const struct stat *st)
{
    d->exists = true;
    d->mode = (unsigned)st->st_mode;
    d->size = (long long)st->st_size;
    d->dev = (uint64_t)st->st_dev;
    d->ino = (uint64_t)st->st_ino;
    d->mtime_ns = ns(st->st_mtim);
    d->ctime_ns = ns(st->st_ctim);
}

void shc__gs_note(shc_gitsnap *s, const char *abs, int fd)
{
    struct stat st;
    if (s->noreuse)
        return;
    if (s->ndeps == MAX_DEPS) {
        s->noreuse = true;
        return;
    }
    if (s->ndeps == s->depcap) {
        size_t cap = s->depcap ? 2 * s->depcap : 64;
        shc__gs_dep *d = realloc(s->deps, cap * sizeof *d);
        if (!d) {
            s->noreuse = true;
            return;
        }
        s->deps = d;
        s->depcap = cap;
    }
    shc__gs_dep *d = &s->deps[s->ndeps];
    memset(d, 0, sizeof *d);
    if (!(d->path = strdup(abs))) {
        s->noreuse = true;
        return;
    }
    /* a directory is noted by the descriptor it was read through; a config file as fopen
     * finds it (through a symlink) */
    if (fd >= 0 ? fstat(fd, &st) == 0 : stat(abs, &st) == 0)
        fill(d, &st);
    s->ndeps++;
}

static bool racy(const shc_gitsnap *s, uint64_t t)
{
    return t + RACY_NS >= s->start_ns;
}

bool shc__gs_still(const shc_gitsnap *s)
{
    struct stat st;
    char path[PATH_MAX];
    if (s->noreuse)
        return false;
    for (size_t i = 0; i < s->ndeps; i++) {
        const shc__gs_dep *d = &s->deps[i];
        shc__gs_dep now;
        memset(&now, 0, sizeof now);
        /* a directory read through O_NOFOLLOW: lstat; a config file: stat */
        bool dir = d->exists && S_ISDIR(d->mode);
        if (dir ? lstat(d->path, &st) == 0 : stat(d->path, &st) == 0)
            fill(&now, &st);
        if (now.exists != d->exists)
            return false;
        if (!d->exists)
            continue;
        if (racy(s, d->mtime_ns) || racy(s, d->ctime_ns) || now.mode != d->mode ||
            now.size != d->size || now.dev != d->dev || now.ino != d->ino ||
            now.mtime_ns != d->mtime_ns || now.ctime_ns != d->ctime_ns)
            return false;
    }
    for (size_t i = 0; i < s->n; i++) {
        const shc__gs_entry *e = &s->e[i];
        if (snprintf(path, sizeof path, "%s/%s", s->dir, e->name) >= (int)sizeof path ||
            lstat(path, &st) != 0 || racy(s, e->ctime_ns) || (unsigned)st.st_mode != e->mode ||
            (long long)st.st_size != e->size || (uint64_t)st.st_ino != e->ino ||
            ns(st.st_ctim) != e->ctime_ns)
            return false;
    }
    return true;
}

void shc__gs_free_deps(shc_gitsnap *s)
{
    for (size_t i = 0; i < s->ndeps; i++)
        free(s->deps[i].path);
    free(s->deps);
    s->deps = NULL;
    s->ndeps = s->depcap = 0;
}
