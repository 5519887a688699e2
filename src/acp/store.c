/* The session store, one session's file: create, open and lock, bounded line reads (a torn last
 * line cut off), appends with the record and per-session caps.  See store.h for the rules it
 * keeps; store_dir.c has the directory (names, safe opening, listing, pruning). */
#define _GNU_SOURCE
#include "acp/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rpc/rpc_scan.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "shcard.h"

#define READ_CHUNK ((size_t)64 << 10)
#define PUBLISH_EVERY_MS 1000 /* a session being written is announced this often at most */

struct shc_store_file {
    shc_store *st;
    char id[SHC_STORE_ID_LEN + 1];
    int fd;
    uint64_t size;
    bool failed; /* a write failed: nothing more goes in */
    bool capped; /* the per-session cap was reached */
    bool read_only; /* opened for reading only: the store (or this file) is not writable */
    bool unannounced; /* written since it was last announced in the index's journal */
    uint64_t announced_ms;
    /* sequential reading (shc_store_read) */
    char *buf;
    size_t len, pos, cap;
    uint64_t off;  /* file offset of buf[0] */
    uint64_t read; /* bytes read so far */
    unsigned long lineno;
    bool eof;
};

/* ------------------------------------------------------------------ opening files */

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Other agents learn from the index's journal that this session changed; a journal grown
 * long is folded into the index file (store_index.c). */
static void announce(shc_store_file *f)
{
    f->unannounced = false;
    f->announced_ms = now_ms();
    if (shc__cache_publish(f->st, f->id) > SHC_CACHE_JOURNAL_MAX) {
        const shc_store_info *v;
        size_t n;
        shc_store_index(f->st, &v, &n);
    }
}

static shc_store_file *file_new(shc_store *st, const char *id, int fd, uint64_t size)
{
    shc_store_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->st = st;
    memcpy(f->id, id, SHC_STORE_ID_LEN + 1);
    f->fd = fd;
    f->size = size;
    return f;
}

int shc_store_create(shc_store_file **out, shc_store *st, const char *id, const json_t *meta)
{
    *out = NULL;
    if (!shc_store_id_valid(id))
        return SHC_E_USAGE;
    char name[SHC_STORE_ID_LEN + 7];
    shc__store_file_name(name, id);
    int fd = openat(st->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
                    0600);
    if (fd < 0) {
        shc_log_warn(st->log, "session store: cannot create %s: %s", name, strerror(errno));
        return SHC_E_IO;
    }
    /* locked at once, and still there: a prune in another process may not take it meanwhile */
    if (fchmod(fd, 0600) != 0 || flock(fd, LOCK_EX | LOCK_NB) != 0 ||
        !shc__store_still_linked(st, id, fd)) {
        close(fd);
        unlinkat(st->dirfd, name, 0);
        return SHC_E_IO;
    }
    shc_store_file *f = file_new(st, id, fd, 0);
    if (!f) {
        close(fd);
        unlinkat(st->dirfd, name, 0);
        return SHC_E_NOMEM;
    }
    if (shc_store_append(f, meta) != 0) {
        shc_store_close(f);
        unlinkat(st->dirfd, name, 0);
        return SHC_E_IO;
    }
    shc__store_touch(st, id); /* announced by the append above */
    st->names_changed = true;
    *out = f;
    return 0;
}

int shc_store_open_session(shc_store_file **out, shc_store *st, const char *id)
{
    *out = NULL;
    if (!shc_store_id_valid(id))
        return SHC_STORE_ENOENT;
    struct stat sb;
    int fd = shc__store_open_file(st, id, O_RDWR | O_APPEND, &sb);
    bool ro = false;
    if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
        fd = shc__store_open_file(st, id, O_RDONLY, &sb); /* a read-only store still loads */
        ro = fd >= 0;
    }
    if (fd < 0)
        return errno == ENOENT || errno == EINVAL ? SHC_STORE_ENOENT : SHC_E_IO;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return errno == EWOULDBLOCK ? SHC_STORE_EBUSY : SHC_E_IO;
    }
    if (!shc__store_still_linked(st, id, fd)) {
        close(fd);
        return SHC_STORE_ENOENT;
    }
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size > SHC_STORE_LOAD_MAX) {
        close(fd);
        return SHC_STORE_EBIG;
    }
    shc_store_file *f = file_new(st, id, fd, (uint64_t)sb.st_size);
    if (!f) {
        close(fd);
        return SHC_E_NOMEM;
    }
    f->failed = ro; /* nothing can go in */
    f->read_only = ro;
    *out = f;
    return 0;
}

bool shc_store_read_only(const shc_store_file *f)
{
    return f && f->read_only;
}

void shc_store_close(shc_store_file *f)
{
    if (!f)
        return;
    if (f->unannounced)
        announce(f);
    close(f->fd); /* drops the lock */
    free(f->buf);
    free(f);
}

bool shc_store_capped(const shc_store_file *f)
{
    return f->capped;
}

uint64_t shc_store_file_size(const shc_store_file *f)
{
    return f->size;
}

/* ------------------------------------------------------------------ reading */

static int corrupt(shc_store_file *f, char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s.jsonl line %lu: %s", f->id, f->lineno, why);
    return SHC_STORE_ECORRUPT;
}

/* Reads more of the file into the buffer.  Returns 0, SHC_E_NOMEM or SHC_E_IO. */
static int fill(shc_store_file *f)
{
    if (f->pos) { /* compact */
        memmove(f->buf, f->buf + f->pos, f->len - f->pos);
        f->len -= f->pos;
        f->off += f->pos;
        f->pos = 0;
    }
    if (f->cap - f->len < READ_CHUNK) {
        size_t cap = f->cap ? f->cap * 2 : READ_CHUNK * 2;
        if (cap > SHC_STORE_MAX_RECORD + READ_CHUNK * 2)
            cap = SHC_STORE_MAX_RECORD + READ_CHUNK * 2;
        if (cap > f->cap) {
            char *p = realloc(f->buf, cap);
            if (!p)
                return SHC_E_NOMEM;
            f->buf = p;
            f->cap = cap;
        }
    }
    for (;;) {
        ssize_t n = read(f->fd, f->buf + f->len, f->cap - f->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return SHC_E_IO;
        if (n == 0)
            f->eof = true;
        f->len += (size_t)n;
        f->read += (uint64_t)n;
        return 0;
    }
}

int shc_store_read(shc_store_file *f, json_t **rec, char *err, size_t errlen)
{
    *rec = NULL;
    for (;;) {
        char *start = f->buf + f->pos;
        char *nl = f->len > f->pos ? memchr(start, '\n', f->len - f->pos) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - start);
            f->pos += n + 1;
            f->lineno++;
            if (n == 0)
                continue;
            shc_rpc_scan sc; /* parsing costs memory per value: bounded before it starts */
            shc__rpc_scan(start, n, &sc);
            if (sc.structural > SHC_STORE_MAX_VALUES)
                return corrupt(f, err, errlen, "a record with too many values");
            json_error_t je;
            json_t *j = json_loadb(start, n, JSON_ALLOW_NUL, &je);
            if (!j || !json_is_object(j) || !json_is_string(json_object_get(j, "t"))) {
                json_decref(j);
                return corrupt(f, err, errlen, j ? "not a record" : "not JSON");
            }
            *rec = j;
            return 1;
        }
        if (f->len - f->pos > SHC_STORE_MAX_RECORD) {
            f->lineno++;
            return corrupt(f, err, errlen, "a line longer than the store's record limit");
        }
        if (f->read > SHC_STORE_LOAD_MAX) {
            snprintf(err, errlen, "%s.jsonl is larger than %llu bytes", f->id,
                     (unsigned long long)SHC_STORE_LOAD_MAX);
            return SHC_STORE_EBIG;
        }
        if (f->eof) {
            if (f->pos < f->len) { /* a torn last line: drop it so appends start clean */
                uint64_t keep = f->off + f->pos;
                shc_log_warn(f->st->log, "session store: %s.jsonl ends in a partial line (%zu "
                             "bytes, an interrupted write): skipped",
                             f->id, f->len - f->pos);
                if (ftruncate(f->fd, (off_t)keep) == 0)
                    f->size = keep;
                f->pos = f->len;
            }
            free(f->buf);
            f->buf = NULL;
            f->len = f->pos = f->cap = 0;
            return 0;
        }
        int rc = fill(f);
        if (rc) {
            snprintf(err, errlen, "%s.jsonl: %s", f->id,
                     rc == SHC_E_NOMEM ? "out of memory" : strerror(errno));
            return rc;
        }
    }
}

/* ------------------------------------------------------------------ writing */

typedef struct sink {
    shc_strbuf b;
    bool over;
} sink;

static int put(const char *buf, size_t n, void *ctx)
{
    sink *s = ctx;
    if (s->b.n + n > SHC_STORE_MAX_RECORD) {
        s->over = true;
        return -1;
    }
    shc_strbuf_put(&s->b, buf, n);
    return s->b.err ? -1 : 0;
}

static int write_all(shc_store_file *f, const char *p, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(f->fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            f->failed = true;
            shc_log_warn(f->st->log, "session store: writing %s.jsonl failed (%s): the rest of "
                         "this session is not recorded",
                         f->id, w < 0 ? strerror(errno) : "short write");
            return SHC_E_IO;
        }
        off += (size_t)w;
    }
    f->size += n;
    f->st->since_prune += n;
    return 0;
}

int shc_store_append(shc_store_file *f, const json_t *rec)
{
    if (!f || f->failed)
        return SHC_E_IO;
    shc__store_touch(f->st, f->id);
    if (f->capped)
        return 1;
    sink s = {{0}, false};
    int replaced = 0;
    int wrc = shc_json_write(rec, put, &s);
    if (wrc == 0) { /* what could not be read back is not written */
        shc_rpc_scan sc;
        shc__rpc_scan(s.b.p, s.b.n, &sc);
        s.over = sc.structural > SHC_STORE_MAX_VALUES;
    }
    if (wrc != 0 || s.over) {
        shc_strbuf_free(&s.b);
        if (!s.over)
            return SHC_E_NOMEM;
        /* too large for one line: say what was left out */
        const char *t = json_string_value(json_object_get(rec, "t"));
        json_t *k = json_pack("{s:s,s:s}", "t", "skipped", "what", t ? t : "?");
        s = (sink){{0}, false};
        if (!k || shc_json_write(k, put, &s) != 0) {
            json_decref(k);
            shc_strbuf_free(&s.b);
            return SHC_E_NOMEM;
        }
        json_decref(k);
        replaced = 1;
        shc_log_warn(f->st->log, "session store: a %s record of %s is over %zu bytes or %zu "
                     "values: not stored",
                     t ? t : "?", f->id, SHC_STORE_MAX_RECORD, SHC_STORE_MAX_VALUES);
    }
    shc_strbuf_putc(&s.b, '\n');
    if (s.b.err) {
        shc_strbuf_free(&s.b);
        return SHC_E_NOMEM;
    }
    int rc;
    if (f->size + s.b.n > f->st->session_max && f->size > 0) {
        f->capped = true;
        shc_log_warn(f->st->log, "session store: %s reached %llu bytes: later turns are not "
                     "recorded",
                     f->id, (unsigned long long)f->st->session_max);
        rc = write_all(f, "{\"t\":\"capped\"}\n", 15);
        replaced = 1;
    } else {
        rc = write_all(f, s.b.p, s.b.n);
    }
    shc_strbuf_free(&s.b);
    if (!rc) { /* a prompt or a title changes what a list shows: announced at once */
        const char *t = json_string_value(json_object_get(rec, "t"));
        f->unannounced = true;
        if ((t && (!strcmp(t, "prompt") || !strcmp(t, "title"))) ||
            now_ms() - f->announced_ms >= PUBLISH_EVERY_MS)
            announce(f);
    }
    if (!rc && f->st->since_prune >= SHC_STORE_PRUNE_EVERY)
        shc_store_prune(f->st);
    return rc ? rc : replaced;
}

