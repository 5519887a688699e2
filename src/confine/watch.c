/* The supervisor (confine.h): reads the watched command's notifications on the agent's loop,
 * describes each from the process's memory, and answers CONTINUE, or does the call itself (an
 * exempt object; a workspace sandbox's metadata call, which attrs.c checks).  Every notification
 * is answered before anything else is done with it, and the work per notification is a few
 * pread()s of /proc/PID/mem: a watched command never waits on us for long.  Several threads
 * (rg, git) may each have a notification pending: each is received and answered in turn. */
#define _GNU_SOURCE
#include "confine/confine.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "confine/object.h"
#include "confine/sandbox.h"
#include "confine/systab.h"
#include "confine/termwatch.h"

enum {
    BATCH = 64,     /* notifications handled per wake-up before the loop sees other fds */
    AT_CWD = -100,  /* AT_FDCWD as the kernel passes it */
    WRITE_FLAGS = 01 | 02 | 0100 | 01000 | 020000000,
};

/* What the supervisor answers. */
enum {
    D_NONE,  /* CONTINUE: no event */
    D_EVENT, /* CONTINUE: an event */
    D_FD,    /* the call is done here: an fd we opened goes in its place (the exempt objects) */
    D_RET,   /* the call is done here: its result is r (0 or -errno) */
};

struct shc_confine_watch {
    shc_loop *loop;
    int fd, wid;
    shc_confine_event_fn fn;
    void *payload;
    char *programs; /* owned copy of the spec's list */
    size_t programs_len;
    uint64_t count, profile;
    bool quiet; /* SHC_CONFINE_LOGIN: the profile still runs */
    pid_t leader; /* the command's first process (its login shell), or 0 */
    shc_obj obj;  /* the terminal, /dev/null, the named programs' files */
    bool no_addfd; /* the kernel cannot put an fd in the process (before 5.9) */
    long res;     /* D_FD: our fd, with cloexec; D_RET: the result */
    bool cloexec;
    bool watching;    /* SHC_CONFINE_WATCH: report events (else only the sandbox's answers) */
    shc__roots roots; /* workspace sandbox: where metadata may change (attrs.c) */
    bool sandboxed;
    struct seccomp_notif *n;
    struct seccomp_notif_resp *r;
    size_t nsz, rsz;
    shc__memreader *reader;
    int shared; /* the last exec checked: 0, or why another task could write its memory */
    shc__termw *term; /* opens of other terminals and named pipes (termwatch.c) */
};

/* ------------------------------------------------------------------ the target's memory */

typedef shc__target target_mem;

/* Reads a NUL-terminated string at addr into buf (cap > 0), cut at cap; false when a read
 * failed before its end (what came then is not what the command named). */
static bool read_str(const target_mem *mem, uint64_t addr, char *buf, size_t cap)
{
    if (shc__target_str(mem, addr, buf, cap) >= 0)
        return true;
    snprintf(buf, cap, "(unreadable)"); /* never the part that came: not what it named */
    return false;
}

static bool read_mem(const target_mem *mem, uint64_t addr, void *buf, size_t n)
{
    return addr && shc__target_read(mem, buf, n, addr);
}

/* Printable: control bytes become '?'. */
static void clean(char *s)
{
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* ------------------------------------------------------------------ what is not an event */

/* A named program: its word is on the command line (the basename), and the file the path
 * reaches in the command's own context is the one that word resolves to on the trusted PATH (by
 * device and inode: a PATH=./evil:$PATH cat is not cat).  A path the command's lookup cannot
 * resolve (execvp's tries) is answered with its errno here: nothing runs, and a name that only
 * the agent could not see gains nothing.  A path through a magic link is not named.  While a
 * login profile runs, every program is the profile's.  D_NONE, D_EVENT or D_RET (w->res). */
static int program_ok(shc_confine_watch *w, const char *path, pid_t pid, int dirfd)
{
    if (w->quiet)
        return D_NONE;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    bool named = false;
    for (size_t i = 0; i < w->programs_len && !named; i += strlen(w->programs + i) + 1)
        named = w->programs[i] && !strcmp(w->programs + i, base);
    if (!named)
        return D_EVENT;
    /* Named only when nothing else can write the caller's memory (and so the path we read) */
    if ((w->shared = shc__obj_sole_writer(w->leader, pid)) != 0)
        return D_EVENT;
    int fd = shc__obj_exec_open(pid, dirfd, path);
    if (fd == -ENOENT || fd == -ENOTDIR) {
        w->res = fd;
        return D_RET;
    }
    if (fd < 0)
        return D_EVENT;
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    bool ok = shc__obj_program_trusted(&w->obj, self);
    if (ok) /* the path may change before the kernel reads it: the next call checks the file */
        shc__obj_exec_expect(&w->obj, pid, self);
    close(fd);
    return ok ? D_NONE : D_EVENT;
}

/* Describes a sockaddr; false when it is no address at all. */
static bool sockaddr_text(const target_mem *mem, uint64_t addr, uint64_t len, char *out, size_t cap,
                          bool *unix_nss)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    *unix_nss = false;
    if (!addr || len < sizeof(sa_family_t))
        return false;
    size_t n = len > sizeof ss ? sizeof ss : (size_t)len;
    if (!read_mem(mem, addr, &ss, n)) {
        snprintf(out, cap, "(an address it would not let us read)");
        return true;
    }
    char ip[INET6_ADDRSTRLEN];
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)(const void *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        snprintf(out, cap, "%s:%u", ip, (unsigned)ntohs(a->sin_port));
    } else if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(const void *)&ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        snprintf(out, cap, "[%s]:%u", ip, (unsigned)ntohs(a->sin6_port));
    } else if (ss.ss_family == AF_UNIX) {
        const struct sockaddr_un *a = (const struct sockaddr_un *)(const void *)&ss;
        size_t pl = n - offsetof(struct sockaddr_un, sun_path);
        char p[sizeof a->sun_path + 1];
        memcpy(p, a->sun_path, pl < sizeof a->sun_path ? pl : sizeof a->sun_path);
        p[pl < sizeof a->sun_path ? pl : sizeof a->sun_path] = 0;
        if (pl > 0 && p[0] == 0) {
            p[0] = '@'; /* abstract */
        }
        *unix_nss = shc__obj_nss_socket(p);
        snprintf(out, cap, "unix:%s", p);
    } else if (ss.ss_family == AF_NETLINK) {
        snprintf(out, cap, "netlink");
    } else {
        snprintf(out, cap, "address family %u", (unsigned)ss.ss_family);
    }
    return true;
}

/* A write-open (open, openat, creat).  flags are the call's own (a register: no race).  Its
 * path is read from memory, which another thread may change before the kernel reads it: so an
 * exemption is never a CONTINUE on that text.  When the text names /dev/null or the terminal
 * (itself, or a descriptor that is one of them now), we open that object here and put our fd in
 * the process (SECCOMP_IOCTL_NOTIF_ADDFD): the kernel never reads the path.  Anything else is an
 * event. */
static int write_open(shc_confine_watch *w, const struct seccomp_notif *n, const shc_sysent *e,
                      const target_mem *mem, shc_confine_event *ev)
{
    const struct seccomp_data *d = &n->data;
    unsigned flags = e->when == SHC_SC_OPEN_ARG1   ? (unsigned)d->args[1]
                     : e->when == SHC_SC_OPEN_ARG2 ? (unsigned)d->args[2]
                                                   : (unsigned)(O_CREAT | O_WRONLY | O_TRUNC);
    char *p = ev->detail;
    if (!read_str(mem, d->args[e->path], p, sizeof ev->detail))
        return D_EVENT;
    if (w->quiet && ev->pid == w->leader && !strcmp(p, SHC_CONFINE_PROFILE_END)) {
        w->quiet = false; /* the profile is over: the command's own text starts here */
        return D_NONE;
    }
    int obj = p[0] == '/' ? shc__obj_write_open(&w->obj, ev->pid, p, flags) : SHC_OBJ_OTHER;
    if (obj != SHC_OBJ_OTHER && !w->no_addfd) {
        w->res = shc__obj_open(&w->obj, obj, flags);
        w->cloexec = (flags & O_CLOEXEC) != 0;
        return w->res >= 0 ? D_FD : D_RET;
    }
    if (obj != SHC_OBJ_OTHER)
        return D_NONE; /* a kernel without ADDFD: the old exemption (docs: Limits) */
    shc__obj_absolutise(ev->pid, e->dirfd >= 0 ? (int)d->args[e->dirfd] : AT_CWD, p, sizeof ev->detail);
    return D_EVENT;
}

/* Fills ev from notification n and says what to answer (D_*). */
static int describe(shc_confine_watch *w, const struct seccomp_notif *n, const target_mem *mem,
                    shc_confine_event *ev)
{
    const struct seccomp_data *d = &n->data;
    ev->pid = (pid_t)n->pid;
    ev->detail[0] = 0;
    const shc_sysent *e = shc__confine_sys(d->nr);
#if defined(__x86_64__)
    bool native = d->arch == AUDIT_ARCH_X86_64 && d->nr < 0x40000000;
#else
    bool native = d->arch == AUDIT_ARCH_AARCH64;
#endif
    if (!native || !e) {
        ev->what = "abi";
        ev->syscall = "syscall";
        snprintf(ev->detail, sizeof ev->detail, "a system call of another ABI (arch 0x%x, %d)",
                 (unsigned)d->arch, d->nr);
        return D_EVENT;
    }
    ev->what = e->what;
    ev->syscall = e->name;
    char *p = ev->detail;
    size_t cap = sizeof ev->detail;
    bool unix_nss = false;
    switch (e->describe) {
    case SHC_SD_EXEC: {
        char prog[PATH_MAX];
        int dirfd = e->dirfd >= 0 ? (int)d->args[e->dirfd] : AT_CWD, r = D_EVENT;
        w->shared = 0;
        if (!read_str(mem, d->args[e->path], prog, sizeof prog) || strlen(prog) >= PATH_MAX - 1)
            snprintf(prog, sizeof prog, "(a program it would not let us read)");
        else if ((r = program_ok(w, prog, ev->pid, dirfd)) != D_EVENT)
            return r;
        size_t l = strnlen(prog, cap - 1); /* shown cut to the detail's size */
        memcpy(p, prog, l);
        p[l] = 0;
        shc__obj_absolutise(ev->pid, dirfd, p, cap);
        if (w->shared) { /* a named program, but the path could be another by now */
            const char *pre = "ran a program from a process that shares its memory: ";
            size_t pl = strlen(pre), pathl = strnlen(p, cap - 1 - pl);
            memmove(p + pl, p, pathl);
            memcpy(p, pre, pl);
            p[pl + pathl] = 0;
        }
        return D_EVENT;
    }
    case SHC_SD_OPENAT2: /* its flags live in memory, where they can change after our read */
        if (read_str(mem, d->args[1], p, cap))
            shc__obj_absolutise(ev->pid, (int)d->args[0], p, cap);
        return D_EVENT;
    case SHC_SD_PATH: {
        if (!strcmp(e->what, "write"))
            return write_open(w, n, e, mem, ev);
        bool got = read_str(mem, d->args[e->path], p, cap);
        if (got && p[0])
            shc__obj_absolutise(ev->pid, e->dirfd >= 0 ? (int)d->args[e->dirfd] : AT_CWD, p, cap);
        else if (e->dirfd >= 0 && (!d->args[e->path] || got)) /* NULL or "" (AT_EMPTY_PATH) */
            shc__obj_fd_path(ev->pid, (int)d->args[e->dirfd], p, cap); /* utimensat(fd, NULL): the fd's file */
        return D_EVENT;
    }
    case SHC_SD_FD:
        shc__obj_fd_path(ev->pid, (int)d->args[e->dirfd], p, cap);
        return D_EVENT;
    case SHC_SD_DOMAIN:
        snprintf(p, cap, "a socket of address family %u", (unsigned)d->args[0]);
        return D_EVENT;
    case SHC_SD_IOCTL: {
        /* its own terminal's settings are its own (a pager's modes, its window size) */
        static const unsigned own[] = {0x5402, 0x5403, 0x5404, 0x5406, 0x5407, 0x5408, 0x5409,
                                       0x540A, 0x540B, 0x5410, 0x5414};
        unsigned cmd = (unsigned)d->args[1];
        snprintf(p, cap, "ioctl 0x%x", cmd);
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            if (cmd == own[i] && shc__obj_fd_is_tty(&w->obj, ev->pid, (long)(int)d->args[0]))
                return D_NONE;
        return D_EVENT;
    }
    case SHC_SD_FCNTL: {
        unsigned cmd = (unsigned)d->args[1];
        long owner = (long)(int)d->args[2];
        snprintf(p, cap, "fcntl %s %ld",
                 cmd == 8 ? "F_SETOWN" : cmd == 15 ? "F_SETOWN_EX" : cmd == 10 ? "F_SETSIG"
                                                                         : cmd == 1024 ? "F_SETLEASE" : "F_SETLK (a lock)",
                 owner);
        if (cmd == 8 && (owner == 0 || (w->leader && (owner > 0 ? shc__obj_in_tree(w->leader,
                                                                                ev->pid, (pid_t)owner)
                                                                 : -owner == w->leader))))
            return D_NONE; /* SIGIO to its own processes */
        return D_EVENT;
    }
    case SHC_SD_EXIT:
        return shc__obj_exit_held(&w->obj, ev->pid, p, cap) ? D_EVENT : D_NONE;
    case SHC_SD_TTYREAD:
        if (!shc__obj_fd_is_tty(&w->obj, ev->pid, (long)(int)d->args[0]))
            return D_NONE;
        snprintf(p, cap, "read the terminal (descriptor %d)", (int)d->args[0]);
        return D_EVENT;
    case SHC_SD_SIGNAL: {
        long target = (long)(int)d->args[e->dirfd], sig = (long)(int)d->args[e->path];
        snprintf(p, cap, "signal %ld to %ld", sig, target);
        return shc__obj_signal_outside(w->leader, ev->pid, !strcmp(e->name, "kill"), target, sig)
                   ? D_EVENT
                   : D_NONE;
    }
    case SHC_SD_PID: { /* a process's settings: its own tree's are its own */
        bool prio = !strcmp(e->name, "setpriority"), io = !strcmp(e->name, "ioprio_set");
        /* which: 0 a process, 1 a process group, 2 a user (ioprio_set counts from 1) */
        long which = prio ? (long)(int)d->args[0] : io ? (long)(int)d->args[0] - 1 : 0;
        long target = (long)(int)d->args[e->dirfd];
        snprintf(p, cap, "%s of %s %ld", e->name, which ? "group or user" : "process", target);
        if (target == 0 && which <= 1)
            return D_NONE;
        return which == 0 && w->leader && shc__obj_in_tree(w->leader, ev->pid, (pid_t)target)
                   ? D_NONE
                   : D_EVENT;
    }
    case SHC_SD_SOCK:
        if (!sockaddr_text(mem, d->args[e->path], d->args[e->dirfd], p, cap, &unix_nss))
            return strcmp(e->name, "sendto") == 0 ? D_NONE : D_EVENT;
        if (unix_nss && !strcmp(e->name, "connect")) {
            /* the address we checked is the one used: the connect is done here, on its socket */
            w->res = shc__obj_connect(ev->pid, (long)(int)d->args[0], p + 5);
            return w->res == -ESRCH || w->res == -EBADF ? D_EVENT : D_RET;
        }
        return D_EVENT;
    case SHC_SD_MSG: {
        if (!strcmp(e->name, "sendmmsg")) { /* no card tool sends batches: no header is read */
            snprintf(p, cap, "%u messages at once", (unsigned)d->args[2]);
            return D_EVENT;
        }
        struct {
            uint64_t name;
            uint32_t namelen;
        } h = {0, 0};
        if (!read_mem(mem, d->args[1], &h, sizeof h))
            return D_EVENT;
        if ((!h.name || !h.namelen) && shc__obj_sock_connected(ev->pid, (long)(int)d->args[0]))
            return D_NONE; /* a connected socket: no address given */
        if (!h.name || !h.namelen) { /* an address may be filled in after our read */
            snprintf(p, cap, "a socket that is not connected");
            return D_EVENT;
        }
        return sockaddr_text(mem, h.name, h.namelen, p, cap, &unix_nss) ? D_EVENT : D_NONE;
    }
    default:
        if (!strcmp(e->name, "clone"))
            snprintf(p, cap, "new namespaces (flags 0x%llx)", (unsigned long long)d->args[0]);
        return D_EVENT;
    }
}

/* ------------------------------------------------------------------ the loop */

static void answer(shc_confine_watch *w, uint64_t id)
{
    memset(w->r, 0, w->rsz);
    w->r->id = id;
    w->r->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    while (ioctl(w->fd, SECCOMP_IOCTL_NOTIF_SEND, w->r) != 0 && errno == EINTR)
        ;
    w->count++;
}

/* Answers with a result of our own: 0 or -errno. */
static void answer_ret(shc_confine_watch *w, uint64_t id, long r)
{
    memset(w->r, 0, w->rsz);
    w->r->id = id;
    w->r->val = r < 0 ? -1 : r;
    w->r->error = r < 0 ? (int)r : 0;
    while (ioctl(w->fd, SECCOMP_IOCTL_NOTIF_SEND, w->r) != 0 && errno == EINTR)
        ;
    w->count++;
}

/* Puts our fd (w->r) in the process as the call's result.  A kernel before 5.14 adds it first
 * and is then answered with its number; one before 5.9 cannot: CONTINUE (and no_addfd). */
static void put_fd(shc_confine_watch *w, uint64_t id)
{
    struct seccomp_notif_addfd a;
    memset(&a, 0, sizeof a);
    a.id = id;
    a.flags = SECCOMP_ADDFD_FLAG_SEND;
    a.srcfd = (uint32_t)w->res;
    a.newfd_flags = w->cloexec ? O_CLOEXEC : 0;
    int rc;
    while ((rc = ioctl(w->fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a)) < 0 && errno == EINTR)
        ;
    if (rc >= 0) {
        w->count++;
        return;
    }
    if (errno == EINVAL) { /* no SEND flag: add, then answer with the number */
        a.flags = 0;
        while ((rc = ioctl(w->fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a)) < 0 && errno == EINTR)
            ;
        if (rc >= 0) {
            answer_ret(w, id, rc);
            return;
        }
    }
    if (errno == ENOTTY || errno == EINVAL)
        w->no_addfd = true;
    answer(w, id);
}

static void stop(shc_confine_watch *w)
{
    if (w->wid > 0)
        shc_loop_unwatch(w->loop, w->wid);
    w->wid = 0;
}

/* Returns false when nothing was pending (or the listener is finished). */
static bool one(shc_confine_watch *w)
{
    struct pollfd pf = {w->fd, POLLIN, 0};
    if (poll(&pf, 1, 0) <= 0)
        return false;
    if (!(pf.revents & POLLIN)) {
        if (pf.revents & (POLLHUP | POLLERR | POLLNVAL))
            stop(w); /* every watched process is gone */
        return false;
    }
    memset(w->n, 0, w->nsz);
    if (ioctl(w->fd, SECCOMP_IOCTL_NOTIF_RECV, w->n) != 0)
        return errno == EINTR || errno == ENOENT; /* ENOENT: its process went away meanwhile */
    uint64_t id = w->n->id;
    target_mem tm;
    shc__target_open(&tm, (pid_t)w->n->pid, w->reader);
    shc_confine_event ev, ran = {"exec", "execve", (pid_t)w->n->pid, ""};
    bool other = !w->quiet && shc__obj_exec_check(&w->obj, ran.pid, ran.detail, sizeof ran.detail);
    w->res = -1;
    /* Arguments in a page of a FUSE or network file system are never read (memread.c), nor
     * anything once the watch has left as many stuck readers as it may: the call is refused,
     * and reported.  Then the workspace sandbox's metadata rule: the
     * supervisor makes the call itself on the file it checked (res 0), or refuses it (an
     * errno): a refused call changed nothing. */
    uint64_t args[6];
    for (size_t i = 0; i < 6; i++)
        args[i] = w->n->data.args[i];
    bool remote = tm.mem >= 0 && (shc__memreader_full(w->reader) || shc__mem_remote(&tm, args, 6));
    int res = remote         ? EFAULT
              : w->sandboxed ? shc__attr_decide((const char *const *)w->roots.dirs, w->roots.n,
                                                w->n, &tm)
                             : -1;
    int disp = !remote && res <= 0 && w->watching ? describe(w, w->n, &tm, &ev) : D_NONE;
    const shc_sysent *se = w->term && !remote ? shc__confine_sys(w->n->data.nr) : NULL;
    if (se && se->describe == SHC_SD_EXEC) /* the pipes and devices its arguments name */
        shc__termw_exec(w->term, &tm, (pid_t)w->n->pid, w->n->data.args[se->path + 1]);
    bool is_event = disp == D_EVENT;
    if (remote && w->watching) {
        is_event = true;
        ev = (shc_confine_event){.what = "remote", .syscall = "syscall", .pid = (pid_t)w->n->pid};
        const shc_sysent *e = shc__confine_sys(w->n->data.nr);
        ev.syscall = e ? e->name : ev.syscall;
    }
    shc__target_close(&tm);
    /* What we read is the call's only if the notification is still pending now. */
    bool valid = ioctl(w->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
    if (res >= 0)
        answer_ret(w, id, -res);
    else if (disp == D_FD && valid)
        put_fd(w, id);
    else if (disp == D_RET && valid)
        answer_ret(w, id, w->res);
    else
        answer(w, id);
    if (disp == D_FD && w->res >= 0)
        close((int)w->res);
    if (is_event && valid && w->quiet) {
        w->profile++;
        return true;
    }
    if (other) {
        clean(ran.detail); /* an accepted exec ran another file than the one checked */
        w->fn(&ran, w->payload);
    }
    if (is_event && valid) {
        clean(ev.detail);
        w->fn(&ev, w->payload);
    }
    if (se && se->describe == SHC_SD_EXIT) /* what it opened and closed before its end */
        shc__termw_drain(w->term);
    return true;
}

static void on_ready(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)fd;
    (void)events;
    shc_confine_watch *w = payload;
    for (int i = 0; i < BATCH && w->wid > 0 && one(w); i++)
        ;
}

shc_confine_watch *shc_confine_watch_new(shc_loop *loop, int listener, pid_t leader,
                                         const shc_confine_spec *spec, shc_confine_event_fn fn,
                                         void *payload)
{
    shc_confine_watch *w = calloc(1, sizeof *w);
    struct seccomp_notif_sizes sz;
    if (!w || syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
        goto fail;
    w->loop = loop;
    w->fd = listener;
    w->leader = leader;
    w->fn = fn;
    w->payload = payload;
    w->nsz = sz.seccomp_notif > sizeof *w->n ? sz.seccomp_notif : sizeof *w->n;
    w->rsz = sz.seccomp_notif_resp > sizeof *w->r ? sz.seccomp_notif_resp : sizeof *w->r;
    w->n = calloc(1, w->nsz);
    w->r = calloc(1, w->rsz);
    w->reader = shc__memreader_new();
    if (!w->n || !w->r || !w->reader)
        goto fail;
    if (spec && spec->programs_len) {
        if (!(w->programs = malloc(spec->programs_len)))
            goto fail;
        memcpy(w->programs, spec->programs, spec->programs_len);
        w->programs_len = spec->programs_len;
    }
    w->quiet = spec && (spec->flags & SHC_CONFINE_LOGIN);
    w->watching = spec && (spec->flags & SHC_CONFINE_WATCH);
    w->sandboxed = spec && spec->sandbox == SHC_SANDBOX_WORKSPACE;
    if (w->sandboxed && shc__roots_init(&w->roots, spec) != 0)
        goto fail;
    shc__obj_init(&w->obj);
    shc__obj_programs(&w->obj, w->programs, w->programs_len);
    if (w->watching)
        w->term = shc__termw_new(loop, &w->obj, leader, &w->quiet, fn, payload);
    fcntl(listener, F_SETFD, FD_CLOEXEC);
    w->wid = shc_loop_watch(loop, listener, SHC_LOOP_READ, on_ready, w);
    if (w->wid <= 0)
        goto fail;
    return w;
fail:
    if (w) {
        shc__termw_free(w->term);
        shc__memreader_free(w->reader);
        free(w->n);
        free(w->r);
        free(w->programs);
        shc__roots_free(&w->roots);
        free(w);
    }
    close(listener);
    return NULL;
}

void shc_confine_watch_tty(shc_confine_watch *w, const char *pts)
{
    if (w)
        shc__obj_tty(&w->obj, pts);
}

bool shc_confine_watch_quiet(const shc_confine_watch *w)
{
    return w && w->quiet;
}

uint64_t shc_confine_watch_profile(const shc_confine_watch *w)
{
    return w ? w->profile : 0;
}

uint64_t shc_confine_watch_count(const shc_confine_watch *w)
{
    return w ? w->count : 0;
}

void shc_confine_watch_free(shc_confine_watch *w)
{
    if (!w)
        return;
    if (w->wid > 0) {
        for (int i = 0; i < BATCH * 16 && one(w); i++)
            ; /* answer what waits: a call left pending would fail with ENOSYS */
    }
    stop(w);
    shc__termw_free(w->term);
    close(w->fd);
    shc__memreader_free(w->reader);
    free(w->n);
    free(w->r);
    free(w->programs);
    shc__roots_free(&w->roots);
    free(w);
}
