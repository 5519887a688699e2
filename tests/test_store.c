/* The session store on a real directory: ids, permissions, locks, round trips, a torn last line,
 * corrupt and oversized files, planted symlinks and FIFOs, the record and per-session caps,
 * listing and pruning. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "acp/store.h"
#include "acp/store_int.h"
#include "shcard.h"

static const shc_log quiet = {SHC_LOG_ERROR, "test_store"};

typedef struct fx {
    char root[64];
    char dir[160];
    shc_store *st;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    strcpy(f->root, "/tmp/shc-store-XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s/state/shcard/sessions", f->root);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    shc_store_free(f->st);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->root);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

static shc_store *open_store(fx *f, uint64_t max)
{
    char err[256] = "";
    shc_store_free(f->st);
    f->st = NULL;
    int rc = shc_store_open(&f->st, f->dir, max, &quiet, err, sizeof err);
    if (rc)
        fail_msg("shc_store_open: %s", err);
    return f->st;
}

static char *path_of(fx *f, const char *id)
{
    static char p[320];
    snprintf(p, sizeof p, "%s/%s.jsonl", f->dir, id);
    return p;
}

static json_t *meta(const char *id)
{
    return json_pack("{s:s,s:i,s:s,s:s}", "t", "session", "v", 1, "id", id, "cwd", "/tmp");
}

static shc_store_file *create(fx *f, char id[SHC_STORE_ID_LEN + 1])
{
    assert_int_equal(shc_store_new_id(f->st, id), 0);
    json_t *m = meta(id);
    shc_store_file *sf = NULL;
    assert_int_equal(shc_store_create(&sf, f->st, id, m), 0);
    json_decref(m);
    return sf;
}

static void append(shc_store_file *sf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *r = json_vpack_ex(NULL, 0, fmt, ap);
    va_end(ap);
    assert_non_null(r);
    assert_int_equal(shc_store_append(sf, r), 0);
    json_decref(r);
}

/* Reads every record; returns how many, or the error. */
static int read_all(shc_store_file *sf, char *err, size_t errlen)
{
    int n = 0;
    for (;;) {
        json_t *r;
        int rc = shc_store_read(sf, &r, err, errlen);
        if (rc <= 0)
            return rc ? rc : n;
        json_decref(r);
        n++;
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void test_ids(void **state)
{
    fx *f = *state;
    char a[SHC_STORE_ID_LEN + 1], b[SHC_STORE_ID_LEN + 1];
    assert_int_equal(shc_store_new_id(NULL, a), 0);
    assert_int_equal(shc_store_new_id(NULL, b), 0);
    assert_true(shc_store_id_valid(a));
    assert_string_not_equal(a, b);
    assert_int_equal(strlen(a), 37);
    /* SipHash-2-4, the reference vector for 8 bytes 00..07 under the key 00..0f */
    unsigned char key[16], in[8];
    for (int i = 0; i < 16; i++)
        key[i] = (unsigned char)i;
    for (int i = 0; i < 8; i++)
        in[i] = (unsigned char)i;
    assert_true(shc__siphash24(key, in, 8) == 0x93f5f5799a932462ULL);
    assert_true(shc__siphash24(key, in, 0) == 0x726fdb47dd0e0e31ULL);
    /* a store's ids carry its tag: it knows them, and no other id */
    open_store(f, 0);
    char mine[SHC_STORE_ID_LEN + 1];
    assert_int_equal(shc_store_new_id(f->st, mine), 0);
    assert_true(shc_store_id_valid(mine));
    assert_true(shc_store_id_ours(f->st, mine));
    assert_false(shc_store_id_ours(f->st, a));
    mine[10] = mine[10] == '0' ? '1' : '0'; /* one digit of the random half changed */
    assert_false(shc_store_id_ours(f->st, mine));
    assert_false(shc_store_id_ours(f->st, "../../etc/passwd"));
    /* the key is the store's, kept across opens: 0600, 16 bytes */
    assert_int_equal(shc_store_new_id(f->st, mine), 0);
    open_store(f, 0);
    assert_true(shc_store_id_ours(f->st, mine));
    char kp[320];
    snprintf(kp, sizeof kp, "%s/.key", f->dir);
    struct stat sb;
    assert_int_equal(stat(kp, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(sb.st_size, 16);
    const char *bad[] = {NULL,
                         "",
                         "sess_",
                         "../../etc/passwd",
                         "sess_0123456789abcdef0123456789abcdeF",
                         "sess_0123456789abcdef0123456789abcde",
                         "sess_0123456789abcdef0123456789abcdef0",
                         "sess_0123456789abcdef0123456789abcd/.",
                         "sess_../../../../../../../../../tmp/x",
                         "SESS_0123456789abcdef0123456789abcdef",
                         "sess_0123456789abcdef0123456789abcde\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(shc_store_id_valid(bad[i]));
    assert_true(shc_store_id_valid("sess_0123456789abcdef0123456789abcdef"));
}

static void test_permissions(void **state)
{
    fx *f = *state;
    mode_t old = umask(0);
    open_store(f, 0);
    struct stat sb;
    assert_int_equal(stat(f->dir, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    char id[SHC_STORE_ID_LEN + 1];
    shc_store_file *sf = create(f, id);
    assert_int_equal(stat(path_of(f, id), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    /* a directory left open to others is tightened */
    assert_int_equal(chmod(f->dir, 0755), 0);
    shc_store_close(sf);
    open_store(f, 0);
    assert_int_equal(stat(f->dir, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    umask(old);
    /* the store directory itself may not be a symlink */
    char link[200], err[256];
    snprintf(link, sizeof link, "%s/link", f->root);
    assert_int_equal(symlink(f->dir, link), 0);
    shc_store *other = NULL;
    assert_int_not_equal(shc_store_open(&other, link, 0, &quiet, err, sizeof err), 0);
    assert_null(other);
    assert_int_not_equal(shc_store_open(&other, "relative/dir", 0, &quiet, err, sizeof err), 0);
}

static void test_round_trip_and_lock(void **state)
{
    fx *f = *state;
    open_store(f, 0);
    char id[SHC_STORE_ID_LEN + 1];
    shc_store_file *sf = create(f, id);
    append(sf, "{s:s,s:s}", "t", "title", "title", "hello");
    append(sf, "{s:s,s:s%}", "t", "out", "data", "a\0b\xc3\xa9", (size_t)5);
    /* the file is locked: no second opener, not even this process's */
    shc_store_file *again = NULL;
    assert_int_equal(shc_store_open_session(&again, f->st, id), SHC_STORE_EBUSY);
    assert_int_equal(shc_store_delete(f->st, id), SHC_STORE_EBUSY);
    shc_store_close(sf);
    assert_int_equal(shc_store_open_session(&again, f->st, id), 0);
    json_t *r;
    char err[256];
    assert_int_equal(shc_store_read(again, &r, err, sizeof err), 1);
    assert_string_equal(json_string_value(json_object_get(r, "id")), id);
    json_decref(r);
    assert_int_equal(shc_store_read(again, &r, err, sizeof err), 1);
    json_decref(r);
    assert_int_equal(shc_store_read(again, &r, err, sizeof err), 1);
    json_t *d = json_object_get(r, "data");
    assert_int_equal(json_string_length(d), 5);
    assert_memory_equal(json_string_value(d), "a\0b\xc3\xa9", 5);
    json_decref(r);
    assert_int_equal(shc_store_read(again, &r, err, sizeof err), 0);
    /* after reading, the same handle appends */
    append(again, "{s:s}", "t", "turn");
    shc_store_close(again);
    assert_int_equal(shc_store_open_session(&again, f->st, id), 0);
    assert_int_equal(read_all(again, err, sizeof err), 4);
    shc_store_close(again);
    assert_int_equal(shc_store_delete(f->st, id), 0);
    assert_int_equal(shc_store_open_session(&again, f->st, id), SHC_STORE_ENOENT);
    assert_int_equal(shc_store_delete(f->st, id), SHC_STORE_ENOENT);
}

static void test_torn_last_line(void **state)
{
    fx *f = *state;
    open_store(f, 0);
    char id[SHC_STORE_ID_LEN + 1];
    shc_store_file *sf = create(f, id);
    append(sf, "{s:s}", "t", "turn");
    shc_store_close(sf);
    int fd = open(path_of(f, id), O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "{\"t\":\"text\",\"te", 15), 15); /* a crash mid-write */
    close(fd);
    char err[256];
    assert_int_equal(shc_store_open_session(&sf, f->st, id), 0);
    assert_int_equal(read_all(sf, err, sizeof err), 2); /* the torn line is skipped */
    append(sf, "{s:s}", "t", "after");
    shc_store_close(sf);
    assert_int_equal(shc_store_open_session(&sf, f->st, id), 0);
    assert_int_equal(read_all(sf, err, sizeof err), 3); /* and cut off: appends stay clean */
    shc_store_close(sf);
}

static void test_corrupt_and_big(void **state)
{
    fx *f = *state;
    open_store(f, 0);
    char id[SHC_STORE_ID_LEN + 1], err[256];
    shc_store_file *sf = create(f, id);
    shc_store_close(sf);
    FILE *fp = fopen(path_of(f, id), "a");
    fputs("{\"t\":\"turn\"}\n[1,2]\n{\"t\":\"turn\"}\n", fp);
    fclose(fp);
    assert_int_equal(shc_store_open_session(&sf, f->st, id), 0);
    assert_int_equal(read_all(sf, err, sizeof err), SHC_STORE_ECORRUPT);
    assert_non_null(strstr(err, "line 3"));
    shc_store_close(sf);
    /* a line longer than the record limit, without reading it all into memory */
    fp = fopen(path_of(f, id), "w");
    fputs("{\"t\":\"x\",\"d\":\"", fp);
    for (size_t i = 0; i < SHC_STORE_MAX_RECORD / 4096 + 2; i++) {
        char blk[4096];
        memset(blk, 'a', sizeof blk);
        fwrite(blk, 1, sizeof blk, fp);
    }
    fclose(fp);
    assert_int_equal(shc_store_open_session(&sf, f->st, id), 0);
    assert_int_equal(read_all(sf, err, sizeof err), SHC_STORE_ECORRUPT);
    assert_non_null(strstr(err, "longer than"));
    shc_store_close(sf);
    /* a file over the load limit is refused before reading (sparse: costs nothing) */
    assert_int_equal(truncate(path_of(f, id), (off_t)SHC_STORE_LOAD_MAX + 1), 0);
    assert_int_equal(shc_store_open_session(&sf, f->st, id), SHC_STORE_EBIG);
}

static void test_planted_files(void **state)
{
    fx *f = *state;
    open_store(f, 0);
    char victim[200];
    snprintf(victim, sizeof victim, "%s/victim", f->root);
    write_file(victim, "keep\n");
    const char *lid = "sess_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const char *fid = "sess_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    assert_int_equal(symlink(victim, path_of(f, lid)), 0);
    assert_int_equal(mkfifo(path_of(f, fid), 0600), 0);
    shc_store_file *sf = NULL;
    assert_int_equal(shc_store_open_session(&sf, f->st, lid), SHC_STORE_ENOENT);
    assert_int_equal(shc_store_open_session(&sf, f->st, fid), SHC_STORE_ENOENT); /* no block */
    assert_int_equal(shc_store_delete(f->st, lid), SHC_STORE_ENOENT);
    json_t *m = meta(lid);
    assert_int_not_equal(shc_store_create(&sf, f->st, lid, m), 0); /* never through the link */
    json_decref(m);
    FILE *fp = fopen(victim, "r");
    char buf[16] = "";
    assert_non_null(fgets(buf, sizeof buf, fp));
    fclose(fp);
    assert_string_equal(buf, "keep\n");
    shc_store_info *v;
    size_t n;
    assert_int_equal(shc_store_list(f->st, &v, &n), 0);
    assert_int_equal(n, 0);
    shc_store_list_free(v, n);
    /* ids that are paths never reach the file system */
    assert_int_equal(shc_store_open_session(&sf, f->st, "../../victim"), SHC_STORE_ENOENT);
    assert_int_equal(shc_store_delete(f->st, "../../victim"), SHC_STORE_ENOENT);
}

static void test_caps(void **state)
{
    fx *f = *state;
    open_store(f, 2u << 20); /* 2 MiB: the per-session cap too */
    char id[SHC_STORE_ID_LEN + 1], err[256];
    shc_store_file *sf = create(f, id);
    char *big = malloc(SHC_STORE_MAX_RECORD + 10);
    memset(big, 'x', SHC_STORE_MAX_RECORD + 9);
    big[SHC_STORE_MAX_RECORD + 9] = 0;
    json_t *r = json_pack("{s:s,s:s}", "t", "prompt", "text", big);
    assert_int_equal(shc_store_append(sf, r), 1); /* replaced */
    json_decref(r);
    free(big);
    char chunk[100000];
    memset(chunk, 'y', sizeof chunk - 1);
    chunk[sizeof chunk - 1] = 0;
    int dropped = 0;
    for (int i = 0; i < 40; i++) {
        json_t *o = json_pack("{s:s,s:s}", "t", "out", "data", chunk);
        dropped += shc_store_append(sf, o) == 1;
        json_decref(o);
    }
    assert_true(dropped > 0);
    assert_true(shc_store_capped(sf));
    assert_true(shc_store_file_size(sf) <= (2u << 20) + 100);
    shc_store_close(sf);
    assert_int_equal(shc_store_open_session(&sf, f->st, id), 0);
    json_t *rec;
    const char *last = NULL;
    int n = 0;
    char what[32] = "";
    while (shc_store_read(sf, &rec, err, sizeof err) == 1) {
        const char *t = json_string_value(json_object_get(rec, "t"));
        if (n == 1)
            snprintf(what, sizeof what, "%s/%s", t,
                     json_string_value(json_object_get(rec, "what")));
        last = !strcmp(t, "capped") ? "capped" : "other";
        json_decref(rec);
        n++;
    }
    assert_string_equal(what, "skipped/prompt");
    assert_string_equal(last, "capped");
    shc_store_close(sf);
}

static void set_age(fx *f, const char *id, time_t age)
{
    struct timespec ts[2] = {{time(NULL) - age, 0}, {time(NULL) - age, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path_of(f, id), ts, 0), 0);
}

static void test_list_and_prune(void **state)
{
    fx *f = *state;
    open_store(f, 1u << 20);
    char ids[4][SHC_STORE_ID_LEN + 1];
    char pad[200000];
    memset(pad, 'p', sizeof pad - 1);
    pad[sizeof pad - 1] = 0;
    shc_store_file *open_one = NULL;
    for (int i = 0; i < 4; i++) {
        shc_store_file *sf = create(f, ids[i]);
        append(sf, "{s:s,s:s}", "t", "title", "title", i == 0 ? "first" : "later");
        append(sf, "{s:s,s:[]}", "t", "prompt", "blocks");
        append(sf, "{s:s,s:s}", "t", "out", "data", pad);
        if (i == 0)
            open_one = sf; /* the oldest, but open: never pruned */
        else
            shc_store_close(sf);
    }
    for (int i = 0; i < 4; i++)
        set_age(f, ids[i], 400 - i * 100); /* ids[0] oldest */
    write_file(path_of(f, "sess_cccccccccccccccccccccccccccccccc"), "not a session\n");
    char other[256];
    snprintf(other, sizeof other, "%s/notes.txt", f->dir);
    write_file(other, "ignored\n");
    shc_store_info *v;
    size_t n;
    assert_int_equal(shc_store_list(f->st, &v, &n), 0);
    assert_int_equal(n, 5);
    int corrupt = 0, titled = 0;
    for (size_t i = 0; i < n; i++) {
        corrupt += v[i].corrupt;
        titled += v[i].title && v[i].has_prompt && !strcmp(v[i].cwd, "/tmp");
        if (!strcmp(v[i].id, ids[0]))
            assert_string_equal(v[i].title, "first");
    }
    assert_int_equal(corrupt, 1);
    assert_int_equal(titled, 4);
    shc_store_list_free(v, n);
    /* 4 x 200 KB + a line; cap 1 MiB: nothing to do yet */
    assert_int_equal(shc_store_prune(f->st), 0);
    shc_store_file *sf = NULL;
    assert_int_equal(shc_store_open_session(&sf, f->st, ids[3]), 0);
    for (int i = 0; i < 2; i++)
        append(sf, "{s:s,s:s}", "t", "out", "data", pad);
    shc_store_close(sf);
    /* now over: the oldest closed ones go first, the open one stays */
    size_t gone = shc_store_prune(f->st);
    assert_true(gone >= 1);
    struct stat sb;
    assert_int_equal(stat(path_of(f, ids[0]), &sb), 0);
    assert_int_not_equal(stat(path_of(f, ids[1]), &sb), 0);
    assert_int_equal(stat(path_of(f, ids[3]), &sb), 0);
    assert_int_equal(stat(other, &sb), 0); /* not a session file: not the store's business */
    shc_store_close(open_one);
}

/* Files a hostile process planted in the store affect only themselves: a hard link to a file
 * elsewhere is never opened (nor written through, as .gone either), a FIFO at .gone.new never
 * blocks, a huge sparse file is what a prune removes first, and a record of very many values is
 * refused before it is parsed (and never written). */
static void test_hostile_files(void **state)
{
    fx *f = *state;
    open_store(f, 1u << 20);
    char outside[200], outside2[200], p[400];
    snprintf(outside, sizeof outside, "%s/user.jsonl", f->root);
    snprintf(outside2, sizeof outside2, "%s/ids.txt", f->root);
    const char *hid = "sess_dddddddddddddddddddddddddddddddd";
    write_file(outside, "{\"t\":\"session\",\"v\":1,\"id\":\"sess_dddddddddddddddddddddddddddddddd\","
                        "\"cwd\":\"/tmp\"}\nlast line, no newline");
    write_file(outside2, "mine\n");
    assert_int_equal(link(outside, path_of(f, hid)), 0);
    snprintf(p, sizeof p, "%s/.gone", f->dir);
    assert_int_equal(link(outside2, p), 0);
    shc_store_file *sf = NULL;
    assert_int_equal(shc_store_open_session(&sf, f->st, hid), SHC_STORE_ENOENT);
    char id[SHC_STORE_ID_LEN + 1], err[256];
    sf = create(f, id);
    shc_store_close(sf);
    assert_int_equal(shc_store_delete(f->st, id), 0);
    assert_true(shc_store_id_gone(f->st, id));
    struct stat sb;
    assert_int_equal(stat(outside, &sb), 0);
    assert_int_equal(sb.st_size, 101); /* untouched */
    assert_int_equal(stat(outside2, &sb), 0);
    assert_int_equal(sb.st_size, 5);
    /* .gone past its bound and a FIFO at .gone.new: the next delete neither blocks nor fails */
    unlink(p);
    FILE *fp = fopen(p, "w");
    for (size_t i = 0; i < (1u << 20) / (SHC_STORE_ID_LEN + 1) + 8; i++)
        fprintf(fp, "%s\n", hid);
    fclose(fp);
    snprintf(p, sizeof p, "%s/.gone.new", f->dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    sf = create(f, id);
    shc_store_close(sf);
    alarm(10);
    assert_int_equal(shc_store_delete(f->st, id), 0);
    alarm(0);
    assert_true(shc_store_id_gone(f->st, id));
    /* a sparse file far over the load limit, newer than the sessions: pruned first, alone */
    char ids[3][SHC_STORE_ID_LEN + 1];
    for (int i = 0; i < 3; i++) {
        sf = create(f, ids[i]);
        append(sf, "{s:s,s:[]}", "t", "prompt", "blocks");
        shc_store_close(sf);
        set_age(f, ids[i], 300 - i * 100);
    }
    const char *big = "sess_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
    write_file(path_of(f, big), "");
    assert_int_equal(truncate(path_of(f, big), (off_t)10 << 30), 0);
    assert_int_equal(shc_store_prune(f->st), 1);
    assert_int_not_equal(stat(path_of(f, big), &sb), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(stat(path_of(f, ids[i]), &sb), 0);
    /* a record of very many small values: refused, not parsed */
    fp = fopen(path_of(f, ids[0]), "a");
    fputs("{\"t\":\"text\",\"x\":[0", fp);
    for (size_t i = 0; i < SHC_STORE_MAX_VALUES; i++)
        fputs(",0", fp);
    fputs("]}\n", fp);
    fclose(fp);
    assert_int_equal(shc_store_open_session(&sf, f->st, ids[0]), 0);
    assert_int_equal(read_all(sf, err, sizeof err), SHC_STORE_ECORRUPT);
    assert_non_null(strstr(err, "too many values"));
    /* and such a record is never written: it is replaced, and the file still reads back */
    json_t *arr = json_array();
    for (size_t i = 0; i < SHC_STORE_MAX_VALUES + 1; i++)
        json_array_append_new(arr, json_integer(0));
    json_t *rec = json_pack("{s:s,s:o}", "t", "text", "x", arr);
    shc_store_file *w = create(f, id);
    assert_int_equal(shc_store_append(w, rec), 1);
    json_decref(rec);
    shc_store_close(w);
    shc_store_close(sf);
    assert_int_equal(shc_store_open_session(&sf, f->st, id), 0);
    assert_int_equal(read_all(sf, err, sizeof err), 2);
    shc_store_close(sf);
}

static const char *env_xdg(const char *n)
{
    return !strcmp(n, "XDG_STATE_HOME") ? "/x/state" : !strcmp(n, "HOME") ? "/home/u" : NULL;
}
static const char *env_relative(const char *n)
{
    return !strcmp(n, "XDG_STATE_HOME") ? "rel" : !strcmp(n, "HOME") ? "/home/u" : NULL;
}
static const char *env_none(const char *n)
{
    (void)n;
    return NULL;
}

/* Deleted and pruned ids are remembered as gone (bounded), and only ids this store made. */
static void test_gone(void **state)
{
    fx *f = *state;
    open_store(f, 0);
    char id[SHC_STORE_ID_LEN + 1], empty[SHC_STORE_ID_LEN + 1];
    shc_store_file *sf = create(f, id);
    shc_store_close(sf);
    assert_false(shc_store_id_gone(f->st, id));
    assert_int_equal(shc_store_delete(f->st, id), 0);
    assert_true(shc_store_id_gone(f->st, id));
    /* a session that never recorded anything, deleted: gone too */
    assert_int_equal(shc_store_new_id(f->st, empty), 0);
    assert_int_equal(shc_store_delete(f->st, empty), SHC_STORE_ENOENT);
    assert_true(shc_store_id_gone(f->st, empty));
    /* an id that is not ours never gets in */
    const char *junk = "sess_0123456789abcdef0123456789abcdef";
    assert_int_equal(shc_store_delete(f->st, junk), SHC_STORE_ENOENT);
    assert_false(shc_store_id_gone(f->st, junk));
    /* bounded: after many more, the file stays near its cap, keeping the newest */
    char last[SHC_STORE_ID_LEN + 1];
    for (int i = 0; i < 40000; i++) {
        assert_int_equal(shc_store_new_id(f->st, last), 0);
        shc_store_delete(f->st, last);
    }
    char gp[320];
    snprintf(gp, sizeof gp, "%s/.gone", f->dir);
    struct stat sb;
    assert_int_equal(stat(gp, &sb), 0);
    assert_true(sb.st_size <= (1 << 20) + 64);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_true(shc_store_id_gone(f->st, last));
    assert_false(shc_store_id_gone(f->st, id)); /* the oldest made room */
}

static void test_default_dir(void **state)
{
    (void)state;
    char out[256];
    assert_int_equal(shc_store_default_dir(out, sizeof out, env_xdg), 0);
    assert_string_equal(out, "/x/state/shcard/sessions");
    assert_int_equal(shc_store_default_dir(out, sizeof out, env_relative), 0);
    assert_string_equal(out, "/home/u/.local/state/shcard/sessions");
    assert_int_equal(shc_store_default_dir(out, sizeof out, env_none), SHC_E_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_permissions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_and_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_last_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_and_big, setup, teardown),
        cmocka_unit_test_setup_teardown(test_planted_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_caps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_and_prune, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_files, setup, teardown),
        cmocka_unit_test(test_default_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
