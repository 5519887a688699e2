#define _GNU_SOURCE
#include "base/loop.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

/* Records live in small arrays scanned linearly: a loop holds a handful of fds and timers.
 * A removed record is marked dead (id 0) and compacted only outside dispatch, so indexes taken
 * before a callback stay meaningful after it. */

typedef struct watcher {
    int id; /* 0 = removed */
    int fd;
    unsigned events;
    shc_loop_fd_fn fn;
    void *payload;
} watcher;

typedef struct timer {
    int id; /* 0 = removed or fired */
    uint64_t due;
    shc_loop_timer_fn fn;
    void *payload;
} timer;

typedef struct sigrec {
    int signo;
    shc_loop_signal_fn fn;
    void *payload;
} sigrec;

struct shc_loop {
    watcher *w; /* owned */
    size_t nw, capw;
    timer *t; /* owned */
    size_t nt, capt;
    sigrec s[NSIG];
    size_t ns;
    int sigfd;              /* -1 until a signal is registered */
    sigset_t sigs;          /* signals delivered through sigfd */
    sigset_t blocked_by_us; /* those we blocked (restored on free) */
    pid_t sender;           /* of the signal being dispatched */
    int next_id;
    int dispatching;
    int stopping;
    struct pollfd *pfd; /* owned scratch */
    int *pid;           /* owned scratch: watcher id per pollfd */
    size_t cappfd;
};

uint64_t shc_loop_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

shc_loop *shc_loop_new(void)
{
    shc_loop *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->sigfd = -1;
    sigemptyset(&l->sigs);
    sigemptyset(&l->blocked_by_us);
    return l;
}

void shc_loop_free(shc_loop *loop)
{
    if (!loop)
        return;
    if (loop->sigfd >= 0) {
        close(loop->sigfd);
        /* Drop pending instances so that unblocking does not run the default action. */
        struct timespec zero = {0, 0};
        while (sigtimedwait(&loop->blocked_by_us, NULL, &zero) > 0)
            ;
        sigprocmask(SIG_UNBLOCK, &loop->blocked_by_us, NULL);
    }
    free(loop->w);
    free(loop->t);
    free(loop->pfd);
    free(loop->pid);
    free(loop);
}

static int new_id(shc_loop *l)
{
    if (l->next_id == 0x7fffffff)
        l->next_id = 0;
    return ++l->next_id;
}

static watcher *find_watcher(shc_loop *l, int id)
{
    if (id <= 0)
        return NULL;
    for (size_t i = 0; i < l->nw; i++)
        if (l->w[i].id == id)
            return &l->w[i];
    return NULL;
}

int shc_loop_watch(shc_loop *loop, int fd, unsigned events, shc_loop_fd_fn fn, void *payload)
{
    if (!loop || fd < 0 || !fn || (events & ~(unsigned)(SHC_LOOP_READ | SHC_LOOP_WRITE)))
        return -1; /* poll(2)'s bits are not ours: POLLOUT (4) would wait for nothing */
    for (size_t i = 0; i < loop->nw; i++)
        if (loop->w[i].id && loop->w[i].fd == fd)
            return -1; /* one watcher per fd */
    if (loop->nw == loop->capw) {
        size_t cap = loop->capw ? loop->capw * 2 : 8;
        watcher *w = realloc(loop->w, cap * sizeof *w);
        if (!w)
            return -1;
        loop->w = w;
        loop->capw = cap;
    }
    int id = new_id(loop);
    loop->w[loop->nw++] = (watcher){id, fd, events, fn, payload};
    return id;
}

void shc_loop_set_events(shc_loop *loop, int id, unsigned events)
{
    watcher *w = loop ? find_watcher(loop, id) : NULL;
    if (w && !(events & ~(unsigned)(SHC_LOOP_READ | SHC_LOOP_WRITE)))
        w->events = events;
}

void shc_loop_unwatch(shc_loop *loop, int id)
{
    watcher *w = loop ? find_watcher(loop, id) : NULL;
    if (w) {
        w->id = 0;
        w->fd = -1;
    }
}

int shc_loop_timer(shc_loop *loop, uint64_t ms, shc_loop_timer_fn fn, void *payload)
{
    if (!loop || !fn)
        return -1;
    if (loop->nt == loop->capt) {
        size_t cap = loop->capt ? loop->capt * 2 : 8;
        timer *t = realloc(loop->t, cap * sizeof *t);
        if (!t)
            return -1;
        loop->t = t;
        loop->capt = cap;
    }
    int id = new_id(loop);
    loop->t[loop->nt++] = (timer){id, shc_loop_now_ms() + ms, fn, payload};
    return id;
}

void shc_loop_cancel_timer(shc_loop *loop, int id)
{
    if (!loop || id <= 0)
        return;
    for (size_t i = 0; i < loop->nt; i++)
        if (loop->t[i].id == id)
            loop->t[i].id = 0;
}

int shc_loop_signal(shc_loop *loop, int signo, shc_loop_signal_fn fn, void *payload)
{
    if (!loop || !fn || signo <= 0 || signo >= NSIG)
        return -1;
    for (size_t i = 0; i < loop->ns; i++)
        if (loop->s[i].signo == signo) {
            loop->s[i].fn = fn;
            loop->s[i].payload = payload;
            return 0;
        }
    sigset_t one, old;
    sigemptyset(&one);
    sigaddset(&one, signo);
    if (sigprocmask(SIG_BLOCK, &one, &old) != 0)
        return -1;
    if (!sigismember(&old, signo))
        sigaddset(&loop->blocked_by_us, signo);
    sigaddset(&loop->sigs, signo);
    int fd = signalfd(loop->sigfd, &loop->sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd < 0) {
        sigdelset(&loop->sigs, signo);
        if (sigismember(&loop->blocked_by_us, signo)) {
            sigdelset(&loop->blocked_by_us, signo);
            sigprocmask(SIG_UNBLOCK, &one, NULL);
        }
        return -1;
    }
    loop->sigfd = fd;
    loop->s[loop->ns++] = (sigrec){signo, fn, payload};
    return 0;
}

/* Drop dead records; only called outside dispatch. */
static void compact(shc_loop *l)
{
    size_t j = 0;
    for (size_t i = 0; i < l->nw; i++)
        if (l->w[i].id)
            l->w[j++] = l->w[i];
    l->nw = j;
    j = 0;
    for (size_t i = 0; i < l->nt; i++)
        if (l->t[i].id)
            l->t[j++] = l->t[i];
    l->nt = j;
}

static int live_watchers(const shc_loop *l)
{
    for (size_t i = 0; i < l->nw; i++)
        if (l->w[i].id)
            return 1;
    return 0;
}

static int next_due(const shc_loop *l, uint64_t *due)
{
    int any = 0;
    for (size_t i = 0; i < l->nt; i++)
        if (l->t[i].id && (!any || l->t[i].due < *due)) {
            *due = l->t[i].due;
            any = 1;
        }
    return any;
}

static int ensure_pfd(shc_loop *l, size_t n)
{
    if (n <= l->cappfd)
        return 0;
    size_t cap = l->cappfd ? l->cappfd : 8;
    while (cap < n)
        cap *= 2;
    struct pollfd *p = realloc(l->pfd, cap * sizeof *p);
    if (!p)
        return -ENOMEM;
    l->pfd = p;
    int *ids = realloc(l->pid, cap * sizeof *ids);
    if (!ids)
        return -ENOMEM;
    l->pid = ids;
    l->cappfd = cap;
    return 0;
}

static void dispatch_signals(shc_loop *l)
{
    struct signalfd_siginfo si[8];
    for (;;) {
        ssize_t n = read(l->sigfd, si, sizeof si);
        if (n <= 0)
            return;
        size_t k = (size_t)n / sizeof si[0];
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < l->ns; j++)
                if ((uint32_t)l->s[j].signo == si[i].ssi_signo) {
                    l->sender = (pid_t)si[i].ssi_pid;
                    l->s[j].fn(l, l->s[j].signo, l->s[j].payload);
                    l->sender = 0;
                    break;
                }
        if (k < sizeof si / sizeof si[0])
            return;
    }
}

/* Fire each timer due now that existed before this phase began (a timer added by a callback
 * waits for the next iteration, so a 0 ms timer cannot starve the poll). */
static void dispatch_timers(shc_loop *l)
{
    int last_id = l->next_id;
    uint64_t now = shc_loop_now_ms();
    for (;;) {
        timer *best = NULL;
        for (size_t i = 0; i < l->nt; i++) {
            timer *t = &l->t[i];
            if (!t->id || t->due > now)
                continue;
            /* ids wrap only after 2^31 registrations: compare within the same epoch */
            if (last_id > 0 && t->id > last_id)
                continue;
            if (!best || t->due < best->due)
                best = t;
        }
        if (!best)
            return;
        shc_loop_timer_fn fn = best->fn;
        void *payload = best->payload;
        best->id = 0; /* fired timers are removed before their callback runs */
        fn(l, payload);
    }
}

int shc_loop_run_once(shc_loop *loop, int timeout_ms)
{
    if (!loop)
        return -EINVAL;
    if (!loop->dispatching)
        compact(loop);
    size_t n = 0;
    int rc = ensure_pfd(loop, loop->nw + 1);
    if (rc)
        return rc;
    if (loop->sigfd >= 0) {
        loop->pfd[n] = (struct pollfd){loop->sigfd, POLLIN, 0};
        loop->pid[n++] = 0;
    }
    for (size_t i = 0; i < loop->nw; i++) {
        watcher *w = &loop->w[i];
        if (!w->id || !w->events)
            continue;
        short ev = 0;
        if (w->events & SHC_LOOP_READ)
            ev |= POLLIN;
        if (w->events & SHC_LOOP_WRITE)
            ev |= POLLOUT;
        loop->pfd[n] = (struct pollfd){w->fd, ev, 0};
        loop->pid[n++] = w->id;
    }

    uint64_t due = 0;
    int64_t wait = timeout_ms < 0 ? -1 : timeout_ms;
    if (next_due(loop, &due)) {
        uint64_t now = shc_loop_now_ms();
        int64_t d = due > now ? (int64_t)(due - now) : 0;
        if (wait < 0 || d < wait)
            wait = d;
    }
    struct timespec ts, *tsp = NULL;
    if (wait >= 0) {
        ts.tv_sec = (time_t)(wait / 1000);
        ts.tv_nsec = (long)(wait % 1000) * 1000000L;
        tsp = &ts;
    }
    int r = ppoll(loop->pfd, (nfds_t)n, tsp, NULL);
    if (r < 0) {
        if (errno == EINTR)
            return 0;
        return -errno;
    }

    loop->dispatching++;
    for (size_t i = 0; r > 0 && i < n; i++) {
        short re = loop->pfd[i].revents;
        if (!re)
            continue;
        if (loop->pid[i] == 0) {
            dispatch_signals(loop);
            continue;
        }
        watcher *w = find_watcher(loop, loop->pid[i]);
        if (!w || w->fd != loop->pfd[i].fd)
            continue; /* removed by an earlier callback in this iteration */
        unsigned ev = 0;
        if (re & (POLLIN | POLLHUP | POLLERR | POLLNVAL | POLLPRI))
            ev |= SHC_LOOP_READ;
        if (re & POLLOUT)
            ev |= SHC_LOOP_WRITE;
        if (re & (POLLHUP | POLLERR | POLLNVAL))
            ev |= w->events & SHC_LOOP_WRITE; /* a writer must learn of the error too */
        ev &= w->events;
        if (!ev)
            continue;
        w->fn(loop, w->fd, ev, w->payload);
    }
    dispatch_timers(loop);
    loop->dispatching--;
    if (!loop->dispatching)
        compact(loop);
    return 0;
}

int shc_loop_run(shc_loop *loop)
{
    if (!loop)
        return -EINVAL;
    int rc = 0;
    while (!loop->stopping) {
        uint64_t due;
        if (!live_watchers(loop) && !next_due(loop, &due))
            break;
        rc = shc_loop_run_once(loop, -1);
        if (rc)
            break;
    }
    loop->stopping = 0;
    return rc;
}

pid_t shc_loop_signal_sender(const shc_loop *loop)
{
    return loop ? loop->sender : 0;
}

void shc_loop_stop(shc_loop *loop)
{
    if (loop)
        loop->stopping = 1;
}
