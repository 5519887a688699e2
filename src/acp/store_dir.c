/* The session store's directory (store.h): ids and file names, opening a store file safely,
 * listing.  store.c (one session's file) and store_open.c (opening, deleting, pruning) build on it. */
#define _GNU_SOURCE
#include "acp/store_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shcard.h"

/* ------------------------------------------------------------------ names */

bool shc_store_id_valid(const char *id)
{
    if (!id || strncmp(id, SHC_STORE_ID_PREFIX, 5) || strlen(id) != SHC_STORE_ID_LEN)
        return false;
    for (const char *p = id + 5; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

static int random_bytes(unsigned char *r, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(r + got, n - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return SHC_E_IO;
        got += (size_t)k;
    }
    return 0;
}

/* SipHash-2-4 (Aumasson and Bernstein) of in[0..n) under a 16-byte key: a keyed PRF, so that a
 * tag over an id's random half proves this store made the id. */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                   \
    do {                                                                                           \
        v0 += v1, v1 = ROTL(v1, 13), v1 ^= v0, v0 = ROTL(v0, 32);                                  \
        v2 += v3, v3 = ROTL(v3, 16), v3 ^= v2;                                                     \
        v0 += v3, v3 = ROTL(v3, 21), v3 ^= v0;                                                     \
        v2 += v1, v1 = ROTL(v1, 17), v1 ^= v2, v2 = ROTL(v2, 32);                                  \
    } while (0)

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

uint64_t shc__siphash24(const unsigned char key[16], const unsigned char *in, size_t n)
{
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
    uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t m = le64(in + i);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)n << 56;
    for (size_t k = 0; i + k < n; k++)
        b |= (uint64_t)in[i + k] << (8 * k);
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static void hex(char *out, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static uint64_t tag_of(const shc_store *st, const unsigned char r[8])
{
    return shc__siphash24(st->key, r, 8);
}

int shc_store_new_id(shc_store *st, char out[SHC_STORE_ID_LEN + 1])
{
    unsigned char r[16];
    if (random_bytes(r, st ? 8 : 16) != 0)
        return SHC_E_IO;
    if (st) { /* 64 random bits and 64 bits of tag: unguessable, and provably ours */
        uint64_t t = tag_of(st, r);
        for (int i = 0; i < 8; i++)
            r[8 + i] = (unsigned char)(t >> (8 * i));
    }
    memcpy(out, SHC_STORE_ID_PREFIX, 5);
    hex(out + 5, r, 16);
    return 0;
}

bool shc_store_id_ours(const shc_store *st, const char *id)
{
    if (!st || !shc_store_id_valid(id))
        return false;
    unsigned char r[16];
    for (int i = 0; i < 16; i++) {
        unsigned hi = (unsigned)(id[5 + 2 * i] <= '9' ? id[5 + 2 * i] - '0' : id[5 + 2 * i] - 'a' + 10);
        unsigned lo = (unsigned)(id[6 + 2 * i] <= '9' ? id[6 + 2 * i] - '0' : id[6 + 2 * i] - 'a' + 10);
        r[i] = (unsigned char)(hi << 4 | lo);
    }
    uint64_t t = tag_of(st, r), u = le64(r + 8);
    return t == u;
}

/* The store's id key: made once (written to a temporary file, then linked into place, so that
 * two agents starting together agree on one), then read: a regular 0600 file of 16 bytes. */
int shc__store_load_key(shc_store *st)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = openat(st->dirfd, ".key", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            struct stat sb;
            ssize_t n = -1;
            if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 16)
                n = read(fd, st->key, 16);
            close(fd);
            return n == 16 ? 0 : SHC_E_IO;
        }
        if (errno != ENOENT)
            return SHC_E_IO;
        char tmp[64];
        unsigned char r[8], key[16];
        if (random_bytes(r, sizeof r) || random_bytes(key, sizeof key))
            return SHC_E_IO;
        snprintf(tmp, sizeof tmp, ".key-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
                 r[4], r[5], r[6], r[7]);
        fd = openat(st->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
            return SHC_E_IO;
        bool ok = write(fd, key, 16) == 16 && fsync(fd) == 0;
        close(fd);
        if (ok && linkat(st->dirfd, tmp, st->dirfd, ".key", 0) == 0) {
            unlinkat(st->dirfd, tmp, 0);
            memcpy(st->key, key, 16);
            return 0;
        }
        unlinkat(st->dirfd, tmp, 0);
        if (!ok || errno != EEXIST)
            return SHC_E_IO;
        /* another agent made it first: read theirs */
    }
    return SHC_E_IO;
}

/* "<id>.jsonl"; id must be valid. */
void shc__store_file_name(char out[SHC_STORE_ID_LEN + 7], const char *id)
{
    memcpy(out, id, SHC_STORE_ID_LEN);
    memcpy(out + SHC_STORE_ID_LEN, ".jsonl", 7);
}

/* The id of a store file name, or false for any other name. */
static bool name_id(const char *name, char id[SHC_STORE_ID_LEN + 1])
{
    if (strlen(name) != SHC_STORE_ID_LEN + 6 || strcmp(name + SHC_STORE_ID_LEN, ".jsonl"))
        return false;
    memcpy(id, name, SHC_STORE_ID_LEN);
    id[SHC_STORE_ID_LEN] = 0;
    return shc_store_id_valid(id);
}

/* Opens a store file without following a symlink and without blocking on a FIFO; it must be a
 * regular file with one link.  Returns the fd, or -1 with errno (ENOENT, or EINVAL for another
 * kind). */
int shc__store_open_file(shc_store *st, const char *id, int flags, struct stat *sb)
{
    char name[SHC_STORE_ID_LEN + 7];
    shc__store_file_name(name, id);
    int fd = openat(st->dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP)
            errno = EINVAL;
        return -1;
    }
    /* a hard link is a name for a file that may live outside the store: never written */
    if (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode) || sb->st_nlink != 1) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* After locking fd: is it still the file at that name (not pruned or deleted meanwhile)? */
bool shc__store_still_linked(shc_store *st, const char *id, int fd)
{
    char name[SHC_STORE_ID_LEN + 7];
    shc__store_file_name(name, id);
    struct stat a, b;
    return fstat(fd, &a) == 0 && a.st_nlink > 0 &&
           fstatat(st->dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino &&
           a.st_dev == b.st_dev;
}

/* ------------------------------------------------------------------ the directory */

int shc_store_default_dir(char *out, size_t cap, shc_store_env_fn env)
{
    const char *xdg = env("XDG_STATE_HOME"), *home = env("HOME");
    int n;
    if (xdg && xdg[0] == '/') /* the XDG spec: a relative value is ignored */
        n = snprintf(out, cap, "%s/shcard/sessions", xdg);
    else if (home && home[0] == '/')
        n = snprintf(out, cap, "%s/.local/state/shcard/sessions", home);
    else
        return SHC_E_USAGE;
    return n > 0 && (size_t)n < cap ? 0 : SHC_E_USAGE;
}

/* mkdir -p with mode 0700 for every directory it creates. */
int shc__store_mkdirs(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return SHC_E_NOMEM;
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != 0)
            continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            rc = SHC_E_IO;
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return rc;
}

const char *shc_store_path(const shc_store *st)
{
    return st->path;
}

uint64_t shc_store_max_bytes(const shc_store *st)
{
    return st->max_bytes;
}

/* ------------------------------------------------------------------ gone ids, listing */

/* .gone: the ids of deleted and pruned sessions, one a line, so that an id this store made is
 * not taken for a session that never recorded anything (shc_store_id_gone).  Bounded: past
 * GONE_MAX bytes its newer half is kept. */
#define GONE_MAX ((size_t)1 << 20)

/* Opens .gone for appending: a regular file with one link, made anew (O_EXCL) when what is at
 * that name is anything else (a FIFO, a hard link to a file elsewhere). */
static int open_gone(shc_store *st)
{
    int fd = openat(st->dirfd, ".gone", O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_nlink == 1)
        return fd;
    if (fd >= 0) {
        close(fd);
        unlinkat(st->dirfd, ".gone", 0);
    }
    return openat(st->dirfd, ".gone", O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
                  0600);
}

void shc__store_mark_gone(shc_store *st, const char *id)
{
    int fd = open_gone(st);
    if (fd < 0)
        return;
    struct stat sb;
    char line[SHC_STORE_ID_LEN + 2];
    memcpy(line, id, SHC_STORE_ID_LEN);
    line[SHC_STORE_ID_LEN] = '\n';
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
        write(fd, line, SHC_STORE_ID_LEN + 1) == (ssize_t)(SHC_STORE_ID_LEN + 1) &&
        (size_t)sb.st_size > GONE_MAX) {
        /* keep the newer half: whole lines, written aside and renamed into place */
        size_t keep = GONE_MAX / 2 / (SHC_STORE_ID_LEN + 1) * (SHC_STORE_ID_LEN + 1);
        char *buf = malloc(keep);
        unlinkat(st->dirfd, ".gone.new", 0); /* whatever is there: never opened (a FIFO blocks) */
        int tfd = openat(st->dirfd, ".gone.new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                                                   O_CLOEXEC, 0600);
        off_t from = (off_t)((size_t)sb.st_size + SHC_STORE_ID_LEN + 1 - keep);
        if (buf && tfd >= 0 && pread(fd, buf, keep, from) == (ssize_t)keep &&
            write(tfd, buf, keep) == (ssize_t)keep)
            renameat(st->dirfd, ".gone.new", st->dirfd, ".gone");
        if (tfd >= 0)
            close(tfd);
        free(buf);
    }
    close(fd);
}

bool shc_store_id_gone(shc_store *st, const char *id)
{
    int fd = openat(st->dirfd, ".gone", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat sb;
    char *buf = NULL;
    ssize_t n = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (buf = malloc(GONE_MAX * 2 + 1)))
        n = pread(fd, buf, GONE_MAX * 2, 0); /* bounded, even if another writer overran it */
    close(fd);
    bool gone = false;
    for (ssize_t i = 0; buf && i + SHC_STORE_ID_LEN < n && !gone; i += SHC_STORE_ID_LEN + 1)
        gone = !memcmp(buf + i, id, SHC_STORE_ID_LEN) && buf[i + SHC_STORE_ID_LEN] == '\n';
    free(buf);
    return gone;
}

/* Reads the head of one file into info (only its size and time without heads).  Returns false
 * when it is not a regular file. */
bool shc__store_scan_head(shc_store *st, shc_store_info *info, bool heads)
{
    struct stat sb;
    char name[SHC_STORE_ID_LEN + 7];
    shc__store_file_name(name, info->id);
    int fd = -1; /* sizes and times alone (pruning): one fstatat, no open */
    if (heads ? (fd = shc__store_open_file(st, info->id, O_RDONLY, &sb)) < 0
              : fstatat(st->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
        return false;
    info->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    info->size = (uint64_t)sb.st_size;
    info->ino = (uint64_t)sb.st_ino;
    if (!heads)
        return true;
    char *buf = malloc(SHC_STORE_HEAD_SCAN);
    size_t len = 0;
    while (buf && len < SHC_STORE_HEAD_SCAN) {
        ssize_t n = read(fd, buf + len, SHC_STORE_HEAD_SCAN - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    info->corrupt = true;
    for (size_t pos = 0, lineno = 0; buf && pos < len; lineno++) {
        char *nl = memchr(buf + pos, '\n', len - pos);
        if (!nl) {
            /* cut by the scan (a long prompt record: the journal writes "t" first) or torn */
            static const char prompt_rec[] = "{\"t\":\"prompt\"";
            if (lineno > 0 && len - pos >= sizeof prompt_rec - 1 &&
                !memcmp(buf + pos, prompt_rec, sizeof prompt_rec - 1))
                info->has_prompt = true;
            break;
        }
        json_t *j = json_loadb(buf + pos, (size_t)(nl - buf - (ptrdiff_t)pos), JSON_ALLOW_NUL,
                               NULL);
        pos = (size_t)(nl - buf) + 1;
        const char *t = json_string_value(json_object_get(j, "t"));
        if (lineno == 0) {
            const char *cwd = json_string_value(json_object_get(j, "cwd"));
            if (t && !strcmp(t, "session") && cwd && cwd[0] == '/') {
                info->cwd = strdup(cwd);
                info->corrupt = info->cwd == NULL;
            }
            json_decref(j);
            if (info->corrupt)
                break;
            continue;
        }
        if (t && !strcmp(t, "title") && !info->title) {
            const char *title = json_string_value(json_object_get(j, "title"));
            info->title = title ? strdup(title) : NULL;
        } else if (t && !strcmp(t, "prompt")) {
            info->has_prompt = true;
        }
        json_decref(j);
        if (info->title && info->has_prompt)
            break;
    }
    free(buf);
    return true;
}

int shc__store_list(shc_store *st, shc_store_info **out, size_t *n, bool heads)
{
    *out = NULL;
    *n = 0;
    int dfd = dup(st->dirfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return SHC_E_IO;
    }
    rewinddir(d);
    shc_store_info *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        shc_store_info info;
        memset(&info, 0, sizeof info);
        if (!name_id(e->d_name, info.id) || !shc__store_scan_head(st, &info, heads))
            continue;
        if (cnt == cap) {
            size_t nc = cap ? cap * 2 : 32;
            shc_store_info *p = realloc(v, nc * sizeof *p);
            if (!p) {
                free(info.cwd);
                free(info.title);
                rc = SHC_E_NOMEM;
                break;
            }
            v = p;
            cap = nc;
        }
        v[cnt++] = info;
    }
    closedir(d);
    if (rc) {
        shc_store_list_free(v, cnt);
        return rc;
    }
    *out = v;
    *n = cnt;
    return 0;
}

int shc_store_list(shc_store *st, shc_store_info **out, size_t *n)
{
    return shc__store_list(st, out, n, true);
}

void shc_store_list_free(shc_store_info *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        if (v[i].borrowed)
            continue;
        free(v[i].cwd);
        free(v[i].title);
    }
    free(v);
}
