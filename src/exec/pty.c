#define _GNU_SOURCE
#include "exec/pty.h"
#include "exec/pty_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "exec/output.h"
#include "shcard.h"
#include "base/signame.h"
#include "exec/sweep.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

enum {
    READ_SIZE = 65536,
    DRAIN_GRACE_MS = 150,   /* after exit, wait this long for EOF before hanging up */
    POLL_FALLBACK_MS = 250, /* without pidfd: SIGCHLD through the loop, and this safety poll */
};

struct shc_exec {
    shc_loop *loop; /* borrowed */
    bool sigchld;   /* SIGCHLD registered on the loop (the fallback without pidfd) */
    shc_pty *live;  /* commands whose leader is not reaped yet (not owned) */
    uint64_t seq;
};

struct shc_pty {
    shc_exec *ex; /* borrowed; NULL once detached by shc_exec_free */
    shc_loop *loop;
    shc_pty *next, *prev;
    bool linked;
    pid_t pid;
    int master, pidfd;
    int w_master, w_pidfd;
    int t_timeout, t_kill, t_drain, t_flush, t_poll;
    bool exited, eof, done, laddering, reaped;
    shc_pty_status st;
    uint64_t t0, bytes_read;
    char token[80]; /* SHCARD_CMD_ID=... */
    shc_utf8 u8;
    shc_outbuf disp; /* sanitized display bytes not yet delivered */
    shc_model model;
    shc_ring tail;
    unsigned char *rbuf; /* owned, READ_SIZE */
    size_t chunk_bytes;
    uint32_t chunk_ms;
    size_t display_limit;
    uint64_t shown, hidden, events; /* display bytes delivered / withheld, chunks delivered */
    uint64_t kill_grace_ms;
    shc_pty_output_fn on_output;
    shc_pty_exit_fn on_exit;
    void *payload;
};

int shc_pty_status_code(const shc_pty_status *st)
{
    if (st->timed_out)
        return 124;
    if (st->signo)
        return 128 + st->signo;
    return st->exit_code;
}

/* ---------------------------------------------------------------- exec context */

shc_exec *shc_exec_new(shc_loop *loop)
{
    if (!loop)
        return NULL;
    shc_exec *ex = calloc(1, sizeof *ex);
    if (!ex)
        return NULL;
    ex->loop = loop;
    /* Escaped processes (setsid, nohup) come back to us when their parent dies. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    return ex;
}

static void unlink_pty(shc_pty *p)
{
    if (!p->linked || !p->ex)
        return;
    if (p->prev)
        p->prev->next = p->next;
    else
        p->ex->live = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->next = p->prev = NULL;
    p->linked = false;
}

static void sweep(shc_pty *p)
{
    pid_t keep[64];
    size_t n = 0;
    for (shc_pty *q = p->ex ? p->ex->live : NULL; q && n < 64; q = q->next)
        if (q != p)
            keep[n++] = q->pid;
    keep[n < 64 ? n++ : 63] = p->pid; /* our own leader is reaped by reap_leader */
    shc__sweep(p->pid, p->token, keep, n);
}

/* Stops watching and timing; closes fds.  The leader must be reaped first. */
static void teardown(shc_pty *p)
{
    int *timers[] = {&p->t_timeout, &p->t_kill, &p->t_drain, &p->t_flush, &p->t_poll};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++)
        if (*timers[i] > 0) {
            shc_loop_cancel_timer(p->loop, *timers[i]);
            *timers[i] = 0;
        }
    if (p->w_master > 0)
        shc_loop_unwatch(p->loop, p->w_master);
    if (p->w_pidfd > 0)
        shc_loop_unwatch(p->loop, p->w_pidfd);
    p->w_master = p->w_pidfd = 0;
    if (p->master >= 0)
        close(p->master);
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->master = p->pidfd = -1;
}

static void reap_leader(shc_pty *p)
{
    if (p->reaped)
        return;
    while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    p->reaped = true;
}

/* Kill everything, reap, sweep, with no callback: for free and exec_free. */
static void kill_now(shc_pty *p)
{
    if (!p->reaped) {
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
        sweep(p);
        reap_leader(p);
    }
    unlink_pty(p);
    teardown(p);
}

static void on_sigchld_detached(shc_loop *loop, int signo, void *payload)
{
    (void)loop;
    (void)signo;
    (void)payload;
}

void shc_exec_free(shc_exec *ex)
{
    if (!ex)
        return;
    if (ex->sigchld) /* the loop has no unregister: leave it a handler that touches nothing */
        shc_loop_signal(ex->loop, SIGCHLD, on_sigchld_detached, NULL);
    while (ex->live) {
        shc_pty *p = ex->live;
        kill_now(p);
        p->done = true;
        p->ex = NULL;
    }
    free(ex);
}

/* ---------------------------------------------------------------- output */

static void deliver(shc_pty *p, const char *data, size_t n)
{
    if (p->shown + n > p->display_limit) {
        p->hidden += n; /* past the display cap: counted, not shown */
        return;
    }
    p->shown += n;
    p->events++;
    if (p->on_output)
        p->on_output(p, data, n, p->payload);
}

static void flush_display(shc_pty *p, bool all)
{
    size_t off = 0;
    while (p->disp.len - off >= p->chunk_bytes || (all && off < p->disp.len)) {
        size_t take = p->disp.len - off;
        if (take > p->chunk_bytes)
            take = shc_utf8_boundary(p->disp.p + off, p->chunk_bytes);
        if (!take)
            take = p->disp.len - off < p->chunk_bytes ? p->disp.len - off : p->chunk_bytes;
        deliver(p, p->disp.p + off, take);
        off += take;
    }
    shc_outbuf_consume(&p->disp, off);
}

static void on_flush_timer(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_pty *p = payload;
    p->t_flush = 0;
    flush_display(p, true);
}

/* Raw bytes in: sanitize once, then feed display, model text and tail from the same text. */
static void take_bytes(shc_pty *p, const unsigned char *b, size_t n, bool final)
{
    size_t before = p->disp.len;
    int rc = final ? shc_utf8_finish(&p->u8, &p->disp) : shc_utf8_feed(&p->u8, &p->disp, b, n);
    if (rc) {
        fprintf(stderr, "shcard: out of memory buffering output (%zu bytes dropped)\n", n);
        return;
    }
    size_t flen = p->disp.len - before;
    if (flen) {
        const char *fresh = p->disp.p + before;
        if (shc_model_feed(&p->model, fresh, flen) != 0)
            fprintf(stderr, "shcard: out of memory in model text\n");
        shc_ring_push(&p->tail, fresh, flen);
    }
    if (p->disp.len >= p->chunk_bytes)
        flush_display(p, false);
    if (p->disp.len && !p->t_flush && !final)
        p->t_flush =
            shc_loop_timer(p->loop, p->events >= 10000 ? 500 : p->chunk_ms, on_flush_timer, p);
}

/* ---------------------------------------------------------------- completion */

static void finish(shc_pty *p)
{
    if (p->done || !p->exited || !p->eof)
        return;
    p->done = true;
    take_bytes(p, NULL, 0, true);
    if (p->t_flush > 0) {
        shc_loop_cancel_timer(p->loop, p->t_flush);
        p->t_flush = 0;
    }
    flush_display(p, true);
    if (p->hidden && p->on_output) {
        char note[96];
        int n = snprintf(note, sizeof note, "\r\n[shcard: %llu more bytes not shown]\r\n",
                         (unsigned long long)p->hidden);
        p->on_output(p, note, (size_t)n, p->payload);
    }
    /* The leader is still a zombie, so its pid (= pgid = sid) cannot be reused yet. */
    kill(-p->pid, SIGKILL);
    sweep(p);
    reap_leader(p);
    unlink_pty(p);
    teardown(p);
    p->st.duration_ms = shc_loop_now_ms() - p->t0;
    p->st.signal = p->st.signo ? shc_signal_name(p->st.signo) : NULL;
    if (p->on_exit)
        p->on_exit(p, &p->st, p->payload); /* may free p: nothing after this */
}

static void set_eof(shc_pty *p)
{
    if (p->eof)
        return;
    p->eof = true;
    if (p->w_master > 0)
        shc_loop_unwatch(p->loop, p->w_master);
    p->w_master = 0;
    if (p->t_drain > 0) {
        shc_loop_cancel_timer(p->loop, p->t_drain);
        p->t_drain = 0;
    }
}

static void on_master(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)events;
    shc_pty *p = payload;
    for (int i = 0; i < 16; i++) {
        ssize_t n = read(fd, p->rbuf, READ_SIZE);
        if (n > 0) {
            p->bytes_read += (uint64_t)n;
            take_bytes(p, p->rbuf, (size_t)n, false);
            if (n < READ_SIZE)
                return; /* drained for now: the next poll says when there is more */
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        set_eof(p); /* 0, EIO (Linux: the slave side is gone) or another error */
        finish(p);
        return;
    }
}

static void on_drain_timer(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_pty *p = payload;
    p->t_drain = 0;
    if (p->eof)
        return;
    /* Stragglers hold the slave open: take what is buffered, then hang up. */
    for (;;) {
        ssize_t n = read(p->master, p->rbuf, READ_SIZE);
        if (n <= 0)
            break;
        p->bytes_read += (uint64_t)n;
        take_bytes(p, p->rbuf, (size_t)n, false);
    }
    set_eof(p);
    close(p->master);
    p->master = -1;
    finish(p);
}

static void record_exit(shc_pty *p, const siginfo_t *si)
{
    p->exited = true;
    if (si->si_code == CLD_EXITED) {
        p->st.exit_code = si->si_status;
        p->st.signo = 0;
    } else {
        p->st.exit_code = -1;
        p->st.signo = si->si_status;
    }
    if (p->w_pidfd > 0)
        shc_loop_unwatch(p->loop, p->w_pidfd);
    p->w_pidfd = 0;
    if (p->t_poll > 0)
        shc_loop_cancel_timer(p->loop, p->t_poll);
    p->t_poll = 0;
    if (!p->eof && !p->t_drain)
        p->t_drain = shc_loop_timer(p->loop, DRAIN_GRACE_MS, on_drain_timer, p);
    finish(p);
}

/* Looks at the exit without reaping (WNOWAIT): the zombie keeps the pgid reserved until the
 * sweep is over. */
static int peek_exit(shc_pty *p, siginfo_t *si)
{
    memset(si, 0, sizeof *si);
    int r = p->pidfd >= 0
                ? waitid((idtype_t)P_PIDFD, (id_t)p->pidfd, si, WEXITED | WNOHANG | WNOWAIT)
                : waitid(P_PID, (id_t)p->pid, si, WEXITED | WNOHANG | WNOWAIT);
    return r == 0 && si->si_pid != 0;
}

static void on_pidfd(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)fd;
    (void)events;
    shc_pty *p = payload;
    siginfo_t si;
    if (peek_exit(p, &si))
        record_exit(p, &si);
}

/* Without pidfd: a SIGCHLD (several may coalesce into one) means any running command may have
 * exited.  Handle one exit at a time and rescan, since an exit callback may free commands. */
static void on_sigchld(shc_loop *loop, int signo, void *payload)
{
    (void)loop;
    (void)signo;
    shc_exec *ex = payload;
    for (bool again = true; again;) {
        again = false;
        for (shc_pty *q = ex->live; q; q = q->next) {
            siginfo_t si;
            if (q->pidfd < 0 && !q->exited && peek_exit(q, &si)) {
                record_exit(q, &si);
                again = true;
                break;
            }
        }
    }
}

static void on_poll_timer(shc_loop *loop, void *payload)
{
    shc_pty *p = payload;
    p->t_poll = 0;
    siginfo_t si;
    if (peek_exit(p, &si))
        record_exit(p, &si);
    else
        p->t_poll = shc_loop_timer(loop, POLL_FALLBACK_MS, on_poll_timer, p);
}

/* ---------------------------------------------------------------- kill ladder */

static void on_kill_timer(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_pty *p = payload;
    p->t_kill = 0;
    if (!p->done) {
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
    }
}

static void ladder(shc_pty *p)
{
    if (p->done || p->laddering)
        return;
    p->laddering = true;
    kill(-p->pid, SIGTERM);
    kill(-p->pid, SIGCONT); /* a stopped process acts on SIGTERM only once continued */
    p->t_kill = shc_loop_timer(p->loop, p->kill_grace_ms, on_kill_timer, p);
}

static void on_timeout(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_pty *p = payload;
    p->t_timeout = 0;
    if (p->done || p->laddering)
        return;
    p->st.timed_out = true;
    ladder(p);
}

void shc_pty_cancel(shc_pty *pty)
{
    if (!pty || pty->done || pty->laddering || pty->reaped)
        return;
    pty->st.cancelled = true;
    ladder(pty);
}

int shc_pty_resize(shc_pty *pty, uint16_t cols, uint16_t rows)
{
    if (!pty || pty->master < 0 || !cols || !rows)
        return SHC_E_USAGE;
    struct winsize ws = {.ws_row = rows, .ws_col = cols};
    return ioctl(pty->master, TIOCSWINSZ, &ws) == 0 ? 0 : SHC_E_IO;
}

pid_t shc_pty_pid(const shc_pty *pty)
{
    return pty ? pty->pid : -1;
}

bool shc_pty_done(const shc_pty *pty)
{
    return pty && pty->done;
}

const shc_pty_status *shc_pty_status_get(const shc_pty *pty)
{
    return pty && pty->done ? &pty->st : NULL;
}

char *shc_pty_model_text(const shc_pty *pty, size_t *len)
{
    return pty ? shc_model_render(&pty->model, len) : NULL;
}

char *shc_pty_tail(const shc_pty *pty, size_t *len, bool *truncated)
{
    return pty ? shc_ring_copy(&pty->tail, len, truncated, NULL) : NULL;
}

uint64_t shc_pty_bytes_read(const shc_pty *pty)
{
    return pty ? pty->bytes_read : 0;
}

void shc_pty_free(shc_pty *pty)
{
    if (!pty)
        return;
    kill_now(pty);
    shc_outbuf_free(&pty->disp);
    shc_model_fini(&pty->model);
    shc_ring_fini(&pty->tail);
    free(pty->rbuf);
    free(pty);
}

/* ---------------------------------------------------------------- spawn */

int shc_pty_spawn(shc_pty **out, shc_exec *ex, const shc_pty_opts *opts, shc_pty_error *err)
{
    shc_pty_error dummy;
    if (!err)
        err = &dummy;
    memset(err, 0, sizeof *err);
    if (out)
        *out = NULL;
    if (!out || !ex || !opts || !opts->command) {
        err->err = EINVAL;
        err->stage = "args";
        snprintf(err->message, sizeof err->message, "no command given");
        return SHC_E_USAGE;
    }
    shc_pty *p = calloc(1, sizeof *p);
    if (!p)
        goto nomem;
    p->ex = ex;
    p->loop = ex->loop;
    p->master = p->pidfd = -1;
    p->chunk_bytes = opts->chunk_bytes ? opts->chunk_bytes : 8192;
    if (p->chunk_bytes < 8)
        p->chunk_bytes = 8;
    p->chunk_ms = opts->chunk_ms ? opts->chunk_ms : 16;
    p->display_limit = opts->display_limit ? opts->display_limit : (size_t)80 << 20;
    p->kill_grace_ms = opts->kill_grace_ms ? opts->kill_grace_ms : 2000;
    p->on_output = opts->on_output;
    p->on_exit = opts->on_exit;
    p->payload = opts->payload;
    p->st.exit_code = -1;
    p->rbuf = malloc(READ_SIZE);
    if (!p->rbuf || shc_model_init(&p->model, opts->model_cap ? opts->model_cap : 1u << 20) ||
        shc_ring_init(&p->tail, opts->has_tail_limit ? opts->tail_limit : 1u << 20))
        goto nomem;
    snprintf(p->token, sizeof p->token, "SHCARD_CMD_ID=%d-%llu-%llu", (int)getpid(),
             (unsigned long long)++ex->seq, (unsigned long long)shc_loop_now_ms());
    p->t0 = shc_loop_now_ms();
    int rc = shc__pty_fork(&p->pid, &p->master, opts, p->token, err);
    if (rc)
        goto fail_rc;
    p->linked = true;
    p->next = ex->live;
    if (ex->live)
        ex->live->prev = p;
    ex->live = p;

    /* SHC_EXEC_NO_PIDFD=1 forces the polling fallback of kernels without pidfd (for tests). */
    const char *nopidfd = getenv("SHC_EXEC_NO_PIDFD");
    p->pidfd = nopidfd && *nopidfd == '1' ? -1 : pidfd_open(p->pid, 0);
    if (p->pidfd >= 0) {
        p->w_pidfd = shc_loop_watch(p->loop, p->pidfd, SHC_LOOP_READ, on_pidfd, p);
    } else {
        if (!ex->sigchld && shc_loop_signal(p->loop, SIGCHLD, on_sigchld, ex) == 0)
            ex->sigchld = true;
        p->t_poll = shc_loop_timer(p->loop, POLL_FALLBACK_MS, on_poll_timer, p);
    }
    p->w_master = shc_loop_watch(p->loop, p->master, SHC_LOOP_READ, on_master, p);
    if (opts->timeout_ms)
        p->t_timeout = shc_loop_timer(p->loop, opts->timeout_ms, on_timeout, p);
    if (p->w_master <= 0 || (p->pidfd >= 0 ? p->w_pidfd <= 0 : p->t_poll <= 0) ||
        (opts->timeout_ms && p->t_timeout <= 0)) {
        shc_pty_free(p);
        goto nomem_nofree;
    }
    if (p->pidfd < 0) {
        siginfo_t si; /* it may have exited before SIGCHLD was being watched */
        if (peek_exit(p, &si))
            record_exit(p, &si); /* output is not drained yet: no callback can run here */
    }
    *out = p;
    return 0;

nomem:
    rc = SHC_E_NOMEM;
    err->err = ENOMEM;
    err->stage = "nomem";
    snprintf(err->message, sizeof err->message, "out of memory");
fail_rc:
    if (p) {
        shc_outbuf_free(&p->disp);
        shc_model_fini(&p->model);
        shc_ring_fini(&p->tail);
        free(p->rbuf);
        free(p);
    }
    return rc;
nomem_nofree:
    err->err = ENOMEM;
    err->stage = "nomem";
    snprintf(err->message, sizeof err->message, "out of memory registering the command");
    return SHC_E_NOMEM;
}
