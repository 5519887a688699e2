/* The listing index of the session store (store.h, shc_store_index): every session's head,
 * newest first, so that a session/list page costs a binary search and 50 entries, not a read
 * of every session.  It is kept in memory and in the store (store_cache.c), and brought up to
 * date cheaply: the sessions written here (shc__store_touch, store_cache.c) and those other
 * agents announced in the journal are checked one fstatat each; the directory's names are read again (readdir,
 * no stat) only when its mtime changed for a reason nobody announced (a file made or removed by
 * hand); an entry about to be shown is checked against its file (shc_store_index_verify).  A
 * missing or corrupt index file costs one scan of the store, which writes it again.  The file
 * is parsed a block at a time, as far as pages need (parse_more): entries past the last one
 * parsed are not final (settled), and sessions read from their files meanwhile are skipped
 * further down (fresh).  store_index.c -> store_cache.c, store_dir.c. */
#define _GNU_SOURCE
#include "acp/store_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shcard.h"

static int64_t dir_mtime(const shc_store *st)
{
    struct stat sb;
    if (fstat(st->dirfd, &sb) != 0)
        return -1;
    return (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
}

static void info_free(shc_store_info *e)
{
    if (!e->borrowed) {
        free(e->cwd);
        free(e->title);
    }
    e->cwd = e->title = NULL;
    e->borrowed = false;
}

/* ------------------------------------------------------------------ ids to positions */

typedef struct idtab {
    size_t *slot; /* position + 1, 0 empty */
    size_t mask;
} idtab;

static uint64_t id_key(const char *id)
{
    uint64_t k = 0;
    for (int i = 5; i < 21; i++)
        k = k << 4 | (uint64_t)(id[i] <= '9' ? id[i] - '0' : id[i] - 'a' + 10);
    return k * 0x9e3779b97f4a7c15ULL;
}

/* dup (optional) is set when an id is there twice. */
static bool idtab_build(idtab *t, const shc_store_info *v, size_t n, bool *dup)
{
    size_t cap = 64;
    while (cap < n * 2)
        cap *= 2;
    t->slot = calloc(cap, sizeof *t->slot);
    t->mask = cap - 1;
    for (size_t i = 0; t->slot && i < n; i++) {
        size_t h = (size_t)(id_key(v[i].id) >> 20) & t->mask;
        for (; t->slot[h]; h = (h + 1) & t->mask)
            if (dup && !memcmp(v[t->slot[h] - 1].id, v[i].id, SHC_STORE_ID_LEN))
                *dup = true;
        t->slot[h] = i + 1;
    }
    return t->slot != NULL;
}

static size_t idtab_find(const idtab *t, const shc_store_info *v, const char *id)
{
    for (size_t h = (size_t)(id_key(id) >> 20) & t->mask; t->slot[h]; h = (h + 1) & t->mask)
        if (!memcmp(v[t->slot[h] - 1].id, id, SHC_STORE_ID_LEN))
            return t->slot[h] - 1;
    return SIZE_MAX;
}

/* ------------------------------------------------------------------ keeping it in order */

/* The changes of one catch-up: entries read again (mark), entries gone (id[0] 0), new ones. */
typedef struct delta {
    shc_store_info *add;
    size_t nadd, cap;
    bool any;   /* something changed */
    bool names; /* a file appeared or went */
    bool oom;
} delta;

static void delta_add(delta *d, shc_store_info *info)
{
    if (d->nadd == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        shc_store_info *p = realloc(d->add, cap * sizeof *p);
        if (!p) {
            info_free(info);
            d->oom = true;
            return;
        }
        d->add = p;
        d->cap = cap;
    }
    d->add[d->nadd++] = *info;
    d->any = d->names = true;
}

/* Is e still the file it was read from?  If not it is read again (mark) or dropped (gone). */
static void refresh(shc_store *st, shc_store_info *e, delta *d)
{
    char name[SHC_STORE_ID_LEN + 7];
    struct stat sb;
    shc__store_file_name(name, e->id);
    if (fstatat(st->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
        (uint64_t)sb.st_size == e->size && (uint64_t)sb.st_ino == e->ino &&
        (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec == e->mtime_ns)
        return;
    shc_store_info info;
    memset(&info, 0, sizeof info);
    memcpy(info.id, e->id, SHC_STORE_ID_LEN + 1);
    info_free(e);
    d->any = true;
    if (!shc__store_scan_head(st, &info, true)) {
        e->id[0] = 0; /* gone, or no longer a regular file */
        d->names = true;
        return;
    }
    *e = info;
    e->mark = true;
}

/* A session file not in the index (made here, announced, or found by readdir). */
static void add_new(shc_store *st, const char *id, delta *d)
{
    shc_store_info info;
    memset(&info, 0, sizeof info);
    memcpy(info.id, id, SHC_STORE_ID_LEN + 1);
    if (shc__store_scan_head(st, &info, true))
        delta_add(d, &info);
}

/* Applies a delta: entries read again and new ones are put in their place, gone ones out. */
static int apply(shc_store *st, delta *d)
{
    size_t keep = 0, moved = 0;
    for (size_t i = 0; i < st->idx_n; i++)
        if (st->idx[i].id[0] && !st->idx[i].mark)
            keep++;
        else if (st->idx[i].id[0])
            moved++;
    size_t nm = moved + d->nadd;
    shc_store_info *m = nm ? malloc(nm * sizeof *m) : NULL;
    shc_store_info *out = keep + nm ? malloc((keep + nm) * sizeof *out) : NULL;
    if ((nm && !m) || (keep + nm && !out) || d->oom) {
        free(m);
        free(out);
        for (size_t i = 0; i < d->nadd; i++)
            info_free(&d->add[i]);
        return SHC_E_NOMEM;
    }
    size_t k = 0, j = 0;
    for (size_t i = 0; i < st->idx_n; i++) {
        shc_store_info *e = &st->idx[i];
        if (!e->id[0])
            continue;
        if (e->mark) {
            e->mark = false;
            m[j++] = *e;
        } else {
            st->idx[k++] = *e;
        }
    }
    for (size_t i = 0; i < d->nadd; i++)
        m[j++] = d->add[i];
    if (nm > 1)
        qsort(m, nm, sizeof *m, shc__store_newest_first);
    size_t a = 0, b = 0, o = 0;
    while (a < keep || b < nm)
        out[o++] = b >= nm || (a < keep && shc__store_newest_first(&st->idx[a], &m[b]) < 0)
                       ? st->idx[a++]
                       : m[b++];
    free(m);
    free(st->idx);
    st->idx = out;
    st->idx_n = o;
    st->idx_dirty = true;
    return 0;
}

/* ------------------------------------------------------------------ building and catching up */

static int rebuild(shc_store *st)
{
    shc_store_info *v = NULL;
    size_t n = 0;
    int64_t dir = dir_mtime(st);
    int rc = shc_store_list(st, &v, &n);
    if (rc)
        return rc;
    if (n)
        qsort(v, n, sizeof *v, shc__store_newest_first);
    shc_store_list_free(st->idx, st->idx_n);
    shc__cache_drop(&st->lz, true);
    st->nfresh = 0;
    st->idx = v;
    st->idx_n = n;
    st->idx_valid = true;
    st->idx_dirty = true;
    st->idx_dir_ns = dir;
    st->scans++;
    shc_log_debug(st->log, "session store: every session read to index it (%zu sessions)", n);
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(a, b);
}

static bool is_fresh(const shc_store *st, const char *id)
{
    return st->nfresh &&
           bsearch(id, st->fresh, st->nfresh, sizeof *st->fresh, cmp_id) != NULL;
}

/* Merges the next entries of the index file (newest first, after every one parsed before)
 * into idx; an entry read from its file meanwhile is skipped, a repeated id is damage. */
static int merge_parsed(shc_store *st, shc_store_info *v, size_t k)
{
    size_t j = 0;
    for (size_t i = 0; i < k; i++)
        if (!is_fresh(st, v[i].id))
            v[j++] = v[i];
    shc_store_info *out = st->idx_n + j ? malloc((st->idx_n + j) * sizeof *out) : NULL;
    if (st->idx_n + j && !out)
        return SHC_E_NOMEM;
    size_t a = 0, b = 0, o = 0;
    while (a < st->idx_n || b < j)
        out[o++] = b >= j || (a < st->idx_n && shc__store_newest_first(&st->idx[a], &v[b]) < 0)
                       ? st->idx[a++]
                       : v[b++];
    idtab t;
    bool dup = false;
    if (!idtab_build(&t, out, o, &dup)) {
        free(out);
        return SHC_E_NOMEM;
    }
    free(t.slot);
    if (dup) {
        free(out);
        return 1;
    }
    free(st->idx);
    st->idx = out;
    st->idx_n = o;
    return 0;
}

/* Parses at least want more entries of the index file: 1 some were, 0 none are left, or an
 * error.  A damaged file costs one scan (then 1). */
static int parse_more(shc_store *st, size_t want)
{
    if (!st->lz.open)
        return 0;
    shc_store_info *v;
    size_t k;
    int rc = shc__cache_more(&st->lz, &v, &k, want);
    if (rc == 0) {
        rc = merge_parsed(st, v, k);
        free(v);
        if (rc < 0)
            return rc;
    }
    if (rc) {
        shc_log_info(st->log, "session store: the index file is damaged: written again");
        rc = rebuild(st);
        return rc ? rc : 1;
    }
    if (!st->lz.open)
        st->nfresh = 0;
    return 1;
}

/* The whole index file parsed (for what needs every entry: names, pruning, a snapshot). */
static int parse_all(shc_store *st)
{
    int rc = 0;
    while (st->lz.open && (rc = parse_more(st, SIZE_MAX)) > 0)
        ;
    return rc < 0 ? rc : 0;
}

/* How many entries of idx are final: those down to the last one parsed from the file. */
static size_t settled(const shc_store *st)
{
    if (!st->lz.open)
        return st->idx_n;
    if (!st->lz.any)
        return 0;
    shc_store_info key;
    memset(&key, 0, sizeof key);
    key.mtime_ns = st->lz.front_ns;
    memcpy(key.id, st->lz.front_id, sizeof key.id);
    size_t lo = 0;
    for (size_t hi = st->idx_n; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        if (shc__store_newest_first(&st->idx[mid], &key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void fresh_add(shc_store *st, const char *id)
{
    if (st->nfresh == st->fresh_cap) {
        size_t cap = st->fresh_cap ? st->fresh_cap * 2 : 16;
        void *p = realloc(st->fresh, cap * sizeof *st->fresh);
        if (!p)
            return; /* then its stale entry is met as a repeated id: one scan */
        st->fresh = p;
        st->fresh_cap = cap;
    }
    memcpy(st->fresh[st->nfresh++], id, SHC_STORE_ID_LEN + 1);
}

/* The index file's head: its first block, the rest as pages need it. */
static bool load(shc_store *st)
{
    shc_cache_lazy lz;
    shc_cache_hdr h;
    shc_store_info *v;
    size_t n;
    if (shc__cache_load(st, &lz, &h) != 0)
        return false;
    if (shc__cache_more(&lz, &v, &n, SHC_CACHE_BLOCK) != 0) {
        shc__cache_drop(&lz, true);
        return false;
    }
    shc_store_list_free(st->idx, st->idx_n);
    shc__cache_drop(&st->lz, true);
    st->lz = lz;
    st->nfresh = 0;
    st->idx = NULL;
    st->idx_n = 0;
    int rc = merge_parsed(st, v, n);
    free(v);
    if (rc) {
        shc__cache_drop(&st->lz, true);
        st->idx_valid = false;
        return false;
    }
    st->idx_valid = true;
    st->idx_dirty = false;
    st->idx_dir_ns = h.dir_ns;
    st->jino = h.jino;
    st->jpos = h.jpos;
    st->base_ino = h.ino;
    st->base_mtime = h.mtime;
    return true;
}

/* The directory's names against the index: readdir, no stat of the files already known. */
static int reconcile_names(shc_store *st, delta *d)
{
    idtab t;
    if (!idtab_build(&t, st->idx, st->idx_n, NULL))
        return SHC_E_NOMEM;
    unsigned char *seen = calloc(st->idx_n + 1, 1);
    int dfd = dup(st->dirfd);
    DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!seen || !dir) {
        if (dir)
            closedir(dir);
        else if (dfd >= 0)
            close(dfd);
        free(seen);
        free(t.slot);
        return dir ? SHC_E_NOMEM : SHC_E_IO;
    }
    rewinddir(dir);
    struct dirent *e;
    char id[SHC_STORE_ID_LEN + 1];
    while ((e = readdir(dir))) {
        if (strlen(e->d_name) != SHC_STORE_ID_LEN + 6 ||
            strcmp(e->d_name + SHC_STORE_ID_LEN, ".jsonl"))
            continue;
        memcpy(id, e->d_name, SHC_STORE_ID_LEN);
        id[SHC_STORE_ID_LEN] = 0;
        if (!shc_store_id_valid(id))
            continue;
        size_t i = idtab_find(&t, st->idx, id);
        if (i != SIZE_MAX)
            seen[i] = 1;
        else
            add_new(st, id, d);
    }
    closedir(dir);
    for (size_t i = 0; i < st->idx_n; i++)
        if (!seen[i] && st->idx[i].id[0]) {
            info_free(&st->idx[i]);
            st->idx[i].id[0] = 0;
            d->any = d->names = true;
        }
    free(seen);
    free(t.slot);
    return 0;
}

/* The sessions written here and announced in the journal, one fstatat each. */
static int catch_up(shc_store *st, delta *d)
{
    char (*ids)[SHC_STORE_ID_LEN + 1] = NULL;
    size_t nids = 0;
    shc__cache_journal(st, &ids, &nids); /* unreadable: the directory's mtime still tells */
    bool all = st->ntouched > SHC_STORE_TOUCHED;
    if (nids > 1) { /* a session written for long is announced many times: checked once */
        qsort(ids, nids, sizeof *ids, cmp_id);
        size_t u = 1;
        for (size_t k = 1; k < nids; k++)
            if (strcmp(ids[k], ids[u - 1]))
                memcpy(ids[u++], ids[k], sizeof *ids);
        nids = u;
    }
    if (!nids && !st->ntouched) {
        free(ids);
        return 0;
    }
    int rc = all ? parse_all(st) : 0; /* every entry is checked */
    if (rc) {
        free(ids);
        return rc;
    }
    idtab t;
    if (!idtab_build(&t, st->idx, st->idx_n, NULL)) {
        free(ids);
        return SHC_E_NOMEM;
    }
    for (size_t k = 0; k < nids + (all ? 0 : st->ntouched); k++) {
        const char *id = k < nids ? ids[k] : st->touched[k - nids];
        size_t i = idtab_find(&t, st->idx, id);
        if (i == SIZE_MAX) {
            bool dup = false; /* announced twice, or by the journal and by us */
            for (size_t j = 0; j < d->nadd && !dup; j++)
                dup = !strcmp(d->add[j].id, id);
            if (!dup) {
                d->names = true; /* made, or made and removed again */
                if (st->lz.open) /* or further down the index file: that entry is stale */
                    fresh_add(st, id);
                add_new(st, id, d);
            }
        } else if (st->idx[i].id[0] && !st->idx[i].mark) {
            refresh(st, &st->idx[i], d);
        }
    }
    for (size_t i = 0; all && i < st->idx_n; i++)
        if (st->idx[i].id[0] && !st->idx[i].mark)
            refresh(st, &st->idx[i], d);
    st->ntouched = 0;
    free(ids);
    free(t.slot);
    if (st->nfresh > 1)
        qsort(st->fresh, st->nfresh, sizeof *st->fresh, cmp_id);
    return 0;
}

static void save(shc_store *st, bool rotate)
{
    if (st->cdirfd >= 0 && parse_all(st) == 0 && shc__cache_write(st, st->idx, st->idx_n, rotate) == 0)
        st->idx_dirty = false;
}

int shc_store_index(shc_store *st, const shc_store_info **v, size_t *n)
{
    *v = NULL;
    *n = 0;
    int64_t dir = dir_mtime(st);
    uint64_t ino;
    int64_t mt;
    bool have = shc__cache_stat(st, &ino, &mt);
    /* never loaded, or another agent wrote a newer snapshot: (re)load it */
    bool damaged = false;
    if (have && (!st->idx_valid || ino != st->base_ino || mt != st->base_mtime) && !load(st)) {
        damaged = true;
        st->base_ino = ino; /* corrupt: not read again until it changes, written anew below */
        st->base_mtime = mt;
        st->idx_dirty = true;
        shc_log_info(st->log, "session store: the index file is damaged: written again");
    }
    bool scanned = false;
    if (!st->idx_valid) {
        int rc = rebuild(st);
        if (rc)
            return rc;
        scanned = true;
    }
    delta d = {0};
    int rc = catch_up(st, &d);
    /* the directory changed and no announced session explains it: its names are read again */
    bool reread = false;
    if (!rc && dir != st->idx_dir_ns && !d.names && !scanned) {
        unsigned long before = st->scans;
        rc = parse_all(st); /* every name is compared */
        if (!rc && st->scans != before) { /* the file was damaged: the scan has it all */
            for (size_t i = 0; i < d.nadd; i++)
                info_free(&d.add[i]);
            d.nadd = 0;
            d.any = false;
            scanned = true;
        } else if (!rc) {
            rc = reconcile_names(st, &d);
            reread = true;
        }
    }
    if (!rc && d.any)
        rc = apply(st, &d);
    free(d.add);
    if (rc) {
        st->idx_valid = false;
        return rc;
    }
    if (dir != st->idx_dir_ns) {
        st->idx_dir_ns = dir;
        st->idx_dirty = true;
    }
    /* worth keeping for the next agent: a scan, a read of the names, a long journal */
    if (scanned || damaged || (reread && st->idx_dirty) || st->jpos > SHC_CACHE_JOURNAL_MAX)
        save(st, st->jpos > SHC_CACHE_JOURNAL_MAX);
    *v = st->idx;
    *n = settled(st);
    return 0;
}

int shc_store_index_more(shc_store *st)
{
    if (!st->lz.open)
        return 0;
    /* doubling (the merge costs the whole index), but no page parses more than 16,384 */
    size_t n = st->idx_n < SHC_CACHE_BLOCK ? SHC_CACHE_BLOCK : st->idx_n;
    n = n > 64 * SHC_CACHE_BLOCK ? 64 * SHC_CACHE_BLOCK : n;
    int rc = parse_more(st, n);
    return rc < 0 ? rc : 1;
}

int shc_store_index_all(shc_store *st, const shc_store_info **v, size_t *n)
{
    int rc = shc_store_index(st, v, n);
    if (!rc && st->lz.open && (rc = parse_all(st)) == 0)
        rc = shc_store_index(st, v, n);
    return rc;
}

int shc_store_index_verify(shc_store *st, const size_t *pos, size_t k)
{
    delta d = {0};
    for (size_t i = 0; i < k; i++)
        if (pos[i] < st->idx_n && st->idx[pos[i]].id[0])
            refresh(st, &st->idx[pos[i]], &d);
    if (!d.any)
        return 0;
    int rc = apply(st, &d);
    free(d.add);
    if (rc) {
        st->idx_valid = false;
        return rc;
    }
    return 1;
}

/* Before the store is freed: the index file agrees with what this process did. */
void shc__store_index_flush(shc_store *st)
{
    if (st->cdirfd < 0 || (!st->names_changed && !st->idx_dirty))
        return;
    if (!st->idx_valid) {
        uint64_t ino;
        int64_t mt;
        if (!shc__cache_stat(st, &ino, &mt))
            return; /* none yet: the first list makes it */
    }
    const shc_store_info *v;
    size_t n;
    if (shc_store_index(st, &v, &n) == 0 && st->idx_dirty)
        save(st, st->jpos > SHC_CACHE_JOURNAL_MAX / 2);
}

unsigned long shc_store_scans(const shc_store *st)
{
    return st ? st->scans : 0;
}
