/* The supervisor (confine.h): reads the watched command's notifications on the agent's loop,
 * describes each from the process's memory, and answers CONTINUE (a workspace sandbox's
 * metadata call is answered by attrs.c instead: done by us on the file it checked, or refused).  Every notification
 * is answered before anything else is done with it, and the work per notification is a few
 * pread()s of /proc/PID/mem: a watched command never waits on us for long.  Several threads
 * (rg, git) may each have a notification pending: each is received and answered in turn. */
#define _GNU_SOURCE
#include "confine/confine.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "confine/sandbox.h"
#include "confine/systab.h"

enum {
    BATCH = 64,     /* notifications handled per wake-up before the loop sees other fds */
    PAGE = 4096,    /* reads from the target's memory never cross a page in one pread */
    AT_CWD = -100,  /* AT_FDCWD as the kernel passes it */
    WRITE_FLAGS = 01 | 02 | 0100 | 01000 | 020000000,
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
    struct seccomp_notif *n;
    struct seccomp_notif_resp *r;
    size_t nsz, rsz;
    bool watching; /* SHC_CONFINE_WATCH: report events (else only the sandbox's answers) */
    char **roots;  /* workspace sandbox: where metadata may change (attrs.c); canonical */
    size_t nroots;
    bool sandboxed;
};

/* ------------------------------------------------------------------ the target's memory */

/* Reads a NUL-terminated string at addr into buf (cap > 0); false when unreadable. */
static bool read_str(int mem, uint64_t addr, char *buf, size_t cap)
{
    size_t got = 0;
    if (!addr)
        return false;
    while (got + 1 < cap) {
        uint64_t a = addr + got;
        size_t want = PAGE - (size_t)(a % PAGE);
        if (want > cap - 1 - got)
            want = cap - 1 - got;
        ssize_t n = shc__mem_pread(mem, buf + got, want, a);
        if (n <= 0)
            break;
        void *z = memchr(buf + got, 0, (size_t)n);
        if (z)
            return true;
        got += (size_t)n;
    }
    buf[got] = 0;
    return got > 0;
}

static bool read_mem(int mem, uint64_t addr, void *buf, size_t n)
{
    return addr && shc__mem_pread(mem, buf, n, addr) == (ssize_t)n;
}

/* Printable: control bytes become '?'. */
static void clean(char *s)
{
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* An absolute form of a relative path: the directory of dirfd (or the cwd) before it. */
static void absolutise(pid_t pid, int dirfd, char *path, size_t cap)
{
    if (path[0] == '/' || !path[0])
        return;
    char link[64], dir[SHC_CONFINE_DETAIL];
    if (dirfd == AT_CWD || dirfd < 0)
        snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
    else
        snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
    ssize_t n = readlink(link, dir, sizeof dir - 1);
    if (n <= 0)
        return;
    dir[n] = 0;
    size_t dl = (size_t)n, pl = strlen(path);
    if (dl + 1 + pl + 1 > cap)
        return; /* too long to show whole: keep it as the call gave it */
    memmove(path + dl + 1, path, pl + 1);
    memcpy(path, dir, dl);
    path[dl] = '/';
}

/* The file an open descriptor of pid names (a call on the descriptor itself, no path given). */
static void fd_path(pid_t pid, int fd, char *path, size_t cap)
{
    path[0] = 0;
    if (fd < 0)
        return;
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);
    ssize_t n = readlink(link, path, cap - 1);
    path[n > 0 ? n : 0] = 0;
}

/* ------------------------------------------------------------------ what is not an event */

static bool is_shell(const char *base)
{
    return !strcmp(base, "bash") || !strcmp(base, "sh") || !strcmp(base, "dash");
}

static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *r = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    int ppid = 0;
    return r && sscanf(r + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : 0;
}

/* The command's own tool: run by its login shell itself or a direct child of it (a pipeline's
 * stage), not deeper down where a profile's helpers run theirs. */
static bool from_the_shell(const shc_confine_watch *w, pid_t pid)
{
    return !w->leader || pid == w->leader || parent_of(pid) == w->leader;
}

/* Whether pid is the command's login shell or one of its descendants. */
static bool in_command(const shc_confine_watch *w, pid_t pid)
{
    for (int i = 0; i < 64 && pid > 1; i++, pid = parent_of(pid))
        if (pid == w->leader)
            return true;
    return false;
}

static bool program_ok(shc_confine_watch *w, const char *path, pid_t pid)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (w->quiet && !is_shell(base) && from_the_shell(w, pid)) {
        for (size_t i = 0; i < w->programs_len;) {
            const char *p = w->programs + i;
            if (*p && !strcmp(p, base))
                w->quiet = false; /* the command's own tool: the profile is over */
            i += strlen(p) + 1;
        }
    }
    if (w->quiet)
        return true; /* the profile's own programs */
    for (size_t i = 0; i < w->programs_len;) {
        const char *p = w->programs + i;
        size_t l = strlen(p);
        if (l && !strcmp(p, base))
            return true;
        i += l + 1;
    }
    return false;
}

/* Writing to these is output, not a change: `2>/dev/null`, the command's own terminal. */
static bool harmless_write(const char *path)
{
    static const char *const same[] = {"/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr",
                                       "/dev/fd/1", "/dev/fd/2", "/proc/self/fd/1",
                                       "/proc/self/fd/2"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        if (!strcmp(path, same[i]))
            return true;
    return !strncmp(path, "/dev/pts/", 9);
}

/* The name service's own sockets (ls -l, find -user look users up through them). */
static bool nss_socket(const char *path)
{
    return !strcmp(path, "/run/nscd/socket") || !strcmp(path, "/var/run/nscd/socket") ||
           !strncmp(path, "/run/systemd/userdb/", 20);
}

/* Describes a sockaddr; false when it is no address at all. */
static bool sockaddr_text(int mem, uint64_t addr, uint64_t len, char *out, size_t cap,
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
        *unix_nss = nss_socket(p);
        snprintf(out, cap, "unix:%s", p);
    } else if (ss.ss_family == AF_NETLINK) {
        snprintf(out, cap, "netlink");
    } else {
        snprintf(out, cap, "address family %u", (unsigned)ss.ss_family);
    }
    return true;
}

/* Fills ev from notification n; false when what it did is no event (see above). */
static bool describe(shc_confine_watch *w, const struct seccomp_notif *n, int mem,
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
        return true;
    }
    ev->what = e->what;
    ev->syscall = e->name;
    char *p = ev->detail;
    size_t cap = sizeof ev->detail;
    bool unix_nss = false;
    switch (e->describe) {
    case SHC_SD_EXEC:
        if (!read_str(mem, d->args[e->path], p, cap))
            snprintf(p, cap, "(a program it would not let us read)");
        else if (program_ok(w, p, ev->pid))
            return false;
        return true;
    case SHC_SD_OPENAT2: {
        uint64_t flags = 0;
        if (read_mem(mem, d->args[2], &flags, sizeof flags) && !(flags & WRITE_FLAGS))
            return false;
        if (read_str(mem, d->args[1], p, cap))
            absolutise(ev->pid, (int)d->args[0], p, cap);
        return !harmless_write(p);
    }
    case SHC_SD_PATH: {
        bool got = read_str(mem, d->args[e->path], p, cap);
        if (got && p[0])
            absolutise(ev->pid, e->dirfd >= 0 ? (int)d->args[e->dirfd] : AT_CWD, p, cap);
        else if (e->dirfd >= 0 && (!d->args[e->path] || got)) /* NULL or "" (AT_EMPTY_PATH) */
            fd_path(ev->pid, (int)d->args[e->dirfd], p, cap); /* utimensat(fd, NULL): the fd's file */
        return strcmp(e->what, "write") || !harmless_write(p);
    }
    case SHC_SD_FD:
        fd_path(ev->pid, (int)d->args[e->dirfd], p, cap);
        return strcmp(e->what, "write") || !harmless_write(p);
    case SHC_SD_SOCK:
        if (!sockaddr_text(mem, d->args[e->path], d->args[e->dirfd], p, cap, &unix_nss))
            return strcmp(e->name, "sendto") == 0 ? false : true;
        return !(unix_nss && !strcmp(e->name, "connect"));
    case SHC_SD_MSG: {
        struct {
            uint64_t name;
            uint32_t namelen;
        } h = {0, 0};
        if (!read_mem(mem, d->args[1], &h, sizeof h))
            return true;
        if (!h.name || !h.namelen)
            return false; /* a connected socket: no address given */
        return sockaddr_text(mem, h.name, h.namelen, p, cap, &unix_nss);
    }
    case SHC_SD_PID: {
        pid_t t = (pid_t)(int)d->args[e->dirfd];
        if (t == 0 || t == ev->pid || (e->path >= 0 && !d->args[e->path]))
            return false; /* itself, or prlimit64 only reading a limit */
        if (!strcmp(e->name, "pidfd_open") && w->leader && in_command(w, t))
            return false;
        snprintf(p, cap, "pid %d", (int)t);
        return true;
    }
    default:
        if (!strcmp(e->name, "ioctl") && (uint32_t)d->args[1] != 0x5412u) {
            ev->what = "change"; /* an inode's flags (chattr) */
            fd_path(ev->pid, (int)d->args[0], p, cap);
        } else if (!strcmp(e->name, "ioctl"))
            snprintf(p, cap, "TIOCSTI (typing into the terminal)");
        return true;
    }
}

/* ------------------------------------------------------------------ the loop */

/* res < 0: CONTINUE (the kernel runs the call); else the call is over, failing with errno
 * res, or done (res 0: the supervisor made it, attrs.c). */
static void answer(shc_confine_watch *w, uint64_t id, int res)
{
    memset(w->r, 0, w->rsz);
    w->r->id = id;
    if (res > 0)
        w->r->error = -res;
    else if (res < 0)
        w->r->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    while (ioctl(w->fd, SECCOMP_IOCTL_NOTIF_SEND, w->r) != 0 && errno == EINTR)
        ;
    w->count++;
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
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/mem", (unsigned)w->n->pid);
    int mem = open(path, O_RDONLY | O_CLOEXEC);
    /* The workspace sandbox's metadata rule first: the supervisor makes the call itself on the
     * file it checked (res 0), or refuses it (an errno): a refused call changed nothing. */
    /* Arguments in a page of a FUSE or network file system are never read (memread.c): the
     * call is refused, and reported. */
    uint64_t args[6];
    for (size_t i = 0; i < 6; i++)
        args[i] = w->n->data.args[i];
    bool remote = mem >= 0 && shc__mem_remote(mem, args, 6);
    int res = remote ? EFAULT : w->sandboxed ? shc__attr_decide((const char *const *)w->roots, w->nroots, w->n,
                                              mem)
                           : -1;
    shc_confine_event ev;
    bool is_event = res <= 0 && w->watching && describe(w, w->n, mem, &ev);
    if (remote && w->watching) {
        is_event = true;
        ev = (shc_confine_event){.what = "remote", .syscall = "syscall", .pid = (pid_t)w->n->pid};
        const shc_sysent *e = shc__confine_sys(w->n->data.nr);
        ev.syscall = e ? e->name : ev.syscall;
    }
    if (mem >= 0)
        close(mem);
    /* What we read is the call's only if the notification is still pending now. */
    bool valid = ioctl(w->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
    answer(w, id, res);
    if (is_event && valid && w->quiet) {
        w->profile++;
        return true;
    }
    if (is_event && valid) {
        clean(ev.detail);
        w->fn(&ev, w->payload);
    }
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

static void free_roots(shc_confine_watch *w)
{
    for (size_t i = 0; i < w->nroots; i++)
        free(w->roots[i]);
    free(w->roots);
}

/* The workspace's writable roots, canonical: its cwd and the spec's roots.  One that does not
 * resolve is left out (nothing can change there).  -1 when out of memory. */
static int add_roots(shc_confine_watch *w, const shc_confine_spec *spec)
{
    size_t most = 1;
    for (const char *p = spec->writable, *end = p + spec->writable_len; p && p < end;
         p += strlen(p) + 1)
        most++;
    w->sandboxed = true;
    if (!(w->roots = calloc(most, sizeof *w->roots)))
        return -1;
    const char *p = spec->cwd ? spec->cwd : ".";
    const char *end = spec->writable ? spec->writable + spec->writable_len : NULL;
    for (size_t k = 0; k < most; k++) {
        char *real = realpath(p, NULL);
        if (!real && errno == ENOMEM)
            return -1;
        if (real)
            w->roots[w->nroots++] = real;
        p = k == 0 ? spec->writable : p + strlen(p) + 1;
        if (!p || (end && p >= end))
            break;
    }
    return 0;
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
    if (!w->n || !w->r)
        goto fail;
    if (spec && spec->programs_len) {
        if (!(w->programs = malloc(spec->programs_len)))
            goto fail;
        memcpy(w->programs, spec->programs, spec->programs_len);
        w->programs_len = spec->programs_len;
    }
    w->quiet = spec && (spec->flags & SHC_CONFINE_LOGIN);
    w->watching = spec && (spec->flags & SHC_CONFINE_WATCH);
    if (spec && spec->sandbox == SHC_SANDBOX_WORKSPACE && add_roots(w, spec) != 0)
        goto fail;
    fcntl(listener, F_SETFD, FD_CLOEXEC);
    w->wid = shc_loop_watch(loop, listener, SHC_LOOP_READ, on_ready, w);
    if (w->wid <= 0)
        goto fail;
    return w;
fail:
    if (w) {
        free(w->n);
        free(w->r);
        free(w->programs);
        free_roots(w);
        free(w);
    }
    close(listener);
    return NULL;
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
    close(w->fd);
    free(w->n);
    free(w->r);
    free(w->programs);
    free_roots(w);
    free(w);
}

const char *shc_confine_event_text(const shc_confine_event *ev, char *buf, size_t cap)
{
    const char *d = ev->detail[0] ? ev->detail : ev->syscall;
    const char *base = strrchr(d, '/') ? strrchr(d, '/') + 1 : d;
    if (!strcmp(ev->what, "exec"))
        snprintf(buf, cap, "it ran `%s`", base);
    else if (!strcmp(ev->what, "write"))
        snprintf(buf, cap, "it opened '%s' for writing (%s)", d, ev->syscall);
    else if (!strcmp(ev->what, "change"))
        snprintf(buf, cap, "it changed '%s' (%s)", d, ev->syscall);
    else if (!strcmp(ev->what, "network"))
        snprintf(buf, cap, "it used the network: %s %s", ev->syscall, d);
    else if (!strcmp(ev->what, "terminal"))
        snprintf(buf, cap, "it typed into the terminal (ioctl TIOCSTI)");
    else if (!strcmp(ev->what, "io_uring"))
        snprintf(buf, cap, "it set up io_uring (io_uring_setup), which the watch cannot see into");
    else if (!strcmp(ev->what, "process"))
        snprintf(buf, cap, "it reached into another process (%s%s%s)", ev->syscall,
                 ev->detail[0] ? " " : "", ev->detail);
    else if (!strcmp(ev->what, "remote"))
        snprintf(buf, cap, "it passed %s an argument in a file on FUSE or a network file system "
                           "(not read; refused)", ev->syscall);
    else if (!strcmp(ev->what, "kernel"))
        snprintf(buf, cap, "it changed kernel state that is no file (%s)", ev->syscall);
    else
        snprintf(buf, cap, "it made %s", d);
    return buf;
}
