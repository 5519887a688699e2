/* Internals of the session store shared by store.c (one session's file) and store_dir.c (the
 * directory: names, safe opening, listing, pruning).  store.c -> store_dir.c.  Not public. */
#ifndef SHC_STORE_INT_H
#define SHC_STORE_INT_H

#include <string.h>
#include <sys/stat.h>

#include "acp/store.h"

enum { SHC_STORE_TOUCHED = 32 };

struct shc_store {
    char *path;
    int dirfd;
    uint64_t max_bytes;
    uint64_t session_max;
    uint64_t since_prune; /* bytes appended since the last prune */
    const shc_log *log;
    unsigned char key[16]; /* the id key (.key): a tag in every id this store makes */
    /* the listing index (store_index.c): every session's head, newest first */
    shc_store_info *idx;
    size_t idx_n;
    bool idx_valid;
    int64_t idx_dir_ns;  /* the directory's mtime when it was built (or last caught up) */
    uint64_t idx_built_ms;
    char touched[SHC_STORE_TOUCHED][SHC_STORE_ID_LEN + 1]; /* written here since */
    size_t ntouched;     /* SHC_STORE_TOUCHED + 1: too many, rebuild */
    unsigned long scans; /* full directory scans for the index */
};

/* A session file was made, written or removed through this store: the index catches up on
 * it without a rescan. */
static inline void shc__store_touch(shc_store *st, const char *id)
{
    if (!st->idx_valid || st->ntouched > SHC_STORE_TOUCHED)
        return;
    for (size_t i = 0; i < st->ntouched; i++)
        if (!memcmp(st->touched[i], id, SHC_STORE_ID_LEN))
            return;
    if (st->ntouched == SHC_STORE_TOUCHED) {
        st->ntouched++;
        return;
    }
    memcpy(st->touched[st->ntouched++], id, SHC_STORE_ID_LEN + 1);
}

/* Reads the head of one file into info (store_dir.c); false when it is not a session file. */
bool shc__store_scan_head(shc_store *st, shc_store_info *info, bool heads);

/* "<id>.jsonl" (id must be valid) into out. */
void shc__store_file_name(char out[SHC_STORE_ID_LEN + 7], const char *id);
/* Opens a store file relative to the directory without following a symlink and without
 * blocking on a FIFO; it must be a regular file.  The fd, or -1 with errno (ENOENT, or EINVAL
 * for anything that is not a regular file). */
int shc__store_open_file(shc_store *st, const char *id, int flags, struct stat *sb);
/* After locking fd: is it still the file at that name (not pruned or deleted meanwhile)? */
bool shc__store_still_linked(shc_store *st, const char *id, int fd);

/* SipHash-2-4 of in[0..n) under key (store_dir.c; for tests against the reference vectors). */
uint64_t shc__siphash24(const unsigned char key[16], const unsigned char *in, size_t n);

#endif
