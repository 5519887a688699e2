/* The guardian process (guard.h): it forks every command, keeps each leader unreaped until the
 * executor is done with it, reports exits, sweeps orphans, and when its agent dies ends every
 * process group and every descendant it holds. */
#define _GNU_SOURCE
#include "exec/guard_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/signame.h"
#include "exec/adopt.h"
#include "exec/cgroup.h"
#include "confine/confine.h"
#include "exec/pty_spawn.h"
#include "exec/syscalls.h"
#include "exec/sweep.h"
#include "shcard.h"

/* ---------------------------------------------------------------- byte helpers */

int shc__gw_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int shc__gw_read_all(int fd, void *buf, size_t n, int timeout_ms)
{
    char *p = buf;
    while (n > 0) {
        if (timeout_ms >= 0) {
            struct pollfd pf = {fd, POLLIN, 0};
            int r = poll(&pf, 1, timeout_ms);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return -1;
        }
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

/* Reads a string written by put_str; NULL when absent or malformed (*ok cleared then). */
static const char *get_str(const char **r, const char *end, bool *ok)
{
    uint32_t n;
    if ((size_t)(end - *r) < sizeof n) {
        *ok = false;
        return NULL;
    }
    memcpy(&n, *r, sizeof n);
    *r += sizeof n;
    if (!n)
        return NULL;
    if ((size_t)(end - *r) < n || (*r)[n - 1] != 0) {
        *ok = false;
        return NULL;
    }
    const char *s = *r;
    *r += n;
    return s;
}

/* ---------------------------------------------------------------- the guardian process */

typedef struct leader {
    pid_t pid;
    unsigned long cg; /* its cgroup cmd-<cg>, or 0 */
    int pidfd;     /* -1 without pidfd, or once the exit was reported */
    bool reported; /* its exit event was sent */
    char *token;   /* owned: the SHCARD_CMD_ID entry its processes carry */
} leader;

typedef struct gstate {
    int req, ev, sigfd;
    pid_t agent;
    bool nopidfd;
    leader *l;
    size_t n, cap;
    shc_cg cg;       /* the commands' cgroups (cgroup.h), when cg.on */
    unsigned long seq;
    shc_lead *leads; /* parallel to l, for the process-tree containment (adopt.h) */
    shc_adopt adopt;
} gstate;

/* The leads array kept in step with l (NULL when out of memory: the tree rule then waits). */
static void sync_leads(gstate *g)
{
    bool fresh = !g->leads;
    shc_lead *nl = realloc(g->leads, (g->cap ? g->cap : 1) * sizeof *nl);
    if (!nl) {
        free(g->leads);
        g->leads = NULL;
        return;
    }
    g->leads = nl;
    for (size_t i = 0; fresh && i < g->n; i++)
        nl[i] = (shc_lead){g->l[i].pid, shc__proc_start(g->l[i].pid), false};
}

/* The agent is gone (or the guardian must stop): every group, every descendant, then exit. */
static _Noreturn void end_everything(gstate *g)
{
    for (size_t i = 0; i < g->n; i++) {
        kill(-g->l[i].pid, SIGKILL);
        kill(g->l[i].pid, SIGKILL);
    }
    shc__cg_end(&g->cg); /* every command's cgroup, whoever is in it */
    shc__kill_descendants();
    _exit(0);
}

static void report_exits(gstate *g)
{
    for (size_t i = 0; i < g->n; i++) {
        leader *x = &g->l[i];
        if (x->reported)
            continue;
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)x->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
            continue;
        shc_gw_exit_event e = {x->pid, si.si_code, si.si_status};
        x->reported = true;
        if (x->pidfd >= 0)
            close(x->pidfd);
        x->pidfd = -1;
        if (shc__gw_write_all(g->ev, &e, sizeof e) != 0)
            end_everything(g); /* the agent is gone */
    }
}

static pid_t *leader_pids(const gstate *g, size_t *n)
{
    pid_t *keep = malloc((g->n + 1) * sizeof *keep);
    *n = 0;
    if (keep)
        for (size_t i = 0; i < g->n; i++)
            keep[(*n)++] = g->l[i].pid;
    return keep;
}

static void do_spawn(gstate *g, const char *body, size_t len)
{
    const char *r = body, *end = body + len;
    bool ok = len >= 8;
    shc_gw_spawn_reply rep;
    memset(&rep, 0, sizeof rep);
    shc_pty_opts o;
    memset(&o, 0, sizeof o);
    const char *token = NULL;
    const char **env = NULL, **args = NULL;
    shc_confine_spec spec;
    bool has_spec = false;
    if (ok) {
        o.login = r[0] != 0;
        o.color = r[1] != 0;
        uint16_t cr[2];
        memcpy(cr, r + 2, sizeof cr);
        o.cols = cr[0];
        o.rows = cr[1];
        r += 8;
        o.command = get_str(&r, end, &ok);
        o.shell = get_str(&r, end, &ok);
        o.cwd = get_str(&r, end, &ok);
        token = get_str(&r, end, &ok);
        uint32_t nenv = 0;
        if (ok && (size_t)(end - r) >= sizeof nenv) {
            memcpy(&nenv, r, sizeof nenv);
            r += sizeof nenv;
        } else {
            ok = false;
        }
        if (ok && nenv <= len / 4 && (env = calloc((size_t)nenv + 1, sizeof *env)) != NULL) {
            for (uint32_t i = 0; i < nenv && ok; i++)
                env[i] = get_str(&r, end, &ok);
            o.env = env;
        } else {
            ok = false;
        }
        uint32_t speclen = 0;
        if (ok && (size_t)(end - r) >= sizeof speclen) {
            memcpy(&speclen, r, sizeof speclen);
            r += sizeof speclen;
            if (speclen && ((size_t)(end - r) < speclen ||
                            shc_confine_unpack(&spec, r, speclen) != 0))
                ok = false;
            has_spec = speclen != 0;
            if (ok)
                r += speclen;
        } else {
            ok = false;
        }
        uint32_t nargs = 0;
        if (ok && (size_t)(end - r) >= sizeof nargs) {
            memcpy(&nargs, r, sizeof nargs);
            r += sizeof nargs;
        } else {
            ok = false;
        }
        if (ok && nargs && nargs <= len / 4 &&
            (args = calloc((size_t)nargs + 1, sizeof *args)) != NULL) {
            for (uint32_t i = 0; i < nargs && ok; i++)
                if (!(args[i] = get_str(&r, end, &ok)))
                    ok = false; /* a word is never NULL */
            o.args = args;
        } else if (nargs) {
            ok = false;
        }
    }
    pid_t pid = -1;
    int master = -1, listener = -1;
    shc_pty_error err;
    memset(&err, 0, sizeof err);
    if (!ok || !o.command || !token) {
        rep.rc = SHC_E_USAGE;
        rep.err = EINVAL;
        snprintf(rep.stage, sizeof rep.stage, "args");
        snprintf(rep.message, sizeof rep.message, "malformed spawn request");
    } else {
        if (g->n == g->cap) {
            size_t cap = g->cap ? g->cap * 2 : 16;
            leader *l = realloc(g->l, cap * sizeof *l);
            if (l) {
                g->l = l;
                g->cap = cap;
            }
        }
        char *tok = strdup(token);
        if (g->n == g->cap || !tok) {
            free(tok);
            rep.rc = SHC_E_NOMEM;
            rep.err = ENOMEM;
            snprintf(rep.stage, sizeof rep.stage, "nomem");
            snprintf(rep.message, sizeof rep.message, "out of memory");
        } else {
            unsigned long id = ++g->seq;
            int cgfd = shc__cg_cmd_open(&g->cg, id);
            rep.rc = shc__pty_fork(&pid, &master, &listener, &o, has_spec ? &spec : NULL, token,
                                   cgfd, &err);
            if (cgfd >= 0)
                close(cgfd);
            if (rep.rc != 0 && cgfd >= 0 && err.stage && !strcmp(err.stage, "cgroup")) {
                shc__cg_cmd_end(&g->cg, id); /* cannot move into it: the process tree only */
                shc__cg_end(&g->cg);
                cgfd = -1;
                rep.rc = shc__pty_fork(&pid, &master, &listener, &o, has_spec ? &spec : NULL,
                                       token, -1, &err);
            }
            sync_leads(g);
            if (rep.rc == 0 && !g->leads) {
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                    ;
                close(master);
                master = -1;
                if (listener >= 0)
                    close(listener);
                listener = -1;
                if (cgfd >= 0)
                    shc__cg_cmd_end(&g->cg, id);
                rep.rc = SHC_E_NOMEM;
                err.err = ENOMEM;
                err.stage = "nomem";
                snprintf(err.message, sizeof err.message, "out of memory");
            }
            if (rep.rc == 0) {
                g->leads[g->n] = (shc_lead){pid, shc__proc_start(pid), false};
                leader *x = &g->l[g->n++];
                x->pid = pid;
                x->cg = cgfd >= 0 ? id : 0;
                x->token = tok;
                x->reported = false;
                x->pidfd = g->nopidfd ? -1 : shc__pidfd_open(pid, 0);
                if (x->pidfd < 0)
                    g->nopidfd = true; /* no pidfd here: SIGCHLD and the safety poll */
                rep.pid = pid;
            } else {
                free(tok);
                if (cgfd >= 0)
                    shc__cg_cmd_end(&g->cg, id);
                rep.err = err.err;
                snprintf(rep.stage, sizeof rep.stage, "%s", err.stage ? err.stage : "spawn");
                snprintf(rep.message, sizeof rep.message, "%s", err.message);
            }
        }
    }
    free(env);
    free(args);
    shc_gw_hdr h = {SHC_GW_SPAWN, sizeof rep};
    char buf[sizeof h + sizeof rep];
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, &rep, sizeof rep);
    struct iovec iov = {buf, sizeof buf};
    union {
        struct cmsghdr c;
        char space[CMSG_SPACE(2 * sizeof(int))];
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (master >= 0) { /* the master, and the watch's listener after it when there is one */
        int nfd = listener >= 0 ? 2 : 1;
        int fds[2] = {master, listener};
        mh.msg_control = cm.space;
        mh.msg_controllen = CMSG_SPACE((size_t)nfd * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)nfd * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfd * sizeof(int));
    }
    ssize_t w;
    do
        w = sendmsg(g->req, &mh, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (master >= 0)
        close(master); /* the agent holds the only master: closing it hangs stragglers up */
    if (listener >= 0)
        close(listener); /* the agent's loop answers the watch from now on */
    if (w != (ssize_t)sizeof buf)
        end_everything(g);
}

static void do_finish(gstate *g, const char *body, size_t len)
{
    int32_t rc = -1, pid = 0;
    if (len == sizeof pid)
        memcpy(&pid, body, sizeof pid);
    for (size_t i = 0; pid > 0 && i < g->n; i++) {
        if (g->l[i].pid != pid)
            continue;
        leader x = g->l[i];
        kill(-x.pid, SIGKILL);
        kill(x.pid, SIGKILL);
        if (x.cg)
            shc__cg_cmd_end(&g->cg, x.cg); /* everything it started, wherever it went */
        if (g->leads)
            shc__adopt_end(&g->adopt, x.pid, g->leads, g->n);
        size_t nkeep = 0;
        pid_t *keep = leader_pids(g, &nkeep); /* every leader, this one included: reaped below */
        shc__sweep(x.pid, x.token, keep, keep ? nkeep : 0);
        free(keep);
        /* Reaped within a bound: a process stuck in the kernel (a page of a FUSE file system
         * that never answers) outlives SIGKILL; the orphan sweep reaps it once it ends. */
        for (int t = 0; t < 50 && waitpid(x.pid, NULL, WNOHANG) == 0; t++) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
        if (x.pidfd >= 0)
            close(x.pidfd);
        free(x.token);
        if (g->leads)
            g->leads[i] = g->leads[g->n - 1];
        g->l[i] = g->l[--g->n];
        rc = 0;
        break;
    }
    shc_gw_hdr h = {SHC_GW_FINISH, sizeof rc};
    char buf[sizeof h + sizeof rc];
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, &rc, sizeof rc);
    if (shc__gw_write_all(g->req, buf, sizeof buf) != 0)
        end_everything(g);
}

static void handle_request(gstate *g)
{
    shc_gw_hdr h;
    if (shc__gw_read_all(g->req, &h, sizeof h, -1) != 0 || h.len > SHC_GW_MAX_REQUEST)
        end_everything(g); /* the agent closed its end (or died): nothing must outlive it */
    char *body = malloc(h.len ? h.len : 1);
    if (!body || shc__gw_read_all(g->req, body, h.len, -1) != 0)
        end_everything(g);
    if (h.type == SHC_GW_SPAWN)
        do_spawn(g, body, h.len);
    else if (h.type == SHC_GW_FINISH)
        do_finish(g, body, h.len);
    else
        end_everything(g);
    free(body);
}

static void on_signals(gstate *g)
{
    struct signalfd_siginfo si;
    bool child = false;
    while (read(g->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCONT && getppid() != g->agent)
            end_everything(g); /* PR_SET_PDEATHSIG: the agent died */
        if (si.ssi_signo == SIGCHLD)
            child = true;
    }
    if (child) {
        size_t nkeep = 0;
        pid_t *keep = leader_pids(g, &nkeep);
        shc__reap_orphans(keep, keep ? nkeep : 0); /* leaders stay zombies until finish */
        free(keep);
    }
}

_Noreturn void shc__guardian_main(int req, int ev, pid_t agent, const shc_cg *cg)
{
    setsid(); /* out of the agent's process group and session: their signals don't reach us */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    prctl(PR_SET_NAME, "shcard-guard", 0, 0, 0);
    /* Terminating signals are ignored (the guardian ends when its agent does, not before);
     * everything else is back to its default.  Commands reset all of it before exec. */
    sigset_t term;
    shc_signal_terminating(&term);
    for (int s = 1; s < NSIG; s++) {
        if (s == SIGKILL || s == SIGSTOP)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        /* job-control stops from a terminal make no sense here: ignored too */
        bool ign = sigismember(&term, s) || s == SIGTSTP || s == SIGTTIN || s == SIGTTOU;
        sa.sa_handler = ign ? SIG_IGN : SIG_DFL;
        sigaction(s, &sa, NULL);
    }
    sigset_t mine;
    sigemptyset(&mine);
    sigaddset(&mine, SIGCHLD);
    sigaddset(&mine, SIGCONT);
    sigprocmask(SIG_SETMASK, &mine, NULL);
    /* SIGCONT when the agent dies: it wakes us even if a command stopped us (kill -STOP is
     * the one signal we cannot refuse, and a stopped process acts on nothing else). */
    prctl(PR_SET_PDEATHSIG, SIGCONT, 0, 0, 0);
    int sigfd = signalfd(-1, &mine, SFD_NONBLOCK | SFD_CLOEXEC);
    /* Hold nothing of the agent's: not its stdin/stdout (the client must see EOF when the agent
     * dies), not its other fds (PTY masters of running commands).  stderr stays for messages. */
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    int fds[3] = {fcntl(req, F_DUPFD_CLOEXEC, 10), fcntl(ev, F_DUPFD_CLOEXEC, 10),
                  fcntl(sigfd, F_DUPFD_CLOEXEC, 10)};
    if (nul < 0 || fds[0] < 0 || fds[1] < 0 || fds[2] < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0)
        _exit(1);
    for (int i = 0; i < 3; i++)
        if (dup3(fds[i], 3 + i, O_CLOEXEC) < 0)
            _exit(1);
    if (shc__close_range(6, ~0U, 0) != 0)
        for (int fd = 6; fd < 1024; fd++)
            close(fd);
    const char *np = getenv("SHC_EXEC_NO_PIDFD"); /* tests force the fallback */
    gstate g;
    memset(&g, 0, sizeof g);
    g.req = 3;
    g.ev = 4;
    g.sigfd = 5;
    g.agent = agent;
    g.nopidfd = np && *np == '1';
    g.cg = *cg;
    if (getppid() != agent || sigfd < 0)
        end_everything(&g);
    for (;;) {
        struct pollfd *pf = malloc((g.n + 2) * sizeof *pf);
        if (!pf)
            end_everything(&g);
        nfds_t n = 0;
        pf[n++] = (struct pollfd){g.req, POLLIN, 0};
        pf[n++] = (struct pollfd){g.sigfd, POLLIN, 0};
        for (size_t i = 0; i < g.n; i++)
            if (g.l[i].pidfd >= 0)
                pf[n++] = (struct pollfd){g.l[i].pidfd, POLLIN, 0};
        int r = poll(pf, n, g.nopidfd ? SHC_GW_POLL_FALLBACK_MS : -1);
        bool req_ready = r > 0 && pf[0].revents;
        bool sig_ready = r > 0 && pf[1].revents;
        free(pf);
        if (r < 0 && errno != EINTR)
            end_everything(&g);
        if (g.leads)
            shc__adopt_scan(&g.adopt, g.leads, g.n); /* before anything reaps a dead one */
        if (sig_ready)
            on_signals(&g);
        report_exits(&g); /* cheap: one waitid per unreported leader */
        if (req_ready)
            handle_request(&g);
    }
}

