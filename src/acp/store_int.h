/* Internals of the session store shared by store.c (one session's file), store_dir.c (the
 * directory: names, safe opening, listing, pruning), store_index.c (the listing index) and
 * store_cache.c (the index kept in the store).  store.c -> store_dir.c.  Not public. */
#ifndef SHC_STORE_INT_H
#define SHC_STORE_INT_H

#include <string.h>
#include <sys/stat.h>

#include "acp/store.h"

enum { SHC_STORE_TOUCHED = 4096 };

/* The index file read lazily (store_cache.c): it is newest first, so a first page needs its
 * head only; every block of SHC_CACHE_BLOCK entries carries its own checksum, verified before
 * any of it is used. */
enum { SHC_CACHE_BLOCK = 256 };
typedef struct shc_cache_lazy {
    bool open;        /* entries are left, fd is the file they are read from */
    int fd;
    char *buf;        /* the file's text (its whole size; read up to have, parsed up to pos) */
    size_t len, have, pos;
    size_t sum_from;  /* where the block being parsed starts (its checksum's first byte) */
    uint64_t left;    /* entries not parsed yet */
    bool any;         /* an entry was parsed: front is the last one's key */
    int64_t front_ns;
    char front_id[SHC_STORE_ID_LEN + 1];
} shc_cache_lazy; /* more written between two lists: every entry is checked */

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
    shc_cache_lazy lz; /* the index file: its text (entries' strings point into it), read and
                        * parsed a block at a time; idx is complete down to lz.front */
    char (*fresh)[SHC_STORE_ID_LEN + 1]; /* read from their files while lz had entries left:
                                          * their entries in the rest are stale, skipped */
    size_t nfresh, fresh_cap;
    bool idx_valid;
    bool idx_dirty;     /* differs from the index file in the store: write it back */
    bool names_changed; /* this process made or removed a session file */
    int64_t idx_dir_ns; /* the directory's mtime the index's names agree with */
    char (*touched)[SHC_STORE_ID_LEN + 1]; /* written here since the last list (owned) */
    size_t ntouched, touched_cap;          /* ntouched > SHC_STORE_TOUCHED: check every entry */
    unsigned long scans; /* full scans of the store (every file's head read) */
    /* the index kept in the store (store_cache.c): .index/ holds "sessions" (a snapshot) and
     * "journal" (the ids agents wrote since) */
    int cdirfd; /* .index/, or -1: none (a read-only store, or something else at that name) */
    uint64_t base_ino; /* the snapshot loaded or written last */
    int64_t base_mtime;
    uint64_t jino, jpos; /* how far the journal was read */
};

/* A session file was made, written or removed through this store: the index catches up on
 * it without a scan (store_index.c). */
void shc__store_touch(shc_store *st, const char *id);
/* Before the store is freed: the index file takes in what this process did. */
void shc__store_index_flush(shc_store *st);

/* The snapshot's header (store_cache.c). */
typedef struct shc_cache_hdr {
    int64_t dir_ns;      /* the directory's mtime its names agree with (0: unknown) */
    uint64_t n, total;   /* entries, and the sum of their sizes */
    uint64_t jino, jpos; /* the journal it took in: that inode, up to that offset */
    uint64_t ino;        /* the file's identity when read */
    int64_t mtime;
} shc_cache_hdr;
#define SHC_CACHE_JOURNAL_MAX ((uint64_t)256 << 10) /* then folded into a new snapshot */
/* Opens (makes) .index/ into st->cdirfd: 0, or -1 when the store cannot have one. */
int shc__cache_open(shc_store *st);
/* Opens the snapshot into *lz (its header into *h, verified with the first block): 0, or -1
 * (none, or unusable). */
int shc__cache_load(shc_store *st, shc_cache_lazy *lz, shc_cache_hdr *h);
/* Parses whole blocks of lz until at least want entries (or the end): entries newest first,
 * after lz->front, into *v (owned; strings borrowed from lz->buf).  0, or -1 when the file is
 * damaged (a checksum, the order, cut short).  At the end lz->open is false. */
int shc__cache_more(shc_cache_lazy *lz, shc_store_info **v, size_t *n, size_t want);
/* Closes lz's file (lz->open false); with text its buffer is freed too. */
void shc__cache_drop(shc_cache_lazy *lz, bool text);
/* The snapshot's header alone (start-up): 0 or -1. */
int shc__cache_header(shc_store *st, shc_cache_hdr *h);
/* Writes v[0..n) as the new snapshot (temp + rename) under the index's lock, agreeing with
 * the directory at st->idx_dir_ns and the journal at st->jino/jpos; with rotate the journal is
 * replaced by an empty one.  0 or -1 (then nothing changed). */
int shc__cache_write(shc_store *st, const shc_store_info *v, size_t n, bool rotate);
/* Announces that a session was written: one journal line.  The journal's size after it, or 0
 * when there is none. */
uint64_t shc__cache_publish(shc_store *st, const char *id);
/* The ids the journal got since st->jino/jpos (advanced; from 0 in another journal) into *ids
 * (owned).  0, or -1 when the journal could not be read (*n 0). */
int shc__cache_journal(shc_store *st, char (**ids)[SHC_STORE_ID_LEN + 1], size_t *n);
/* The snapshot file's identity now (inode, mtime); false when there is none. */
bool shc__cache_stat(shc_store *st, uint64_t *ino, int64_t *mtime);

/* store_dir.c, for store_open.c: mkdir -p (0700), the id key (.key, made once), an id noted as
 * gone (.gone), every session file (sizes and times only without heads). */
int shc__store_mkdirs(const char *path);
int shc__store_load_key(shc_store *st);
void shc__store_mark_gone(shc_store *st, const char *id);
int shc__store_list(shc_store *st, shc_store_info **out, size_t *n, bool heads);

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
