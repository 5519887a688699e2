/* The listing index of the session store (store.h, shc_store_index): every session's head,
 * newest first, kept between session/list calls so that a page costs a binary search and 50
 * entries, not a scan of the whole directory.  store_index.c -> store_dir.c. */
#include "acp/store_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shcard.h"

int shc__store_newest_first(const void *a, const void *b)
{
    const shc_store_info *x = a, *y = b;
    if (x->mtime_ns != y->mtime_ns)
        return x->mtime_ns > y->mtime_ns ? -1 : 1;
    return strcmp(x->id, y->id);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int64_t dir_mtime(const shc_store *st)
{
    struct stat sb;
    if (fstat(st->dirfd, &sb) != 0)
        return -1;
    return (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
}

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
    st->idx = v;
    st->idx_n = n;
    st->idx_valid = true;
    st->idx_dir_ns = dir;
    st->idx_built_ms = now_ms();
    st->ntouched = 0;
    st->scans++;
    return 0;
}

/* One session written here since: its entry is taken out and, if the file is still there,
 * read again and put back in its place. */
static int catch_up(shc_store *st, const char *id)
{
    for (size_t i = 0; i < st->idx_n; i++)
        if (!strcmp(st->idx[i].id, id)) {
            free(st->idx[i].cwd);
            free(st->idx[i].title);
            memmove(st->idx + i, st->idx + i + 1, (st->idx_n - i - 1) * sizeof *st->idx);
            st->idx_n--;
            break;
        }
    shc_store_info info;
    memset(&info, 0, sizeof info);
    memcpy(info.id, id, SHC_STORE_ID_LEN + 1);
    if (!shc__store_scan_head(st, &info, true))
        return 0; /* removed */
    shc_store_info *v = realloc(st->idx, (st->idx_n + 1) * sizeof *v);
    if (!v) {
        free(info.cwd);
        free(info.title);
        return SHC_E_NOMEM;
    }
    st->idx = v;
    size_t lo = 0, hi = st->idx_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (shc__store_newest_first(&v[mid], &info) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(v + lo + 1, v + lo, (st->idx_n - lo) * sizeof *v);
    v[lo] = info;
    st->idx_n++;
    return 0;
}

int shc_store_index(shc_store *st, const shc_store_info **v, size_t *n)
{
    *v = NULL;
    *n = 0;
    int64_t dir = dir_mtime(st);
    /* the directory changed without us (another process made or removed a session), we lost
     * track, or another process's writes may have reordered it long enough ago: rescan */
    bool stale = !st->idx_valid || st->ntouched > SHC_STORE_TOUCHED ||
                 now_ms() - st->idx_built_ms > SHC_STORE_INDEX_MAX_AGE_MS ||
                 (dir != st->idx_dir_ns && st->ntouched == 0);
    if (stale) {
        int rc = rebuild(st);
        if (rc)
            return rc;
    } else {
        for (size_t i = 0; i < st->ntouched; i++)
            if (catch_up(st, st->touched[i]) != 0) {
                st->idx_valid = false;
                return SHC_E_NOMEM;
            }
        st->ntouched = 0;
        st->idx_dir_ns = dir; /* the change was (as far as we can tell) ours */
    }
    *v = st->idx;
    *n = st->idx_n;
    return 0;
}

unsigned long shc_store_scans(const shc_store *st)
{
    return st ? st->scans : 0;
}
