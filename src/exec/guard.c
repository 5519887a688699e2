/* The executor's side of the guardian (guard.h): starts it, asks it to spawn and finish
 * commands, and reads its exit events on the loop.  The process itself is guardian.c. */
#define _GNU_SOURCE
#include "exec/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/cgroup.h"
#include "exec/guard_wire.h"
#include "shcard.h"

struct shc_guard {
    shc_loop *loop; /* borrowed */
    pid_t pid;
    int req, ev; /* our ends of the request and event sockets */
    int w_ev, t_lost;
    bool lost, lost_told;
    int can_watch; /* shc_confine_available: 0 not asked yet, 1 yes, -1 no */
    unsigned char evbuf[sizeof(shc_gw_exit_event)];
    size_t evlen;
    shc_guard_exit_fn on_exit;
    shc_guard_lost_fn on_lost;
    void *payload;
    shc_cg cg;            /* the commands' cgroups (the guardian holds a copy) */
    char containment[PATH_MAX]; /* what contains the commands, for the log */
};

static void put_u32(char **w, uint32_t v)
{
    memcpy(*w, &v, sizeof v);
    *w += sizeof v;
}

static void put_str(char **w, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) + 1 : 0; /* 0 = NULL */
    put_u32(w, n);
    if (n) {
        memcpy(*w, s, n);
        *w += n;
    }
}

/* ---------------------------------------------------------------- the executor's side */

static void fire_lost(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_guard *g = payload;
    g->t_lost = 0;
    if (g->lost_told)
        return;
    g->lost_told = true;
    if (g->on_lost)
        g->on_lost(g->payload); /* may free g: nothing after this */
}

/* Marks the guardian gone and tells the owner from the loop (never inside its own call). */
static void set_lost(shc_guard *g)
{
    if (g->lost)
        return;
    g->lost = true;
    if (g->w_ev > 0)
        shc_loop_unwatch(g->loop, g->w_ev);
    g->w_ev = 0;
    if (g->pid > 0)
        kill(g->pid, SIGKILL); /* if it is stuck rather than dead */
    g->t_lost = shc_loop_timer(g->loop, 0, fire_lost, g);
}

/* One event per call: the callback may free the whole executor, so nothing touches g after. */
static void on_ev(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)events;
    shc_guard *g = payload;
    ssize_t n = read(fd, g->evbuf + g->evlen, sizeof g->evbuf - g->evlen);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        set_lost(g);
        return;
    }
    g->evlen += (size_t)n;
    if (g->evlen < sizeof g->evbuf)
        return;
    shc_gw_exit_event e;
    memcpy(&e, g->evbuf, sizeof e);
    g->evlen = 0;
    if (g->on_exit)
        g->on_exit(g->payload, e.pid, e.code, e.status);
}

int shc__guard_start(shc_guard **out, shc_loop *loop, shc_guard_exit_fn on_exit,
                     shc_guard_lost_fn on_lost, void *payload)
{
    *out = NULL;
    shc_guard *g = calloc(1, sizeof *g);
    if (!g)
        return SHC_E_NOMEM;
    int rq[2] = {-1, -1}, ev[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rq) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ev) != 0)
        goto fail;
    pid_t agent = getpid();
    char why[200] = "";
    if (shc__cg_setup(&g->cg, agent, why, sizeof why) == 0)
        snprintf(g->containment, sizeof g->containment, "a cgroup v2 per command under %s",
                 g->cg.dir);
    else
        snprintf(g->containment, sizeof g->containment,
                 "the guardian's process tree (no cgroup: %s)", why);
    pid_t pid = fork();
    if (pid < 0) {
        shc__cg_end(&g->cg);
        goto fail;
    }
    if (pid == 0) {
        close(rq[0]);
        close(ev[0]);
        shc__guardian_main(rq[1], ev[1], agent, &g->cg);
    }
    close(rq[1]);
    close(ev[1]);
    g->loop = loop;
    g->pid = pid;
    g->req = rq[0];
    g->ev = ev[0];
    g->on_exit = on_exit;
    g->on_lost = on_lost;
    g->payload = payload;
    fcntl(g->ev, F_SETFL, fcntl(g->ev, F_GETFL) | O_NONBLOCK);
    g->w_ev = shc_loop_watch(loop, g->ev, SHC_LOOP_READ, on_ev, g);
    if (g->w_ev <= 0) {
        shc__guard_free(g);
        return SHC_E_NOMEM;
    }
    *out = g;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (rq[i] >= 0)
            close(rq[i]);
        if (ev[i] >= 0)
            close(ev[i]);
    }
    free(g);
    return SHC_E_IO;
}

int shc__guard_nudge(shc_guard *g)
{
    char path[64], buf[512];
    if (!g || g->lost || g->pid <= 0)
        return 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)g->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    char *rp = strrchr(buf, ')');
    if (!rp || (rp[1] && rp[2] != 'T' && rp[2] != 't'))
        return 0;
    kill(g->pid, SIGCONT); /* a command stopped it (kill -STOP $PPID): it must go on */
    return 1;
}

/* Waits until fd is readable, continuing a stopped guardian meanwhile: 0, or -1 on timeout. */
static int wait_reply(shc_guard *g, int fd, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 50) {
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, 50);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        shc__guard_nudge(g);
    }
    return -1;
}

static const char *stage_name(const char *s)
{
    static const char *const known[] = {"openpt", "fork",   "chdir",  "exec",   "shell",
                                        "nomem",  "args",   "cgroup", "confine"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(s, known[i]))
            return known[i];
    return "spawn";
}

static int gone(shc_guard *g, shc_pty_error *err)
{
    set_lost(g);
    if (err) {
        err->err = EPIPE;
        err->stage = "fork";
        snprintf(err->message, sizeof err->message, "the process guardian is gone");
    }
    return SHC_E_IO;
}

static int spawn(shc_guard *g, const shc_pty_opts *o, const char *token, pid_t *pid,
                 int *master, int *listener, shc_pty_error *err)
{
    *pid = -1;
    *master = -1;
    *listener = -1;
    char spec[SHC_CONFINE_PACK_MAX];
    size_t speclen = o->confine ? shc_confine_pack(o->confine, spec, sizeof spec) : 0;
    if (o->confine && !speclen) {
        err->err = E2BIG;
        err->stage = "args";
        snprintf(err->message, sizeof err->message, "the confinement spec is too long");
        return SHC_E_USAGE;
    }
    if (g->lost)
        return gone(g, err);
    size_t len = 8 + 4 * 4 + 4 + 4, nenv = 0, nargs = 0;
    const char *strs[] = {o->command, o->shell, o->cwd, token};
    for (size_t i = 0; i < 4; i++)
        len += strs[i] ? strlen(strs[i]) + 1 : 0;
    for (const char *const *e = o->env; e && *e; e++, nenv++)
        len += 4 + strlen(*e) + 1;
    for (const char *const *a = o->args; a && *a; a++, nargs++)
        len += 4 + strlen(*a) + 1;
    len += 4 + speclen;
    if (len > SHC_GW_MAX_REQUEST) {
        err->err = E2BIG;
        err->stage = "args";
        snprintf(err->message, sizeof err->message, "the command is too long");
        return SHC_E_USAGE;
    }
    char *buf = malloc(sizeof(shc_gw_hdr) + len);
    if (!buf) {
        err->err = ENOMEM;
        err->stage = "nomem";
        snprintf(err->message, sizeof err->message, "out of memory");
        return SHC_E_NOMEM;
    }
    shc_gw_hdr h = {SHC_GW_SPAWN, (uint32_t)len};
    memcpy(buf, &h, sizeof h);
    char *w = buf + sizeof h;
    uint16_t cr[2] = {o->cols, o->rows};
    w[0] = (char)o->login;
    w[1] = (char)o->color;
    memcpy(w + 2, cr, sizeof cr);
    memset(w + 6, 0, 2);
    w += 8;
    for (size_t i = 0; i < 4; i++)
        put_str(&w, strs[i]);
    put_u32(&w, (uint32_t)nenv);
    for (const char *const *e = o->env; e && *e; e++)
        put_str(&w, *e);
    put_u32(&w, (uint32_t)speclen); /* the confine spec, 0 = none */
    if (speclen)
        memcpy(w, spec, speclen);
    w += speclen;
    put_u32(&w, (uint32_t)nargs); /* the script's $0 $1... */
    for (const char *const *a = o->args; a && *a; a++)
        put_str(&w, *a);
    int rc = shc__gw_write_all(g->req, buf, sizeof h + len);
    free(buf);
    if (rc != 0)
        return gone(g, err);

    char rbuf[sizeof(shc_gw_hdr) + sizeof(shc_gw_spawn_reply)];
    union {
        struct cmsghdr c;
        char space[CMSG_SPACE(2 * sizeof(int))];
    } cm;
    struct iovec iov = {rbuf, sizeof rbuf};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.space,
                        .msg_controllen = sizeof cm.space};
    ssize_t got = -1;
    if (wait_reply(g, g->req, SHC_GW_REPLY_TIMEOUT_MS) == 0)
        do
            got = recvmsg(g->req, &mh, MSG_CMSG_CLOEXEC);
        while (got < 0 && errno == EINTR);
    int fd = -1, lfd = -1; /* the PTY master, then the watch's listener when there is one */
    for (struct cmsghdr *c = got > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
            if (nfd > 1)
                memcpy(&lfd, CMSG_DATA(c) + sizeof(int), sizeof lfd);
        }
    if (got <= 0 ||
        (got < (ssize_t)sizeof rbuf &&
         shc__gw_read_all(g->req, rbuf + got, sizeof rbuf - (size_t)got, SHC_GW_REPLY_TIMEOUT_MS) != 0)) {
        if (fd >= 0)
            close(fd);
        if (lfd >= 0)
            close(lfd);
        return gone(g, err);
    }
    shc_gw_spawn_reply rep;
    memcpy(&rep, rbuf + sizeof(shc_gw_hdr), sizeof rep);
    if (rep.rc != 0 || fd < 0) {
        if (fd >= 0)
            close(fd);
        if (lfd >= 0)
            close(lfd);
        rep.stage[sizeof rep.stage - 1] = 0;
        rep.message[sizeof rep.message - 1] = 0;
        err->err = rep.err;
        err->stage = stage_name(rep.stage);
        snprintf(err->message, sizeof err->message, "%s", rep.message);
        return rep.rc ? rep.rc : SHC_E_IO;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    *pid = rep.pid;
    *master = fd;
    *listener = lfd;
    return 0;
}

/* A watch this kernel cannot give is left out: the command runs as it would anyway (the caller
 * sees no listener).  The probe is asked once; a child that still fails to watch stops it.  A
 * sandbox is never left out here: a child that cannot apply it fails to start ("confine"). */
int shc__guard_spawn(shc_guard *g, const shc_pty_opts *opts, const char *token, pid_t *pid,
                     int *master, int *listener, shc_pty_error *err)
{
    shc_pty_opts o = *opts;
    shc_confine_spec unwatched; /* the spec without the watch; a sandbox is never dropped */
    bool want = o.confine && (o.confine->flags & SHC_CONFINE_WATCH);
    if (want && !g->can_watch) {
        const char *why = NULL;
        g->can_watch = shc_confine_available(&why) ? 1 : -1;
    }
    if (want) {
        unwatched = *o.confine;
        unwatched.flags &= ~(unsigned)SHC_CONFINE_WATCH;
    }
    if (want && g->can_watch < 0)
        o.confine = unwatched.sandbox ? &unwatched : NULL;
    int rc = spawn(g, &o, token, pid, master, listener, err);
    if (rc && want && o.confine && (o.confine->flags & SHC_CONFINE_WATCH) && err->stage &&
        !strcmp(err->stage, "confine")) {
        g->can_watch = -1;
        o.confine = unwatched.sandbox ? &unwatched : NULL;
        memset(err, 0, sizeof *err);
        rc = spawn(g, &o, token, pid, master, listener, err);
    }
    return rc;
}

int shc__guard_finish(shc_guard *g, pid_t pid)
{
    if (g->lost)
        return SHC_E_IO;
    char buf[sizeof(shc_gw_hdr) + sizeof(int32_t)];
    shc_gw_hdr h = {SHC_GW_FINISH, sizeof(int32_t)};
    int32_t p = pid;
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, &p, sizeof p);
    int32_t rc = -1;
    shc__guard_nudge(g);
    if (shc__gw_write_all(g->req, buf, sizeof buf) != 0 ||
        wait_reply(g, g->req, SHC_GW_REPLY_TIMEOUT_MS) != 0 ||
        shc__gw_read_all(g->req, buf, sizeof buf, SHC_GW_REPLY_TIMEOUT_MS) != 0) {
        set_lost(g);
        return SHC_E_IO;
    }
    memcpy(&rc, buf + sizeof h, sizeof rc);
    return rc == 0 ? 0 : SHC_E_IO;
}

int shc__guard_alive(const shc_guard *g)
{
    return g && !g->lost;
}

pid_t shc__guard_pid(const shc_guard *g)
{
    return g ? g->pid : -1;
}

const char *shc__guard_containment(const shc_guard *g)
{
    return g ? g->containment : "";
}

void shc__guard_free(shc_guard *g)
{
    if (!g)
        return;
    if (g->w_ev > 0)
        shc_loop_unwatch(g->loop, g->w_ev);
    if (g->t_lost > 0)
        shc_loop_cancel_timer(g->loop, g->t_lost);
    close(g->req); /* the guardian sees EOF: it ends what it holds and exits */
    close(g->ev);
    for (int waited = 0; g->pid > 0;) {
        pid_t r = waitpid(g->pid, NULL, WNOHANG);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != 0)
            break;
        if (++waited == 5000) /* 5 s: it is stuck rather than cleaning up */
            kill(g->pid, SIGKILL);
        if (waited % 20 == 1)
            shc__guard_nudge(g);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    shc__cg_end(&g->cg); /* what a dead guardian could not end (nothing, when it could) */
    free(g);
}
