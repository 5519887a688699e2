/* The listing index kept in the store (store_int.h, shc__cache_*): .index/sessions, a snapshot
 * of every session's head (what session/list shows, and the size, mtime and inode it was read
 * at), and .index/journal, the ids agents wrote since, one a line.  Only a cache: a snapshot
 * that is missing, cut short or altered (its checksum) is not used, and the store is scanned
 * again.  Writers replace the snapshot whole (a temporary file renamed into place) under an
 * exclusive flock of .index/; announcing a session takes that lock shared, so that a journal is
 * never replaced between an agent's open and its write.  store_index.c -> store_cache.c ->
 * store_dir.c. */
#define _GNU_SOURCE
#include "acp/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "shcard.h"

#define SNAPSHOT "sessions"
#define JOURNAL "journal"
#define MAGIC "shcard-session-index 2 "
#define SNAPSHOT_MAX ((uint64_t)512 << 20)
#define JOURNAL_READ_MAX ((size_t)4 << 20)
#define LOCK_WAIT_MS 500

/* Noted for the listing index, which checks these files on its next catch-up (store_index.c). */
void shc__store_touch(shc_store *st, const char *id)
{
    if (st->ntouched > SHC_STORE_TOUCHED)
        return;
    for (size_t i = st->ntouched; i-- > 0;)
        if (!memcmp(st->touched[i], id, SHC_STORE_ID_LEN))
            return;
    if (st->ntouched == SHC_STORE_TOUCHED) {
        st->ntouched++; /* too many: every entry is checked next time */
        return;
    }
    if (st->ntouched == st->touched_cap) {
        size_t cap = st->touched_cap ? st->touched_cap * 2 : 16;
        void *p = realloc(st->touched, cap * sizeof *st->touched);
        if (!p) {
            st->ntouched = SHC_STORE_TOUCHED + 1;
            return;
        }
        st->touched = p;
        st->touched_cap = cap;
    }
    memcpy(st->touched[st->ntouched++], id, SHC_STORE_ID_LEN + 1);
}

/* The index's order (store.h). */
int shc__store_newest_first(const void *a, const void *b)
{
    const shc_store_info *x = a, *y = b;
    if (x->mtime_ns != y->mtime_ns)
        return x->mtime_ns > y->mtime_ns ? -1 : 1;
    return strcmp(x->id, y->id);
}

int shc__cache_open(shc_store *st)
{
    st->cdirfd = -1;
    if (mkdirat(st->dirfd, ".index", 0700) != 0 && errno != EEXIST)
        return -1; /* a read-only store without one: the index lives in memory only */
    int fd = openat(st->dirfd, ".index", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid()) {
        close(fd);
        return -1;
    }
    st->cdirfd = fd;
    return 0;
}

/* flock of .index/ with a bounded wait (another agent holds it for one write at most). */
static bool lock(shc_store *st, int how)
{
    for (int waited = 0;; waited += 5) {
        if (flock(st->cdirfd, how | LOCK_NB) == 0)
            return true;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return false;
        if (waited >= LOCK_WAIT_MS)
            return false;
        struct timespec ts = {0, 5 * 1000000};
        nanosleep(&ts, NULL);
    }
}

static void unlock(shc_store *st)
{
    flock(st->cdirfd, LOCK_UN);
}

/* A checksum of the snapshot (against a file cut short or altered by hand; not a MAC: whoever
 * can write the store can write its sessions too). */
static uint64_t sum64(const char *p, size_t n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    uint64_t h[4] = {0x6a09e667f3bcc909ULL ^ n, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                     0xa54ff53a5f1d36f1ULL};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) /* four independent lanes */
        for (int l = 0; l < 4; l++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * (size_t)l, 8);
            h[l] = (h[l] ^ w) * k;
            h[l] ^= h[l] >> 29;
        }
    uint64_t r = h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7);
    for (; i < n; i++)
        r = (r ^ (unsigned char)p[i]) * k;
    return r ^ (r >> 32);
}

/* Opens a regular file of .index/ for reading, never blocking on a FIFO. */
static int open_reg(shc_store *st, const char *name, struct stat *sb)
{
    int fd = openat(st->cdirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool read_all(int fd, char *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        got += (size_t)k;
    }
    return true;
}

/* A decimal field ended by sep. */
static bool field(const char **p, const char *end, char sep, int64_t *out)
{
    const char *s = *p;
    bool neg = s < end && *s == '-';
    s += neg;
    uint64_t v = 0;
    const char *d = s;
    while (s < end && *s >= '0' && *s <= '9' && v <= (UINT64_MAX - 9) / 10)
        v = v * 10 + (uint64_t)(*s++ - '0');
    if (s == d || s >= end || *s != sep || v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *p = s + 1;
    return true;
}

static bool parse_header(const char **p, const char *end, shc_cache_hdr *h)
{
    int64_t v[5];
    if ((size_t)(end - *p) < sizeof MAGIC - 1 || memcmp(*p, MAGIC, sizeof MAGIC - 1))
        return false;
    *p += sizeof MAGIC - 1;
    for (int i = 0; i < 5; i++)
        if (!field(p, end, i == 4 ? '\n' : ' ', &v[i]) || (i && v[i] < 0))
            return false;
    h->dir_ns = v[0];
    h->n = (uint64_t)v[1];
    h->total = (uint64_t)v[2];
    h->jino = (uint64_t)v[3];
    h->jpos = (uint64_t)v[4];
    return true;
}

int shc__cache_header(shc_store *st, shc_cache_hdr *h)
{
    struct stat sb;
    if (st->cdirfd < 0)
        return -1;
    int fd = open_reg(st, SNAPSHOT, &sb);
    if (fd < 0)
        return -1;
    char buf[256];
    ssize_t k = pread(fd, buf, sizeof buf, 0);
    close(fd);
    const char *p = buf;
    return k > 0 && parse_header(&p, buf + k, h) ? 0 : -1;
}

static bool hex_id(const char *p)
{
    if (memcmp(p, SHC_STORE_ID_PREFIX, 5))
        return false;
    for (int i = 5; i < SHC_STORE_ID_LEN; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return false;
    return true;
}

/* One entry: "<id> <size> <mtime> <ino> <flags> <cwd len> <title len> <cwd>\n<title>\n"; the
 * strings stay in the text: their ends go to z[0], z[1], which become NULs once the entry's
 * block is verified. */
static bool parse_entry(char **pp, const char *end, shc_store_info *e, char *z[2])
{
    char *p = *pp;
    if ((size_t)(end - p) < SHC_STORE_ID_LEN + 1 || p[SHC_STORE_ID_LEN] != ' ')
        return false;
    if (!hex_id(p))
        return false;
    memcpy(e->id, p, SHC_STORE_ID_LEN);
    e->id[SHC_STORE_ID_LEN] = 0;
    const char *q = p + SHC_STORE_ID_LEN + 1;
    int64_t size, mtime, ino, flags, cl, tl;
    if (!field(&q, end, ' ', &size) || !field(&q, end, ' ', &mtime) || !field(&q, end, ' ', &ino) ||
        !field(&q, end, ' ', &flags) || !field(&q, end, ' ', &cl) || !field(&q, end, ' ', &tl) ||
        size < 0 || ino < 0 || flags < 0 || flags > 7 || cl < 0 || tl < 0 ||
        (uint64_t)cl + (uint64_t)tl + 2 > (uint64_t)(end - q))
        return false;
    p += q - p;
    if (p[cl] != '\n' || p[cl + 1 + tl] != '\n')
        return false;
    e->size = (uint64_t)size;
    e->mtime_ns = mtime;
    e->ino = (uint64_t)ino;
    e->has_prompt = flags & 1;
    e->corrupt = flags & 2;
    if (e->corrupt != (cl == 0) || (cl && p[0] != '/') || memchr(p, 0, (size_t)(cl + 1 + tl)))
        return false;
    z[0] = p + cl;
    z[1] = p + cl + 1 + tl;
    e->borrowed = true;
    e->cwd = cl ? p : NULL;
    e->title = flags & 4 ? p + cl + 1 : NULL;
    *pp = p + cl + 1 + tl + 1;
    return true;
}

void shc__cache_drop(shc_cache_lazy *lz, bool text)
{
    if (lz->open)
        close(lz->fd);
    lz->open = false;
    lz->left = 0;
    if (text) {
        free(lz->buf);
        lz->buf = NULL;
    }
}

/* lz->buf holds at least need bytes (or the whole file); false on a read error. */
static bool read_upto(shc_cache_lazy *lz, size_t need)
{
    if (need <= lz->have)
        return true;
    size_t to = lz->have * 2 > need ? lz->have * 2 : need;
    if (to < ((size_t)256 << 10))
        to = (size_t)256 << 10;
    if (to > lz->len)
        to = lz->len;
    if (!read_all(lz->fd, lz->buf + lz->have, to - lz->have, lz->have))
        return false;
    lz->have = to;
    return true;
}

int shc__cache_load(shc_store *st, shc_cache_lazy *lz, shc_cache_hdr *h)
{
    struct stat sb;
    memset(lz, 0, sizeof *lz);
    if (st->cdirfd < 0)
        return -1;
    int fd = open_reg(st, SNAPSHOT, &sb);
    if (fd < 0)
        return -1;
    lz->fd = fd;
    lz->open = true;
    lz->len = (size_t)sb.st_size;
    /* the buffer's pages are only touched as far as the file is read */
    lz->buf = (uint64_t)sb.st_size <= SNAPSHOT_MAX && lz->len > 21 ? malloc(lz->len) : NULL;
    const char *hp = lz->buf;
    if (!lz->buf || !read_upto(lz, 256) || !parse_header(&hp, lz->buf + lz->have, h) ||
        h->n > (uint64_t)lz->len / (SHC_STORE_ID_LEN + 15)) {
        shc__cache_drop(lz, true);
        return -1;
    }
    lz->pos = (size_t)(hp - lz->buf);
    lz->left = h->n;
    h->ino = (uint64_t)sb.st_ino;
    h->mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    return 0;
}

/* One block from lz->pos, in what was read so far: its entries into v (room for
 * SHC_CACHE_BLOCK); 1 parsed and verified, 0 more must be read, -1 damaged. */
static int parse_block(shc_cache_lazy *lz, shc_store_info *v, size_t *k, char *z[][2])
{
    size_t m = lz->left < SHC_CACHE_BLOCK ? (size_t)lz->left : SHC_CACHE_BLOCK;
    char *p = lz->buf + lz->pos;
    const char *end = lz->buf + lz->have;
    shc_store_info prev;
    bool any = lz->any;
    prev.mtime_ns = lz->front_ns;
    memcpy(prev.id, lz->front_id, sizeof prev.id);
    for (size_t i = 0; i < m; i++) {
        memset(&v[i], 0, sizeof v[i]);
        if (!parse_entry(&p, end, &v[i], z[i]))
            return lz->have < lz->len ? 0 : -1;
        if (any && shc__store_newest_first(&prev, &v[i]) >= 0)
            return -1; /* never written so */
        prev = v[i];
        any = true;
    }
    if ((size_t)(end - p) < 21)
        return lz->have < lz->len ? 0 : -1;
    char want[24];
    size_t from = lz->sum_from;
    snprintf(want, sizeof want, "sum %016llx\n",
             (unsigned long long)sum64(lz->buf + from, (size_t)(p - (lz->buf + from))));
    if (memcmp(p, want, 21))
        return -1;
    *k = m;
    lz->pos = (size_t)(p + 21 - lz->buf);
    lz->sum_from = lz->pos;
    return 1;
}

int shc__cache_more(shc_cache_lazy *lz, shc_store_info **out, size_t *n, size_t want)
{
    *out = NULL;
    *n = 0;
    if (!lz->open)
        return 0;
    size_t cap = 0, k = 0;
    shc_store_info *v = NULL;
    char *(*z)[2] = malloc(SHC_CACHE_BLOCK * sizeof *z);
    int rc = z ? 0 : -1;
    do { /* the first block is verified even when it has no entry */
        if (rc)
            break;
        if (k + SHC_CACHE_BLOCK > cap) {
            cap = cap ? cap * 2 : SHC_CACHE_BLOCK;
            shc_store_info *p = realloc(v, cap * sizeof *v);
            if (!p) {
                rc = -1;
                break;
            }
            v = p;
        }
        size_t got = 0;
        int b;
        while ((b = parse_block(lz, v + k, &got, z)) == 0)
            if (!read_upto(lz, lz->have + 1)) {
                b = -1;
                break;
            }
        if (b < 0) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < got; i++) /* verified: the strings are ended */
            *z[i][0] = *z[i][1] = 0;
        k += got;
        lz->left -= got;
        lz->any = lz->any || got;
        if (got)
            lz->front_ns = v[k - 1].mtime_ns;
        if (got)
            memcpy(lz->front_id, v[k - 1].id, sizeof lz->front_id);
    } while (rc == 0 && lz->left && k < want);
    free(z);
    if (rc == 0 && !lz->left && lz->pos != lz->len)
        rc = -1; /* something after the last entry */
    if (rc) {
        free(v);
        shc__cache_drop(lz, false);
        return -1;
    }
    if (!lz->left)
        shc__cache_drop(lz, false);
    *out = v;
    *n = k;
    return 0;
}

bool shc__cache_stat(shc_store *st, uint64_t *ino, int64_t *mtime)
{
    struct stat sb;
    if (st->cdirfd < 0 || fstatat(st->cdirfd, SNAPSHOT, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(sb.st_mode))
        return false;
    *ino = (uint64_t)sb.st_ino;
    *mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    return true;
}

/* A new file of .index/ under a temporary name (O_EXCL: whatever is there is never opened). */
static int make_temp(shc_store *st, const char *base, char name[64])
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(name, 64, "%s.tmp-%ld-%ld", base, (long)getpid(), (long)ts.tv_nsec);
    return openat(st->cdirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static bool write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

int shc__cache_write(shc_store *st, const shc_store_info *v, size_t n, bool rotate)
{
    if (st->cdirfd < 0 || !lock(st, LOCK_EX))
        return -1;
    int rc = -1, jfd = -1, fd = -1;
    char jname[64] = "", name[64] = "";
    uint64_t jino = st->jino, jpos = st->jpos, total = 0;
    if (rotate) {
        struct stat sb;
        if ((jfd = make_temp(st, JOURNAL, jname)) < 0 || fstat(jfd, &sb) != 0)
            goto out;
        jino = (uint64_t)sb.st_ino;
        jpos = 0;
    }
    for (size_t i = 0; i < n; i++)
        total += v[i].size;
    shc_strbuf b = {0};
    shc_strbuf_printf(&b, MAGIC "%lld %zu %llu %llu %llu\n", (long long)st->idx_dir_ns, n,
                      (unsigned long long)total, (unsigned long long)jino,
                      (unsigned long long)jpos);
    size_t from = 0;
    for (size_t i = 0; i < n && !b.err; i++) {
        const shc_store_info *e = &v[i];
        size_t cl = e->cwd && !e->corrupt ? strlen(e->cwd) : 0;
        size_t tl = e->title && cl ? strlen(e->title) : 0;
        unsigned flags = (e->has_prompt ? 1u : 0u) | (cl ? 0u : 2u) | (e->title && cl ? 4u : 0u);
        shc_strbuf_printf(&b, "%s %llu %lld %llu %u %zu %zu ", e->id,
                          (unsigned long long)e->size, (long long)e->mtime_ns,
                          (unsigned long long)e->ino, flags, cl, tl);
        shc_strbuf_put(&b, e->cwd ? e->cwd : "", cl);
        shc_strbuf_putc(&b, '\n');
        shc_strbuf_put(&b, e->title && cl ? e->title : "", tl);
        shc_strbuf_putc(&b, '\n');
        if ((i + 1) % SHC_CACHE_BLOCK == 0 && !b.err) { /* each block its own checksum */
            shc_strbuf_printf(&b, "sum %016llx\n", (unsigned long long)sum64(b.p + from, b.n - from));
            from = b.n;
        }
    }
    if (!b.err && (n == 0 || n % SHC_CACHE_BLOCK))
        shc_strbuf_printf(&b, "sum %016llx\n", (unsigned long long)sum64(b.p + from, b.n - from));
    if (!b.err && (fd = make_temp(st, SNAPSHOT, name)) >= 0 && write_all(fd, b.p, b.n) &&
        renameat(st->cdirfd, name, st->cdirfd, SNAPSHOT) == 0) {
        name[0] = 0;
        uint64_t ino;
        int64_t mt;
        if (shc__cache_stat(st, &ino, &mt)) {
            st->base_ino = ino;
            st->base_mtime = mt;
        }
        rc = 0;
        if (rotate && renameat(st->cdirfd, jname, st->cdirfd, JOURNAL) == 0) {
            jname[0] = 0;
            st->jino = jino;
            st->jpos = 0;
        }
    }
    shc_strbuf_free(&b);
out:
    if (fd >= 0)
        close(fd);
    if (jfd >= 0)
        close(jfd);
    if (name[0])
        unlinkat(st->cdirfd, name, 0);
    if (jname[0])
        unlinkat(st->cdirfd, jname, 0);
    unlock(st);
    return rc;
}

uint64_t shc__cache_publish(shc_store *st, const char *id)
{
    if (st->cdirfd < 0 || !lock(st, LOCK_SH))
        return 0;
    int fd = openat(st->cdirfd, JOURNAL, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 && errno == ENOENT)
        fd = openat(st->cdirfd, JOURNAL, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW |
                    O_CLOEXEC, 0600);
    uint64_t size = 0;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_nlink == 1) {
        char line[SHC_STORE_ID_LEN + 1];
        memcpy(line, id, SHC_STORE_ID_LEN);
        line[SHC_STORE_ID_LEN] = '\n';
        if (write(fd, line, sizeof line) == (ssize_t)sizeof line)
            size = (uint64_t)sb.st_size + sizeof line;
    }
    if (fd >= 0)
        close(fd);
    unlock(st);
    return size;
}

int shc__cache_journal(shc_store *st, char (**ids)[SHC_STORE_ID_LEN + 1], size_t *n)
{
    *ids = NULL;
    *n = 0;
    struct stat sb;
    if (st->cdirfd < 0)
        return -1;
    int fd = open_reg(st, JOURNAL, &sb);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    if ((uint64_t)sb.st_ino != st->jino || (uint64_t)sb.st_size < st->jpos) {
        st->jino = (uint64_t)sb.st_ino; /* another journal (or one cut by hand): all of it */
        st->jpos = 0;
    }
    size_t len = (size_t)((uint64_t)sb.st_size - st->jpos);
    if (len > JOURNAL_READ_MAX) { /* grown by hand: the newest lines, from a line start */
        st->jpos = (uint64_t)sb.st_size - JOURNAL_READ_MAX;
        len = JOURNAL_READ_MAX;
    }
    char *buf = len ? malloc(len) : NULL;
    int rc = 0;
    if (len && (!buf || !read_all(fd, buf, len, st->jpos)))
        rc = -1;
    close(fd);
    size_t cap = len / (SHC_STORE_ID_LEN + 1) + 1, k = 0, used = 0;
    char (*v)[SHC_STORE_ID_LEN + 1] = rc == 0 && len ? malloc(cap * sizeof *v) : NULL;
    if (len && !v)
        rc = -1;
    for (size_t pos = 0; rc == 0 && pos < len;) {
        char *nl = memchr(buf + pos, '\n', len - pos);
        if (!nl)
            break; /* a line being written: read next time */
        size_t ll = (size_t)(nl - buf) - pos;
        if (ll == SHC_STORE_ID_LEN && k < cap) {
            memcpy(v[k], buf + pos, SHC_STORE_ID_LEN);
            v[k][SHC_STORE_ID_LEN] = 0;
            k += shc_store_id_valid(v[k]);
        }
        pos += ll + 1;
        used = pos;
    }
    free(buf);
    if (rc) {
        free(v);
        return rc;
    }
    st->jpos += used;
    *ids = v;
    *n = k;
    return 0;
}
