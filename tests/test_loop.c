/* The event loop: fd watchers, timers, signals, changes made from inside callbacks. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/loop.h"

typedef struct rec {
    int calls;
    int order[16];
    int norder;
    unsigned last_events;
    int other_id; /* a watcher or timer the callback acts on */
    int self_id;
    shc_loop *loop;
    int fd2;
    char buf[64];
    size_t got;
} rec;

static void note(rec *r, int v)
{
    if (r->norder < 16)
        r->order[r->norder++] = v;
}

/* ---------------------------------------------------------------- timers */

typedef struct tctx {
    rec *r;
    int tag;
} tctx;

static void on_timer(shc_loop *loop, void *payload)
{
    (void)loop;
    tctx *t = payload;
    note(t->r, t->tag);
    t->r->calls++;
}

static void test_timers_fire_in_deadline_order(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    assert_non_null(l);
    rec r = {0};
    tctx a = {&r, 30}, b = {&r, 10}, c = {&r, 20}, d = {&r, 99};
    uint64_t t0 = shc_loop_now_ms();
    assert_true(shc_loop_timer(l, 30, on_timer, &a) > 0);
    assert_true(shc_loop_timer(l, 10, on_timer, &b) > 0);
    assert_true(shc_loop_timer(l, 20, on_timer, &c) > 0);
    int cancel = shc_loop_timer(l, 5, on_timer, &d);
    assert_true(cancel > 0);
    shc_loop_cancel_timer(l, cancel);
    assert_int_equal(shc_loop_run(l), 0); /* returns: nothing left */
    uint64_t dt = shc_loop_now_ms() - t0;
    assert_int_equal(r.calls, 3);
    assert_int_equal(r.order[0], 10);
    assert_int_equal(r.order[1], 20);
    assert_int_equal(r.order[2], 30);
    assert_true(dt >= 30);
    assert_true(dt < 2000);
    shc_loop_cancel_timer(l, cancel); /* no-op for a cancelled id */
    shc_loop_cancel_timer(l, 12345);  /* and for an unknown one */
    shc_loop_free(l);
}

typedef struct chain {
    int n;
    int id_seen_fired;
    shc_loop *loop;
    int self_id;
} chain;

static void on_chain(shc_loop *loop, void *payload)
{
    chain *c = payload;
    c->n++;
    /* a fired timer is already removed: cancelling it is harmless */
    shc_loop_cancel_timer(loop, c->self_id);
    if (c->n < 5)
        c->self_id = shc_loop_timer(loop, 0, on_chain, c);
}

static void test_timer_added_from_callback(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    chain c = {0};
    c.self_id = shc_loop_timer(l, 1, on_chain, &c);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(c.n, 5);
    shc_loop_free(l);
}

static void test_run_once_timeout(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
    uint64_t t0 = shc_loop_now_ms();
    assert_int_equal(shc_loop_run_once(l, 50), 0);
    uint64_t dt = shc_loop_now_ms() - t0;
    assert_true(dt >= 45);
    assert_true(dt < 2000);
    close(p[0]);
    close(p[1]);
    shc_loop_free(l);
}

/* ---------------------------------------------------------------- fd watchers */

static void on_read_all(shc_loop *loop, int fd, unsigned events, void *payload)
{
    rec *r = payload;
    r->calls++;
    r->last_events = events;
    for (;;) {
        ssize_t n = read(fd, r->buf + r->got, sizeof r->buf - 1 - r->got);
        if (n > 0) {
            r->got += (size_t)n;
            continue;
        }
        if (n == 0) { /* EOF: the callback removes itself */
            shc_loop_unwatch(loop, r->self_id);
        }
        break;
    }
}

static void on_write_once(shc_loop *loop, int fd, unsigned events, void *payload)
{
    rec *r = payload;
    r->calls++;
    r->last_events = events;
    assert_true(events & SHC_LOOP_WRITE);
    assert_int_equal(write(fd, "hello", 5), 5);
    shc_loop_unwatch(loop, r->self_id);
    close(fd); /* the reader then sees EOF */
}

static void test_pipe_read_write_and_self_unwatch(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
    rec rd = {0}, wr = {0};
    rd.self_id = shc_loop_watch(l, p[0], SHC_LOOP_READ, on_read_all, &rd);
    wr.self_id = shc_loop_watch(l, p[1], SHC_LOOP_WRITE, on_write_once, &wr);
    assert_true(rd.self_id > 0);
    assert_true(wr.self_id > 0);
    assert_int_not_equal(rd.self_id, wr.self_id);
    /* one watcher per fd */
    assert_int_equal(shc_loop_watch(l, p[0], SHC_LOOP_READ, on_read_all, &rd), -1);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(wr.calls, 1);
    assert_true(rd.calls >= 1);
    assert_int_equal(rd.got, 5);
    assert_memory_equal(rd.buf, "hello", 5);
    close(p[0]);
    shc_loop_free(l);
}

static void on_hup(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)fd;
    rec *r = payload;
    r->calls++;
    r->last_events = events;
    shc_loop_unwatch(loop, r->self_id);
}

static void test_hangup_counts_as_read(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
    close(p[1]);
    rec r = {0};
    r.self_id = shc_loop_watch(l, p[0], SHC_LOOP_READ, on_hup, &r);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.last_events, SHC_LOOP_READ);
    close(p[0]);
    shc_loop_free(l);
}

/* Two ready fds: the first callback removes the second watcher, which must not run. */
static void on_kill_other(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)fd;
    (void)events;
    rec *r = payload;
    r->calls++;
    shc_loop_unwatch(loop, r->other_id);
    shc_loop_unwatch(loop, r->self_id);
}

static void test_remove_other_during_dispatch(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    int a[2], b[2];
    assert_int_equal(pipe2(a, O_CLOEXEC | O_NONBLOCK), 0);
    assert_int_equal(pipe2(b, O_CLOEXEC | O_NONBLOCK), 0);
    assert_int_equal(write(a[1], "x", 1), 1);
    assert_int_equal(write(b[1], "y", 1), 1);
    rec ra = {0}, rb = {0};
    ra.self_id = shc_loop_watch(l, a[0], SHC_LOOP_READ, on_kill_other, &ra);
    rb.self_id = shc_loop_watch(l, b[0], SHC_LOOP_READ, on_kill_other, &rb);
    ra.other_id = rb.self_id;
    rb.other_id = ra.self_id;
    assert_int_equal(shc_loop_run(l), 0);
    /* exactly one of them ran; the other was removed before its turn */
    assert_int_equal(ra.calls + rb.calls, 1);
    for (int i = 0; i < 2; i++) {
        close(a[i]);
        close(b[i]);
    }
    shc_loop_free(l);
}

/* A callback that adds a watcher for another fd: it runs in a later iteration. */
static void on_add_other(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)events;
    rec *r = payload;
    char c;
    assert_int_equal(read(fd, &c, 1), 1);
    r->calls++;
    shc_loop_unwatch(loop, r->self_id);
    rec *other = (rec *)r->loop; /* smuggled */
    other->self_id = shc_loop_watch(loop, r->fd2, SHC_LOOP_READ, on_hup, other);
    assert_true(other->self_id > 0);
}

static void test_add_during_dispatch(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    int a[2], b[2];
    assert_int_equal(pipe2(a, O_CLOEXEC | O_NONBLOCK), 0);
    assert_int_equal(pipe2(b, O_CLOEXEC | O_NONBLOCK), 0);
    assert_int_equal(write(a[1], "x", 1), 1);
    assert_int_equal(write(b[1], "y", 1), 1);
    rec ra = {0}, rb = {0};
    ra.loop = (shc_loop *)(void *)&rb;
    ra.fd2 = b[0];
    ra.self_id = shc_loop_watch(l, a[0], SHC_LOOP_READ, on_add_other, &ra);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(ra.calls, 1);
    assert_int_equal(rb.calls, 1);
    for (int i = 0; i < 2; i++) {
        close(a[i]);
        close(b[i]);
    }
    shc_loop_free(l);
}

static void on_never(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)fd;
    (void)events;
    rec *r = payload;
    r->calls++;
}

static void on_unwatch_timer(shc_loop *loop, void *payload)
{
    rec *r = payload;
    r->norder++;
    shc_loop_unwatch(loop, r->self_id);
}

static void test_set_events_zero_pauses(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
    assert_int_equal(write(p[1], "x", 1), 1);
    rec r = {0};
    r.self_id = shc_loop_watch(l, p[0], SHC_LOOP_READ, on_never, &r);
    shc_loop_set_events(l, r.self_id, 0);
    assert_true(shc_loop_timer(l, 30, on_unwatch_timer, &r) > 0);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(r.calls, 0);
    assert_int_equal(r.norder, 1);
    close(p[0]);
    close(p[1]);
    shc_loop_free(l);
}

static void on_stop(shc_loop *loop, void *payload)
{
    int *n = payload;
    (*n)++;
    shc_loop_stop(loop);
}

static void test_stop_from_callback(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
    rec r = {0};
    r.self_id = shc_loop_watch(l, p[0], SHC_LOOP_READ, on_never, &r); /* keeps it alive */
    int n = 0;
    assert_true(shc_loop_timer(l, 10, on_stop, &n) > 0);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(n, 1);
    /* it can run again after a stop */
    assert_true(shc_loop_timer(l, 10, on_stop, &n) > 0);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(n, 2);
    close(p[0]);
    close(p[1]);
    shc_loop_free(l);
}

/* ---------------------------------------------------------------- signals */

typedef struct sigctx {
    int got[3];
    int n;
} sigctx;

static void on_signal(shc_loop *loop, int signo, void *payload)
{
    sigctx *s = payload;
    if (s->n < 3)
        s->got[s->n] = signo;
    s->n++;
    shc_loop_stop(loop);
}

static void test_signals_through_loop(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    sigctx s = {{0}, 0};
    assert_int_equal(shc_loop_signal(l, SIGTERM, on_signal, &s), 0);
    assert_int_equal(shc_loop_signal(l, SIGCHLD, on_signal, &s), 0);
    /* SIGTERM to ourselves is blocked and read from the signalfd, not fatal */
    assert_int_equal(kill(getpid(), SIGTERM), 0);
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
    rec r = {0};
    r.self_id = shc_loop_watch(l, p[0], SHC_LOOP_READ, on_never, &r);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.got[0], SIGTERM);
    /* SIGCHLD from a real child */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(shc_loop_run(l), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.got[1], SIGCHLD);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    close(p[0]);
    close(p[1]);
    shc_loop_free(l);
    /* freeing the loop restores the mask */
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    assert_false(sigismember(&cur, SIGTERM));
    assert_false(sigismember(&cur, SIGCHLD));
}

static void test_bad_args(void **state)
{
    (void)state;
    shc_loop *l = shc_loop_new();
    assert_int_equal(shc_loop_watch(l, -1, SHC_LOOP_READ, on_never, NULL), -1);
    assert_int_equal(shc_loop_watch(l, 0, SHC_LOOP_READ, NULL, NULL), -1);
    assert_int_equal(shc_loop_timer(l, 1, NULL, NULL), -1);
    assert_int_equal(shc_loop_signal(l, 0, on_signal, NULL), -1);
    shc_loop_unwatch(l, 999);
    shc_loop_set_events(l, 999, SHC_LOOP_READ);
    assert_int_equal(shc_loop_run(l), 0); /* nothing to do: returns at once */
    shc_loop_free(l);
    shc_loop_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timers_fire_in_deadline_order),
        cmocka_unit_test(test_timer_added_from_callback),
        cmocka_unit_test(test_run_once_timeout),
        cmocka_unit_test(test_pipe_read_write_and_self_unwatch),
        cmocka_unit_test(test_hangup_counts_as_read),
        cmocka_unit_test(test_remove_other_during_dispatch),
        cmocka_unit_test(test_add_during_dispatch),
        cmocka_unit_test(test_set_events_zero_pauses),
        cmocka_unit_test(test_stop_from_callback),
        cmocka_unit_test(test_signals_through_loop),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
