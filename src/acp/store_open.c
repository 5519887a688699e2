/* The session store as a whole (store.h): opening it (pruning at start-up only when the index
 * file says it is needed, or there is none), freeing it (the index file written back), deleting
 * and pruning sessions.  store_open.c -> store_index.c -> store_cache.c -> store_dir.c. */
#define _GNU_SOURCE
#include "acp/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shcard.h"

int shc_store_open(shc_store **out, const char *dir, uint64_t max_bytes, const shc_log *log,
                   char *err, size_t errlen)
{
    *out = NULL;
    if (!dir || dir[0] != '/') {
        snprintf(err, errlen, "the session store must be an absolute path");
        return SHC_E_USAGE;
    }
    if (shc__store_mkdirs(dir) != 0) {
        snprintf(err, errlen, "cannot create the session store %s: %s", dir, strerror(errno));
        return SHC_E_IO;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        snprintf(err, errlen, "cannot open the session store %s: %s", dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return SHC_E_IO;
    }
    if (sb.st_uid != geteuid()) {
        snprintf(err, errlen, "the session store %s belongs to another user", dir);
        close(fd);
        return SHC_E_IO;
    }
    if ((sb.st_mode & 077) && fchmod(fd, 0700) != 0) {
        snprintf(err, errlen, "cannot make the session store %s private: %s", dir,
                 strerror(errno));
        close(fd);
        return SHC_E_IO;
    }
    shc_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(dir))) {
        free(st);
        close(fd);
        snprintf(err, errlen, "out of memory");
        return SHC_E_NOMEM;
    }
    st->dirfd = fd;
    st->cdirfd = -1;
    st->log = log;
    if (shc__store_load_key(st) != 0) {
        snprintf(err, errlen, "the session store %s has no readable id key (.key)", dir);
        shc_store_free(st);
        return SHC_E_IO;
    }
    st->max_bytes = max_bytes ? max_bytes : SHC_STORE_DEFAULT_MAX_BYTES;
    st->session_max = st->max_bytes < SHC_STORE_SESSION_MAX ? st->max_bytes : SHC_STORE_SESSION_MAX;
    /* pruning needs every session's size: the index file has them, and when it agrees with
     * the directory and is under the cap, start-up reads nothing else */
    size_t gone = 0;
    shc_cache_hdr h;
    if (shc__cache_open(st) == 0 && shc__cache_header(st, &h) == 0) {
        const shc_store_info *v;
        size_t n;
        int64_t dir_ns = fstat(fd, &sb) == 0 ? (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec : -1;
        if ((h.dir_ns != dir_ns || h.total > st->max_bytes) && shc_store_index(st, &v, &n) == 0)
            gone = shc_store_prune(st);
    } else {
        gone = shc_store_prune(st); /* no index file yet: every file's size */
    }
    if (gone)
        shc_log_info(log, "session store: pruned %zu old session(s)", gone);
    *out = st;
    return 0;
}

void shc_store_free(shc_store *st)
{
    if (!st)
        return;
    shc__store_index_flush(st);
    close(st->dirfd);
    if (st->cdirfd >= 0)
        close(st->cdirfd);
    shc_store_list_free(st->idx, st->idx_n);
    shc__cache_drop(&st->lz, true);
    free(st->fresh);
    free(st->touched);
    free(st->path);
    free(st);
}

int shc_store_delete(shc_store *st, const char *id)
{
    if (!shc_store_id_valid(id))
        return SHC_STORE_ENOENT;
    struct stat sb;
    int fd = shc__store_open_file(st, id, O_RDONLY, &sb);
    if (fd < 0) {
        if (errno != ENOENT && errno != EINVAL)
            return SHC_E_IO;
        if (errno == ENOENT && shc_store_id_ours(st, id))
            shc__store_mark_gone(st, id); /* one that never recorded anything is deleted too */
        return SHC_STORE_ENOENT;
    }
    int rc = 0;
    char name[SHC_STORE_ID_LEN + 7];
    shc__store_file_name(name, id);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        rc = errno == EWOULDBLOCK ? SHC_STORE_EBUSY : SHC_E_IO;
    else if (!shc__store_still_linked(st, id, fd))
        rc = SHC_STORE_ENOENT;
    else if (unlinkat(st->dirfd, name, 0) != 0)
        rc = SHC_E_IO;
    else
        shc__store_mark_gone(st, id);
    shc__store_touch(st, id);
    if (!rc) {
        st->names_changed = true;
        shc__cache_publish(st, id);
    }
    close(fd);
    return rc;
}

/* Prune order: a file too large to load first (it is no session anyone can open), then the
 * least recently written. */
static int by_age(const void *a, const void *b)
{
    const shc_store_info *x = a, *y = b;
    bool xbig = x->size > SHC_STORE_LOAD_MAX, ybig = y->size > SHC_STORE_LOAD_MAX;
    if (xbig != ybig)
        return xbig ? -1 : 1;
    if (x->mtime_ns != y->mtime_ns)
        return x->mtime_ns < y->mtime_ns ? -1 : 1;
    return strcmp(x->id, y->id);
}

size_t shc_store_prune(shc_store *st)
{
    st->since_prune = 0;
    shc_store_info *v = NULL;
    size_t n = 0;
    const shc_store_info *iv;
    size_t in;
    if (st->idx_valid && shc_store_index_all(st, &iv, &in) == 0) { /* sizes from the index */
        if (in && !(v = calloc(in, sizeof *v)))
            return 0;
        for (size_t i = 0; i < in; i++) {
            memcpy(v[i].id, iv[i].id, sizeof v[i].id);
            v[i].size = iv[i].size;
            v[i].mtime_ns = iv[i].mtime_ns;
        }
        n = in;
    } else if (shc__store_list(st, &v, &n, false) != 0) { /* sizes and times are enough */
        return 0;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].size;
    size_t gone = 0;
    if (total > st->max_bytes) {
        qsort(v, n, sizeof *v, by_age);
        for (size_t i = 0; i < n && total > st->max_bytes; i++) {
            if (shc_store_delete(st, v[i].id) != 0)
                continue; /* open somewhere: never pulled from under a writer */
            total -= v[i].size;
            gone++;
            shc_log_info(st->log, "session store: pruned %s (%llu bytes) to stay under %llu",
                         v[i].id, (unsigned long long)v[i].size,
                         (unsigned long long)st->max_bytes);
        }
    }
    shc_store_list_free(v, n);
    return gone;
}
