/* Test helper: run one command through the executor on a fresh loop and collect everything. */
#ifndef SHC_TEST_PTY_RUN_H
#define SHC_TEST_PTY_RUN_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/loop.h"
#include "exec/output.h"
#include "exec/pty.h"

typedef struct run_result {
    int rc; /* spawn result */
    shc_pty_error err;
    shc_outbuf out; /* display chunks concatenated */
    size_t chunks, max_chunk;
    bool chunk_bad_utf8; /* some chunk was not valid UTF-8 on its own */
    shc_pty_status st;
    bool done;
    char *model; /* owned */
    size_t model_len;
    char *tail; /* owned */
    size_t tail_len;
    bool tail_trunc;
    pid_t pid;
    uint64_t ms; /* wall time spawn to exit callback */
    uint64_t bytes_read;
    int delay_ms;        /* sleep this long after spawn before running the loop */
    int cancel_after_ms; /* > 0: cancel from a timer */
    shc_pty *pty;
} run_result;

static inline bool valid_utf8(const char *s, size_t n)
{
    shc_utf8 u = {{0}, 0};
    shc_outbuf b = {0};
    bool ok = shc_utf8_feed(&u, &b, s, n) == 0 && u.npend == 0 && b.len == n &&
              (n == 0 || memcmp(b.p, s, n) == 0);
    shc_outbuf_free(&b);
    return ok;
}

static inline void rr_output(shc_pty *pty, const char *data, size_t len, void *payload)
{
    (void)pty;
    run_result *r = payload;
    r->chunks++;
    if (len > r->max_chunk)
        r->max_chunk = len;
    if (!valid_utf8(data, len))
        r->chunk_bad_utf8 = true;
    shc_outbuf_append(&r->out, data, len);
}

static inline void rr_exit(shc_pty *pty, const shc_pty_status *st, void *payload)
{
    run_result *r = payload;
    r->st = *st;
    r->done = true;
    r->model = shc_pty_model_text(pty, &r->model_len);
    r->tail = shc_pty_tail(pty, &r->tail_len, &r->tail_trunc);
    r->bytes_read = shc_pty_bytes_read(pty);
    r->pty = NULL;
    shc_pty_free(pty); /* allowed from the exit callback */
}

static inline void rr_cancel(shc_loop *loop, void *payload)
{
    (void)loop;
    run_result *r = payload;
    if (r->pty)
        shc_pty_cancel(r->pty);
}

/* Runs o (callbacks and payload are set here); fills r.  Returns the spawn rc. */
static inline int run_cmd(run_result *r, shc_pty_opts o)
{
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    o.on_output = rr_output;
    o.on_exit = rr_exit;
    o.payload = r;
    uint64_t t0 = shc_loop_now_ms();
    shc_pty *p = NULL;
    r->rc = shc_pty_spawn(&p, ex, &o, &r->err);
    if (r->rc == 0) {
        r->pty = p;
        r->pid = shc_pty_pid(p);
        if (r->delay_ms)
            usleep((useconds_t)r->delay_ms * 1000u);
        if (r->cancel_after_ms)
            shc_loop_timer(loop, (uint64_t)r->cancel_after_ms, rr_cancel, r);
        while (!r->done && shc_loop_run_once(loop, 5000) == 0)
            ;
        r->ms = shc_loop_now_ms() - t0;
    }
    shc_outbuf_append(&r->out, "", 1); /* NUL-terminate for string asserts */
    r->out.len--;
    shc_exec_free(ex);
    shc_loop_free(loop);
    return r->rc;
}

static inline void run_free(run_result *r)
{
    shc_outbuf_free(&r->out);
    free(r->model);
    free(r->tail);
    memset(r, 0, sizeof *r);
}

/* Whether pid is gone (not even a zombie). */
static inline bool pid_gone(pid_t pid)
{
    return kill(pid, 0) != 0 && errno == ESRCH;
}

static inline int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

#endif
