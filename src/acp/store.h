/* The durable session store of `shcard acp`: one append-only file of JSON lines per session in
 * one directory ($XDG_STATE_HOME/shcard/sessions, else ~/.local/state/shcard/sessions).
 * It knows files, locks and lines, not ACP: a record is a JSON object with a "t" member, and
 * only the first record (the session's meta) and "title"/"prompt" records mean anything to it
 * (for listing).  What the other records hold is documented in acp/journal.h.
 *
 * Safety: the directory is 0700 and owned by the user, files are 0600 (they hold command
 * output); every file is opened relative to the directory's fd with O_NOFOLLOW (a symlink
 * planted in the store is never followed) and must be a regular file with one link (a hard link
 * may name a file outside the store); a session id is checked
 * against SHC_STORE_ID's shape before it is used in a name, so a client's id can never name a
 * file outside the store; ids are unguessable (getrandom(2) and a keyed tag).  Reads are bounded: one
 * line at most SHC_STORE_MAX_RECORD bytes, one file at most SHC_STORE_LOAD_MAX bytes, and
 * listing reads at most SHC_STORE_HEAD_SCAN bytes of each file.
 *
 * Concurrency: a session open for writing holds an exclusive flock(2) on its file, so a second
 * shcard process cannot load, write, delete or prune it; readers for listing take no lock (they
 * read whole lines only; a torn last line is skipped).
 *
 * Ownership: shc_store and shc_store_file are owned by the caller (free/close, NULL-safe); a
 * file must be closed before its store is freed.  Records passed in are borrowed. */
#ifndef SHC_STORE_H
#define SHC_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/log.h"

#define SHC_STORE_ID_PREFIX         "sess_"
#define SHC_STORE_ID_LEN            37 /* "sess_" + 32 lowercase hex digits */
#define SHC_STORE_MAX_RECORD        ((size_t)16 << 20)   /* longest line written or read */
#define SHC_STORE_MAX_VALUES        ((size_t)1 << 16) /* JSON values in one record ({ [ , :) */
#define SHC_STORE_SESSION_MAX       ((uint64_t)64 << 20) /* a session file stops growing here */
#define SHC_STORE_LOAD_MAX          (SHC_STORE_SESSION_MAX + SHC_STORE_MAX_RECORD + 4096)
#define SHC_STORE_HEAD_SCAN         ((size_t)16 << 10) /* bytes read per file to list it */
#define SHC_STORE_DEFAULT_MAX_BYTES ((uint64_t)256 << 20) /* the whole store; oldest pruned */
#define SHC_STORE_MIN_MAX_BYTES     ((uint64_t)1 << 20)
#define SHC_STORE_PRUNE_EVERY       ((uint64_t)4 << 20) /* appended bytes between two prunes */

/* Errors besides SHC_E_NOMEM / SHC_E_IO / SHC_E_USAGE (shcard.h). */
enum {
    SHC_STORE_ENOENT = -100,   /* no such session in the store */
    SHC_STORE_EBUSY = -101,    /* another process has the session open */
    SHC_STORE_ECORRUPT = -102, /* a line is not a record (the message says where) */
    SHC_STORE_EBIG = -103,     /* the file is larger than SHC_STORE_LOAD_MAX */
};

typedef struct shc_store shc_store;
typedef struct shc_store_file shc_store_file;

/* getenv-like */
typedef const char *(*shc_store_env_fn)(const char *name);

/* The default directory from the environment ($XDG_STATE_HOME, else $HOME/.local/state), with
 * "/shcard/sessions" appended, into out.  Returns 0, or SHC_E_USAGE when neither is set. */
int shc_store_default_dir(char *out, size_t cap, shc_store_env_fn env);

/* Creates the directory (and missing parents, 0700), checks it is a directory owned by the
 * user, tightens it to 0700, and prunes it to max_bytes (0 = the default).  log is borrowed
 * and must outlive the store.  Returns 0 or an error with a message in err. */
int shc_store_open(shc_store **out, const char *dir, uint64_t max_bytes, const shc_log *log,
                   char *err, size_t errlen);
void shc_store_free(shc_store *st);
const char *shc_store_path(const shc_store *st);
uint64_t shc_store_max_bytes(const shc_store *st);

/* A new session id "sess_<32 hex>": 64 bits from getrandom(2) and a 64-bit SipHash tag of
 * them under the store's key (a 0600 file .key in the directory), so that the store can tell
 * an id it made (a session that never recorded anything has no file) from any other; with st
 * NULL (no store) 128 random bits.  0 or SHC_E_IO. */
int shc_store_new_id(shc_store *st, char out[SHC_STORE_ID_LEN + 1]);
/* Whether id has exactly that shape (the only names the store ever opens). */
bool shc_store_id_valid(const char *id);
/* Whether this store made id (its tag checks out). */
bool shc_store_id_ours(const shc_store *st, const char *id);
/* Whether a session with this id was deleted or pruned (the store keeps the last ids it
 * removed, up to 1 MiB of them): an id of ours without a file is a session that never recorded
 * anything only when it is not gone. */
bool shc_store_id_gone(shc_store *st, const char *id);

/* Creates the file of a new session (it must not exist), locks it and writes meta as its first
 * record.  0, SHC_E_USAGE (bad id), SHC_E_IO. */
int shc_store_create(shc_store_file **out, shc_store *st, const char *id, const json_t *meta);

/* Opens an existing session for reading its records and then appending: locks it (EBUSY when
 * another process holds it).  0, SHC_STORE_ENOENT, SHC_STORE_EBUSY, SHC_STORE_EBIG, SHC_E_IO. */
int shc_store_open_session(shc_store_file **out, shc_store *st, const char *id);

/* The next record of a file opened with shc_store_open_session.  Returns 1 with *rec (a new
 * reference), 0 at the end (a torn last line, from a crash mid-write, is skipped and cut off so
 * that appends start on a line boundary), or SHC_STORE_ECORRUPT / SHC_E_NOMEM / SHC_E_IO with a
 * message in err naming the line. */
int shc_store_read(shc_store_file *f, json_t **rec, char *err, size_t errlen);

/* Appends one record as one line.  A record over SHC_STORE_MAX_RECORD (or with more than
 * SHC_STORE_MAX_VALUES values: reading one back stays cheap) is replaced by
 * {"t":"skipped","what":T}; once the file reaches the per-session cap one
 * {"t":"capped"} record is written and later ones are dropped.  After a write error the file
 * takes nothing more.  Returns 0, 1 when the record was dropped or replaced, or SHC_E_IO. */
int shc_store_append(shc_store_file *f, const json_t *rec);
bool shc_store_capped(const shc_store_file *f);
/* The file could be opened for reading only (a read-only store): it loads, records are not
 * appended (shc_store_append fails). */
bool shc_store_read_only(const shc_store_file *f);
uint64_t shc_store_file_size(const shc_store_file *f);
void shc_store_close(shc_store_file *f); /* NULL-safe; unlocks */

/* Removes a session's file and notes its id as gone (also for an id of ours without a file).
 * 0, SHC_STORE_ENOENT, SHC_STORE_EBUSY (open in another process; close it in this one first),
 * SHC_E_IO. */
int shc_store_delete(shc_store *st, const char *id);

/* What listing learns from the head of one file. */
typedef struct shc_store_info {
    char id[SHC_STORE_ID_LEN + 1];
    char *cwd;        /* owned; NULL when the file is corrupt */
    char *title;      /* owned, or NULL */
    bool has_prompt;  /* at least one prompt was recorded (in the scanned head) */
    bool corrupt;     /* the first line is not a session record */
    int64_t mtime_ns; /* last write: the session's updatedAt */
    uint64_t size;
    uint64_t ino;     /* with size and mtime_ns: has the file changed since its head was read? */
    bool mark;        /* scratch for the index's bookkeeping */
    bool borrowed;    /* cwd and title point into the index file's text (not owned) */
} shc_store_info;

/* Every session file in the store, unsorted.  *out is owned (shc_store_list_free). */
int shc_store_list(shc_store *st, shc_store_info **out, size_t *n);
void shc_store_list_free(shc_store_info *v, size_t n);

/* Every session file, newest first (mtime, then id), from the listing index (store_index.c):
 * kept in memory between calls and in the store (.index/, store_cache.c) between processes, so
 * that neither a page nor a start-up reads every session.  A cache only: deleted or corrupt, it
 * is built again by one scan of the store.  It catches up on the sessions written through this
 * store, on those other agents announce in the index's journal, and on files made or removed
 * by hand (the directory's mtime changed for no announced reason: its names are read again).
 * *v is borrowed until the next call on st; it may end before the oldest session (the index
 * file is parsed as far as pages need it): shc_store_index_more. */
int shc_store_index(shc_store *st, const shc_store_info **v, size_t *n);
/* The entries at pos[0..k) of the last shc_store_index answer are about to be shown: each is
 * checked against its file (one fstatat) and read again when it changed (by hand, or by a
 * writer that did not announce it).  Returns 0 when none changed, 1 when the index changed (the
 * caller asks shc_store_index again), or an error. */
int shc_store_index_verify(shc_store *st, const size_t *pos, size_t k);
/* The index may end before the oldest session (the index file is parsed as pages need it):
 * parses more of it, so that the next shc_store_index answer is longer.  1 it did, 0 the
 * answer was already complete, or an error. */
int shc_store_index_more(shc_store *st);
/* shc_store_index, complete (every session, e.g. for pruning). */
int shc_store_index_all(shc_store *st, const shc_store_info **v, size_t *n);
/* How many times the index scanned the whole directory (tests and benchmarks). */
unsigned long shc_store_scans(const shc_store *st);
/* The index's order, for qsort. */
int shc__store_newest_first(const void *a, const void *b);

/* Deletes the least recently written sessions until the store holds at most its max_bytes,
 * skipping every session that is open (in this process or another).  Returns how many files
 * were removed. */
size_t shc_store_prune(shc_store *st);

#endif
