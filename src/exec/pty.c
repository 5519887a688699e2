#define _GNU_SOURCE
#include "exec/pty.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/signame.h"
#include "exec/adopt.h"
#include "exec/guard.h"
#include "exec/output.h"
#include "exec/stall.h"
#include "exec/stream.h"
#include "exec/sweep.h"
#include "shcard.h"

#include "exec/pty_int.h"

static bool scans(const shc_pty *p)
{
    return (p->input_wait_ms || (p->on_wait && !p->wait_told)) && !p->exited && !p->laddering;
}

int shc_pty_status_code(const shc_pty_status *st)
{
    if (st->timed_out)
        return 124;
    if (st->signo)
        return 128 + st->signo;
    return st->exit_code;
}

/* ---------------------------------------------------------------- exec context */

static void record_exit(shc_pty *p, int code, int status);

static void on_guard_exit(void *payload, pid_t pid, int code, int status)
{
    shc_exec *ex = payload;
    for (shc_pty *p = ex->live; p; p = p->next)
        if (p->pid == pid && !p->exited) {
            record_exit(p, code, status); /* may free p: the loop goes no further */
            return;
        }
}

/* Someone killed the guardian.  Its commands were re-parented to us (we are a subreaper too):
 * they are killed now, and each ends as killed by SIGKILL.  The next spawn starts a new one. */
static void on_guard_lost(void *payload)
{
    shc_exec *ex = payload;
    fprintf(stderr, "shcard: the process guardian died; its commands are killed\n");
    shc__guard_free(ex->guard); /* its cgroups, if any, are ended */
    ex->guard = NULL;
    for (shc_pty *p = ex->live; p; p = p->next) {
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
    }
    shc__kill_adopted(ex->since); /* everything it held came back to us: nothing survives it */
    for (bool again = true; again;) { /* one at a time: an exit callback may free commands */
        again = false;
        for (shc_pty *p = ex->live; p; p = p->next)
            if (!p->exited) {
                record_exit(p, CLD_KILLED, SIGKILL);
                again = true;
                break;
            }
    }
}

shc_exec *shc_exec_new(shc_loop *loop)
{
    if (!loop)
        return NULL;
    shc_exec *ex = calloc(1, sizeof *ex);
    if (!ex)
        return NULL;
    ex->loop = loop;
    ex->since = shc__ticks_now();
    /* Should the guardian die, what it held comes back to us. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    /* Not dumpable: a command of ours running as the same user cannot ptrace us, read our
     * memory or take our descriptors with pidfd_getfd (the watch's listener, the client's
     * pipe).  The guardian is forked from here and inherits it; commands get it back at exec. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (shc__guard_start(&ex->guard, loop, on_guard_exit, on_guard_lost, ex) != 0) {
        free(ex);
        return NULL;
    }
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

/* Ends the command's processes for good: SIGKILL to its group, orphans swept, the leader
 * reaped.  The guardian does it (and answers when done); without one, we do it ourselves: the
 * dead guardian's processes were re-parented to us. */
static void end_group(shc_pty *p)
{
    if (p->ended)
        return;
    p->ended = true;
    shc_exec *ex = p->ex;
    if (ex && ex->guard && shc__guard_finish(ex->guard, p->pid) == 0)
        return;
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
    pid_t keep[64];
    size_t n = 0;
    for (shc_pty *q = ex ? ex->live : NULL; q && n < 63; q = q->next)
        if (q != p)
            keep[n++] = q->pid;
    keep[n++] = p->pid; /* reaped below, if it came back to us */
    shc__sweep(p->pid, p->token, keep, n);
    for (int i = 0; i < 200 && waitpid(p->pid, NULL, WNOHANG) == 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* Stops watching and timing; closes fds.  The group must be ended first. */
static void teardown(shc_pty *p)
{
    shc__stream_quiet(&p->out);
    int *timers[] = {&p->t_timeout, &p->t_kill, &p->t_drain};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++)
        if (*timers[i] > 0) {
            shc_loop_cancel_timer(p->loop, *timers[i]);
            *timers[i] = 0;
        }
    if (p->w_master > 0)
        shc_loop_unwatch(p->loop, p->w_master);
    p->w_master = 0;
    if (p->master >= 0)
        close(p->master);
    p->master = -1;
    /* Only now, with its group ended: a watched call left unanswered would fail with ENOSYS. */
    shc_confine_watch_free(p->watch);
    p->watch = NULL;
}

/* Kill everything, reap, sweep, with no callback: for free and exec_free. */
static void kill_now(shc_pty *p)
{
    end_group(p);
    unlink_pty(p);
    teardown(p);
}

static void ladder(shc_pty *p);

/* Every WATCH_MS while some command may not wait for input: one scan of /proc for all of them;
 * a command that has waited input_wait_ms without a pause gets the kill ladder. */
static void on_watch(shc_loop *loop, void *payload)
{
    shc_exec *ex = payload;
    ex->t_watch = 0;
    size_t n = 0;
    for (shc_pty *p = ex->live; p; p = p->next)
        n += scans(p);
    if (!n)
        return;
    shc_stall_cmd *c = calloc(n, sizeof *c);
    shc_pty **ps = calloc(n, sizeof *ps);
    bool *w = calloc(n, sizeof *w);
    if (c && ps && w) {
        size_t k = 0;
        for (shc_pty *p = ex->live; p && k < n; p = p->next)
            if (scans(p)) {
                c[k] = (shc_stall_cmd){p->pid, p->pts, p->master};
                ps[k++] = p;
            }
        shc__stall_scan(c, k, w);
        uint64_t now = shc_loop_now_ms();
        for (size_t i = 0; i < k; i++) {
            shc_pty *p = ps[i];
            if (w[i] && p->on_wait && !p->wait_told) {
                p->wait_told = true;
                p->on_wait(p, p->payload); /* must not free p */
            }
            if (!p->input_wait_ms)
                continue;
            if (!w[i]) {
                p->wait_since = 0;
            } else if (!p->wait_since) {
                p->wait_since = now;
            } else if (now - p->wait_since >= p->input_wait_ms) {
                p->st.input_wait = true;
                ladder(p); /* signals and a timer: no callback runs here */
            }
        }
    }
    free(c);
    free(ps);
    free(w);
    ex->t_watch = shc_loop_timer(loop, WATCH_MS, on_watch, ex);
}

void shc_exec_pause(shc_exec *ex, bool paused)
{
    if (!ex || ex->paused == paused)
        return;
    ex->paused = paused;
    for (shc_pty *p = ex->live; p; p = p->next)
        if (p->w_master > 0)
            shc_loop_set_events(p->loop, p->w_master, paused ? 0 : SHC_LOOP_READ);
}

bool shc_exec_paused(const shc_exec *ex)
{
    return ex && ex->paused;
}

const char *shc_exec_containment(const shc_exec *ex)
{
    return ex && ex->guard ? shc__guard_containment(ex->guard) : "";
}

/* While commands run: a command may have stopped the guardian (kill -STOP $PPID); it is
 * continued, or exits, cancels and teardown would wait on it. */
static void on_nudge(shc_loop *loop, void *payload)
{
    shc_exec *ex = payload;
    ex->t_nudge = 0;
    if (!ex->live)
        return;
    if (ex->guard && shc__guard_nudge(ex->guard))
        fprintf(stderr, "shcard: a command stopped the process guardian; continued\n");
    ex->t_nudge = shc_loop_timer(loop, NUDGE_MS, on_nudge, ex);
}

pid_t shc_exec_guardian(const shc_exec *ex)
{
    return ex && ex->guard ? shc__guard_pid(ex->guard) : -1;
}

void shc_exec_free(shc_exec *ex)
{
    if (!ex)
        return;
    while (ex->live) {
        shc_pty *p = ex->live;
        kill_now(p);
        p->done = true;
        p->ex = NULL;
    }
    if (ex->t_watch > 0)
        shc_loop_cancel_timer(ex->loop, ex->t_watch);
    if (ex->t_nudge > 0)
        shc_loop_cancel_timer(ex->loop, ex->t_nudge);
    shc__guard_free(ex->guard); /* the guardian ends what is left and exits; reaped here */
    shc__kill_adopted(ex->since); /* what a killed guardian left to us */
    free(ex);
}

/* ---------------------------------------------------------------- output */

static void on_chunk(void *ctx, const char *data, size_t n)
{
    shc_pty *p = ctx;
    if (p->on_output)
        p->on_output(p, data, n, p->payload);
}

static void take_bytes(shc_pty *p, const unsigned char *b, size_t n)
{
    shc__stream_take(&p->out, b, n);
}

/* ---------------------------------------------------------------- completion */

static void finish(shc_pty *p)
{
    if (p->done || !p->exited || !p->eof)
        return;
    p->done = true;
    char note[240];
    if (p->st.input_wait)
        snprintf(note, sizeof note,
                 "\r\n[shcard: the command was waiting for terminal input, which nobody can type "
                 "here; it was ended after %llu s. Run it non-interactively.]\r\n",
                 (unsigned long long)(p->input_wait_ms + 999) / 1000);
    shc__stream_end(&p->out, p->st.input_wait ? note : NULL);
    /* The leader is still an unreaped zombie, so its pid (= pgid = sid) is not reused yet. */
    end_group(p);
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
            take_bytes(p, p->rbuf, (size_t)n);
            if (n < READ_SIZE || (p->ex && p->ex->paused))
                return; /* drained for now, or the caller asked for a pause meanwhile */
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
    /* Stragglers hold the slave open: take what is buffered (a bounded amount, even if they keep
     * writing), then hang up. */
    for (int i = 0; i < DRAIN_READS; i++) {
        ssize_t n = read(p->master, p->rbuf, READ_SIZE);
        if (n <= 0)
            break;
        p->bytes_read += (uint64_t)n;
        take_bytes(p, p->rbuf, (size_t)n);
    }
    set_eof(p);
    close(p->master);
    p->master = -1;
    finish(p);
}

static void record_exit(shc_pty *p, int code, int status)
{
    p->exited = true;
    if (code == CLD_EXITED) {
        p->st.exit_code = status;
        p->st.signo = 0;
    } else {
        p->st.exit_code = -1;
        p->st.signo = status;
    }
    if (!p->eof && !p->t_drain)
        p->t_drain = shc_loop_timer(p->loop, DRAIN_GRACE_MS, on_drain_timer, p);
    finish(p);
}

/* ---------------------------------------------------------------- kill ladder */

/* SIGKILL was sent STUCK_GRACE_MS ago and the leader has not ended: it is stuck in the kernel
 * (a page of a file system that never answers, such as a FUSE server of its own).  It is given
 * up as killed, so the agent goes on; the guardian reaps it if it ever ends. */
static void on_stuck_timer(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_pty *p = payload;
    p->t_kill = 0;
    if (p->exited)
        return;
    fprintf(stderr, "shcard: the command did not end %d ms after SIGKILL (stuck in the kernel); "
                    "given up as killed\n", STUCK_GRACE_MS);
    record_exit(p, CLD_KILLED, SIGKILL);
}

static void on_kill_timer(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_pty *p = payload;
    p->t_kill = 0;
    if (!p->done) {
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
        if (!p->exited)
            p->t_kill = shc_loop_timer(p->loop, STUCK_GRACE_MS, on_stuck_timer, p);
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
    if (!pty || pty->done || pty->laddering || pty->ended)
        return;
    pty->st.cancelled = true;
    ladder(pty);
}

void shc_pty_free(shc_pty *pty)
{
    if (!pty)
        return;
    kill_now(pty);
    shc__stream_fini(&pty->out);
    free(pty->rbuf);
    free(pty);
}

/* ---------------------------------------------------------------- spawn */
static void on_confine_ev(const shc_confine_event *ev, void *payload)
{
    shc_pty *p = payload;
    if (p->on_confine && !p->done)
        p->on_confine(p, ev, p->payload);
}

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
    int rc = 0;
    shc_pty *p = calloc(1, sizeof *p);
    if (!p)
        goto nomem;
    p->ex = ex;
    p->loop = ex->loop;
    p->master = -1;
    p->kill_grace_ms = opts->kill_grace_ms ? opts->kill_grace_ms : 2000;
    p->on_output = opts->on_output;
    p->on_exit = opts->on_exit;
    p->payload = opts->payload;
    p->st.exit_code = -1;
    p->rbuf = malloc(READ_SIZE);
    if (shc__stream_init(&p->out, p->loop, opts, on_chunk, p) || !p->rbuf)
        goto nomem;
    snprintf(p->token, sizeof p->token, "SHCARD_CMD_ID=%d-%llu-%llu", (int)getpid(),
             (unsigned long long)++ex->seq, (unsigned long long)shc_loop_now_ms());
    p->t0 = shc_loop_now_ms();
    if (!ex->guard && shc__guard_start(&ex->guard, ex->loop, on_guard_exit, on_guard_lost, ex)) {
        err->err = EAGAIN;
        err->stage = "fork";
        snprintf(err->message, sizeof err->message, "cannot start the process guardian");
        rc = SHC_E_IO;
        goto fail_rc;
    }
    int listener = -1;
    rc = shc__guard_spawn(ex->guard, opts, p->token, &p->pid, &p->master, &listener, err);
    if (rc)
        goto fail_rc;
    p->on_confine = opts->on_confine;
    p->on_wait = opts->on_wait;
    if (listener >= 0) {
        shc_confine_spec spec = *opts->confine; /* a listener comes only with a spec */
        spec.cwd = opts->cwd;
        p->watch = shc_confine_watch_new(p->loop, listener, p->pid, &spec, on_confine_ev, p);
    }
    p->linked = true;
    p->next = ex->live;
    if (ex->live)
        ex->live->prev = p;
    ex->live = p;

    p->w_master =
        shc_loop_watch(p->loop, p->master, ex->paused ? 0 : SHC_LOOP_READ, on_master, p);
    if (opts->timeout_ms)
        p->t_timeout = shc_loop_timer(p->loop, opts->timeout_ms, on_timeout, p);
    p->input_wait_ms = opts->input_wait_ms;
    if (ptsname_r(p->master, p->pts, sizeof p->pts) != 0)
        p->pts[0] = 0;
    shc_confine_watch_tty(p->watch, p->pts); /* before the loop answers its first call */
    if ((p->input_wait_ms || p->on_wait) && !ex->t_watch)
        ex->t_watch = shc_loop_timer(ex->loop, WATCH_MS, on_watch, ex);
    if (!ex->t_nudge)
        ex->t_nudge = shc_loop_timer(ex->loop, NUDGE_MS, on_nudge, ex);
    if (p->w_master <= 0 || (opts->timeout_ms && p->t_timeout <= 0)) {
        shc_pty_free(p);
        goto nomem_nofree;
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
        shc__stream_fini(&p->out);
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
