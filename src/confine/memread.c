/* Reading a watched command's memory with a deadline (sandbox.h), for the supervisor (watch.c,
 * attrs.c).  A pread() of /proc/PID/mem faults the page in on the command's behalf, and a page
 * backed by a file system the command serves itself (FUSE) or a slow network mount can keep
 * that pread waiting for ever, uninterruptibly.  A thread of ours waiting so would keep the
 * whole agent from ending (and its stdout open).  So every read runs in a reader PROCESS of the
 * watch's own, forked at its first read: the descriptor goes to it with each request over a
 * socket pair (SCM_RIGHTS), the reply carries the bytes, and the caller waits at most
 * SHC__MEM_DEADLINE_MS.  Past that the read counts as failed (ETIMEDOUT), the reader is killed
 * and left (it ends when its fault does; it holds nothing of the agent's but its socket) and
 * the next read forks another.  A watch abandons at most STUCK_MAX readers; after that nothing
 * more is read (shc__memreader_full(): the watch refuses the call and reports it).
 * shc__mem_remote() tells the supervisor beforehand whether a call's arguments point into a
 * mapping of a file on FUSE or a network file system: such a page is never read and the call
 * is refused.  It asks the kernel about each address (PROCMAP_QUERY, Linux 6.11) and reads the
 * whole of /proc/PID/maps only on older kernels.  A command that maps such a file over the
 * address between that check and the read meets the deadline and costs one reader. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine/sandbox.h"

enum {
    READ_MAX = 4096,
    STUCK_MAX = 4, /* readers a watch may leave stuck in a fault; then nothing more is read */
};

/* One request to the reader process: the descriptor comes with it (SCM_RIGHTS). */
typedef struct {
    uint64_t off;
    uint32_t n;
} req;

/* Its reply: the result, then the bytes (got of them), in one datagram. */
typedef struct {
    int64_t got;
    int32_t err;
    uint32_t pad;
    char buf[READ_MAX];
} rep;

struct shc__memreader {
    pid_t pid;                /* the reader process, or 0: none yet, or the last one abandoned */
    int sock;                 /* our end of its socket pair */
    pid_t stuck[STUCK_MAX];   /* abandoned readers not yet reaped (0: a free slot) */
    int nstuck;               /* readers ever abandoned by this watch */
    rep in;                   /* the last reply */
};

/* The reader process: a read per request, until its socket closes.  Only system calls: it is a
 * fork of a process that may have threads.  It holds nothing of the agent's but its socket (no
 * client pipe, no terminal, no listener), so while it waits in a fault nothing of ours waits
 * with it. */
static _Noreturn void reader_main(int sock)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (sock != 3) {
        if (dup2(sock, 3) != 3)
            _exit(1);
        sock = 3;
    }
    syscall(SYS_close_range, 0u, 2u, 0u);
    syscall(SYS_close_range, 4u, ~0u, 0u);
    static rep out;
    for (;;) {
        req q;
        char cbuf[CMSG_SPACE(sizeof(int))];
        struct iovec iov = {&q, sizeof q};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                            .msg_controllen = sizeof cbuf};
        ssize_t k = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        if (k < 0 && errno == EINTR)
            continue;
        if (k != (ssize_t)sizeof q)
            _exit(0); /* the watch let go of us */
        int fd = -1;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
        size_t n = q.n <= READ_MAX ? q.n : READ_MAX;
        ssize_t got = fd >= 0 ? pread(fd, out.buf, n, (off_t)q.off) : -1;
        out.err = got < 0 ? (fd >= 0 ? errno : EBADF) : 0;
        out.got = got;
        if (fd >= 0)
            close(fd);
        size_t len = offsetof(rep, buf) + (got > 0 ? (size_t)got : 0);
        while (send(sock, &out, len, MSG_NOSIGNAL) < 0 && errno == EINTR)
            ;
    }
}

static int reader_start(shc__memreader *r)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0)
        reader_main(sv[1]);
    close(sv[1]);
    r->pid = pid;
    r->sock = sv[0];
    return 0;
}

/* Reaps what has ended of the abandoned readers. */
static void reap_stuck(shc__memreader *r)
{
    for (int i = 0; i < STUCK_MAX; i++)
        if (r->stuck[i] > 0 && waitpid(r->stuck[i], NULL, WNOHANG) != 0)
            r->stuck[i] = 0;
}

/* The reader is past its deadline, or broken: killed (it ends when its fault does; nothing of
 * ours waits for it) and forgotten; the next read starts another. */
static void reader_abandon(shc__memreader *r)
{
    if (r->pid <= 0)
        return;
    kill(r->pid, SIGKILL);
    close(r->sock);
    r->sock = -1;
    if (waitpid(r->pid, NULL, WNOHANG) == 0) {
        for (int i = 0; i < STUCK_MAX; i++)
            if (r->stuck[i] <= 0) {
                r->stuck[i] = r->pid;
                break;
            }
    }
    r->pid = 0;
}

shc__memreader *shc__memreader_new(void)
{
    shc__memreader *r = calloc(1, sizeof *r);
    if (r)
        r->sock = -1;
    return r;
}

void shc__memreader_free(shc__memreader *r)
{
    if (!r)
        return;
    if (r->pid > 0) {
        close(r->sock); /* it reads EOF and ends */
        while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    /* A reader still stuck is left (killed already): it ends when its fault does. */
    reap_stuck(r);
    free(r);
}

bool shc__memreader_full(const shc__memreader *r)
{
    return r && r->nstuck >= STUCK_MAX;
}

static int ms_left(const struct timespec *dl)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms = (long long)(dl->tv_sec - now.tv_sec) * 1000 + (dl->tv_nsec - now.tv_nsec) / 1000000;
    return ms < 0 ? 0 : (int)ms;
}

ssize_t shc__mem_pread(shc__memreader *r, int mem, void *buf, size_t n, uint64_t addr)
{
    if (!r || mem < 0 || n == 0 || n > READ_MAX) {
        errno = EINVAL;
        return -1;
    }
    if (r->nstuck >= STUCK_MAX) { /* at the cap: nothing more is read */
        errno = ETIMEDOUT;
        return -1;
    }
    if (r->nstuck)
        reap_stuck(r);
    if (r->pid <= 0 && reader_start(r) != 0)
        return -1;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += SHC__MEM_DEADLINE_MS / 1000;
    dl.tv_nsec += (long)(SHC__MEM_DEADLINE_MS % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    req q = {addr, (uint32_t)n};
    char cbuf[CMSG_SPACE(sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    struct iovec iov = {&q, sizeof q};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                        .msg_controllen = sizeof cbuf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &mem, sizeof mem);
    ssize_t k;
    while ((k = sendmsg(r->sock, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    rep *in = &r->in;
    int err = EIO;
    if (k == (ssize_t)sizeof q) {
        err = ETIMEDOUT;
        for (;;) {
            struct pollfd pf = {r->sock, POLLIN, 0};
            int pr = poll(&pf, 1, ms_left(&dl));
            if (pr < 0 && errno == EINTR)
                continue;
            if (pr <= 0)
                break; /* past the deadline */
            k = recv(r->sock, in, sizeof *in, 0);
            if (k < 0 && errno == EINTR)
                continue;
            if (k < (ssize_t)offsetof(rep, buf) || in->got > READ_MAX ||
                (in->got > 0 && (size_t)k != offsetof(rep, buf) + (size_t)in->got)) {
                err = EIO; /* the reader died or broke */
                break;
            }
            ssize_t got = (ssize_t)in->got;
            if (got > 0)
                memcpy(buf, in->buf, (size_t)got);
            errno = got < 0 ? in->err : 0;
            return got;
        }
    }
    if (err == ETIMEDOUT)
        r->nstuck++;
    reader_abandon(r);
    errno = err;
    return -1;
}

/* ------------------------------------------------------------------ remote mappings */

/* Whether the file system of device "MM:mm" is one whose pages may never arrive (FUSE, network
 * file systems), by pid's own mount table. */
static bool remote_dev(pid_t pid, unsigned maj, unsigned min)
{
    static const char *const slow[] = {"fuse", "nfs", "cifs", "smb", "9p", "ceph", "afs"};
    char path[64], line[4096], dev[32];
    snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)pid);
    snprintf(dev, sizeof dev, "%u:%u", maj, min); /* mountinfo spells it in decimal */
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool hit = false;
    size_t dl = strlen(dev);
    while (!hit && fgets(line, sizeof line, f)) {
        /* "ID PARENT MM:mm ROOT POINT OPTS [TAGS...] - FSTYPE SOURCE SUPER" */
        const char *d = strchr(line, ' ');
        d = d ? strchr(d + 1, ' ') : NULL;
        const char *sep = strstr(line, " - ");
        if (!d || !sep || strncmp(d + 1, dev, dl) || d[1 + dl] != ' ')
            continue;
        for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
            if (!strncmp(sep + 3, slow[i], strlen(slow[i])))
                hit = true;
    }
    fclose(f);
    return hit;
}

/* The kernel's answer about one address of a process (Linux 6.11, linux/fs.h), spelled here
 * for older headers. */
struct shc_procmap_query {
    uint64_t size, query_flags, query_addr, vma_start, vma_end, vma_flags, vma_page_size,
        vma_offset, inode;
    uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
    uint64_t vma_name_addr, build_id_addr;
};
#define SHC_PROCMAP_QUERY _IOWR('f', 17, struct shc_procmap_query)

/* Only anonymous memory and disks (a real major number) are sure never to wait on a server. */
static bool may_wait(uint64_t ino, unsigned maj)
{
    return ino != 0 && maj == 0;
}

/* 1 or 0 by PROCMAP_QUERY on maps (an open /proc/PID/maps); -1 when the kernel has no such
 * query (the caller reads the text instead). */
static int remote_by_query(int maps, pid_t pid, const uint64_t *addrs, size_t naddrs)
{
    for (size_t i = 0; i < naddrs; i++) {
        if (addrs[i] < 4096)
            continue; /* a number, not an address: no mapping starts at page 0 */
        struct shc_procmap_query q;
        memset(&q, 0, sizeof q);
        q.size = sizeof q;
        q.query_addr = addrs[i];
        if (ioctl(maps, SHC_PROCMAP_QUERY, &q) != 0) {
            if (errno == ENOENT)
                continue; /* nothing mapped there */
            return errno == ENOTTY || errno == EINVAL ? -1 : 1; /* gone or unknown: not read */
        }
        if (may_wait(q.inode, q.dev_major) && remote_dev(pid, q.dev_major, q.dev_minor))
            return 1;
    }
    return 0;
}

static bool remote_by_text(int maps, pid_t pid, const uint64_t *addrs, size_t naddrs)
{
    int d = dup(maps); /* shares the offset: read from the start each time */
    FILE *f = d >= 0 && lseek(d, 0, SEEK_SET) == 0 ? fdopen(d, "re") : NULL;
    if (!f) {
        if (d >= 0)
            close(d);
        return true; /* cannot tell: not read */
    }
    char line[1024];
    bool remote = false;
    while (!remote && fgets(line, sizeof line, f)) {
        unsigned long long lo = 0, hi = 0, ino = 0;
        unsigned maj = 0, min = 0;
        if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu", &lo, &hi, &maj, &min, &ino) != 5)
            continue;
        if (!may_wait(ino, maj))
            continue;
        bool in = false;
        for (size_t i = 0; i < naddrs && !in; i++)
            in = addrs[i] >= lo && addrs[i] < hi;
        if (in)
            remote = remote_dev(pid, maj, min);
    }
    fclose(f);
    return remote;
}

bool shc__mem_remote(const shc__target *t, const uint64_t *addrs, size_t naddrs)
{
    if (t->maps < 0)
        return false; /* the process is gone (its memory cannot be read either) */
    int r = remote_by_query(t->maps, t->pid, addrs, naddrs);
    return r >= 0 ? r == 1 : remote_by_text(t->maps, t->pid, addrs, naddrs);
}

/* ------------------------------------------------------------------ a target's memory */

void shc__target_open(shc__target *t, pid_t pid, shc__memreader *r)
{
    char path[64];
    t->pid = pid;
    t->reader = r;
    snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
    t->mem = open(path, O_RDONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    t->maps = t->mem >= 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
}

void shc__target_close(shc__target *t)
{
    if (t->mem >= 0)
        close(t->mem);
    if (t->maps >= 0)
        close(t->maps);
    t->mem = t->maps = -1;
}

/* One read within a page: the page checked first, then read on the reader. */
static ssize_t page_read(const shc__target *t, void *buf, size_t n, uint64_t addr)
{
    uint64_t page = addr - addr % READ_MAX;
    if (t->mem < 0 || t->maps < 0 || shc__mem_remote(t, &page, 1)) {
        errno = EFAULT;
        return -1;
    }
    return shc__mem_pread(t->reader, t->mem, buf, n, addr);
}

bool shc__target_read(const shc__target *t, void *buf, size_t n, uint64_t addr)
{
    size_t got = 0;
    if (!addr)
        return false;
    while (got < n) {
        uint64_t a = addr + got;
        size_t want = READ_MAX - (size_t)(a % READ_MAX);
        if (want > n - got)
            want = n - got;
        ssize_t r = page_read(t, (char *)buf + got, want, a);
        if (r <= 0)
            return false;
        got += (size_t)r;
    }
    return true;
}

int shc__target_str(const shc__target *t, uint64_t addr, char *buf, size_t cap)
{
    size_t got = 0;
    buf[0] = 0;
    if (!addr || cap == 0)
        return -1;
    while (got + 1 < cap) {
        uint64_t a = addr + got;
        size_t want = READ_MAX - (size_t)(a % READ_MAX);
        if (want > cap - 1 - got)
            want = cap - 1 - got;
        ssize_t r = page_read(t, buf + got, want, a);
        if (r <= 0) {
            buf[got] = 0;
            return -1; /* the end was not found: what was read is not the string */
        }
        if (memchr(buf + got, 0, (size_t)r))
            return 1;
        got += (size_t)r;
    }
    buf[got] = 0;
    return 0;
}
