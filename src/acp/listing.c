/* session/list: the sessions in the store, newest first, a page at a time, with a cursor a
 * client cannot turn into anything but a position in that order; and the ISO 8601 times the
 * session methods send. */
#include "acp/bridge_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void invalid(br_bridge *br, json_t *id, const char *msg)
{
    shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, msg, NULL);
}

void shc__iso_time(char *out, size_t cap, int64_t ns)
{
    time_t sec = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    size_t k = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + k, cap - k, ".%03dZ", (int)(ns / 1000000 % 1000));
}

int64_t shc__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The cursor names the last session of a page: "<mtime ns>:<id>".  Anything else is refused. */
static bool parse_cursor(const char *c, int64_t *ns, char id[SHC_STORE_ID_LEN + 1])
{
    const char *colon = c ? strchr(c, ':') : NULL;
    if (!colon || colon == c || colon - c > 19)
        return false;
    int64_t v = 0;
    for (const char *p = c; p < colon; p++) {
        if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10) /* never overflows */
            return false;
        v = v * 10 + (*p - '0');
    }
    if (!shc_store_id_valid(colon + 1))
        return false;
    *ns = v;
    memcpy(id, colon + 1, SHC_STORE_ID_LEN + 1);
    return true;
}

void shc__session_list(br_bridge *br, json_t *id, json_t *params)
{
    json_t *jcwd = json_object_get(params, "cwd"), *jcur = json_object_get(params, "cursor");
    const char *cwd = json_string_value(jcwd), *cursor = json_string_value(jcur);
    if ((jcwd && !json_is_null(jcwd) && (!cwd || cwd[0] != '/')) ||
        (jcur && !json_is_null(jcur) && !cursor)) {
        invalid(br, id, "session/list: cwd must be an absolute path and cursor a string");
        return;
    }
    int64_t after_ns = 0;
    char after_id[SHC_STORE_ID_LEN + 1] = "";
    if (cursor && !parse_cursor(cursor, &after_ns, after_id)) {
        invalid(br, id, "session/list: invalid cursor");
        return;
    }
    const shc_store_info *v = NULL;
    size_t n = 0, i = 0, shown = 0, pos[BR_LIST_PAGE];
    bool more = false;
    /* the page's entries are checked against their files; one that changed moves (a newer
     * time) and the page is made again, a few times at most (a session written meanwhile) */
    for (int attempt = 0;; attempt++) {
        if (br->store && shc_store_index(br->store, &v, &n) != 0) {
            shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "the session store cannot be read",
                          NULL);
            return;
        }
        i = 0;
        if (cursor) { /* the first entry after the cursor: a binary search, not a walk */
            shc_store_info key;
            memset(&key, 0, sizeof key);
            key.mtime_ns = after_ns;
            memcpy(key.id, after_id, sizeof key.id);
            for (size_t hi = n; i < hi;) {
                size_t mid = i + (hi - i) / 2;
                if (shc__store_newest_first(&v[mid], &key) <= 0)
                    i = mid + 1;
                else
                    hi = mid;
            }
        }
        shown = 0;
        more = false;
        for (; i < n; i++) {
            const shc_store_info *e = &v[i];
            if (e->corrupt || !e->has_prompt || (cwd && strcmp(cwd, e->cwd)))
                continue;
            if (shown == BR_LIST_PAGE) {
                more = true;
                break;
            }
            pos[shown++] = i;
        }
        if (!more && br->store) { /* the index ended before the page did: more of it is read */
            int m = shc_store_index_more(br->store);
            if (m < 0) {
                shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR,
                              "the session store cannot be read", NULL);
                return;
            }
            if (m > 0) {
                attempt--;
                continue;
            }
        }
        int rc = attempt < 4 && br->store ? shc_store_index_verify(br->store, pos, shown) : 0;
        if (rc < 0) {
            shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "the session store cannot be read",
                          NULL);
            return;
        }
        if (rc == 0)
            break;
    }
    json_t *out = json_array();
    for (size_t k = 0; k < shown; k++) {
        const shc_store_info *e = &v[pos[k]];
        char when[40];
        shc__iso_time(when, sizeof when, e->mtime_ns);
        json_t *it = json_pack("{s:s,s:s,s:s}", "sessionId", e->id, "cwd", e->cwd, "updatedAt",
                               when);
        if (it && e->title)
            json_object_set_new(it, "title", json_string(e->title));
        json_array_append_new(out, it);
    }
    const shc_store_info *last = shown ? &v[pos[shown - 1]] : NULL;
    json_t *res = json_pack("{s:o}", "sessions", out);
    if (more && last) {
        char next[64];
        snprintf(next, sizeof next, "%lld:%s", (long long)last->mtime_ns, last->id);
        json_object_set_new(res, "nextCursor", json_string(next));
    }
    shc_rpc_respond(br->rpc, id, res);
}

