/* Reading a watched command's memory with a deadline (sandbox.h), for the supervisor (watch.c,
 * attrs.c).  A pread() of /proc/PID/mem faults the page in on the command's behalf, and a page
 * backed by a file system the command serves itself (FUSE) or a slow network mount can keep
 * that pread waiting for ever, with the agent's loop inside it.  So reads run on a reader
 * thread of the watch's own (shc__memreader), and the caller waits for each at most
 * SHC__MEM_DEADLINE_MS: past that the read counts as failed (ETIMEDOUT), the caller goes on,
 * the thread is abandoned (it finishes when the fault does, when the command or its file
 * system goes away, and frees what it used) and the next read starts a new one.  The thread
 * works on its own copy of the descriptor and its own buffer.  One thread serves every read of
 * a watch: starting a thread for each read had cost more than the read (a notification needs
 * one to three), on the watched command's critical path.
 * shc__mem_remote() tells the supervisor beforehand whether a call's arguments point into a
 * mapping of a file on FUSE or a network file system: such a page is never read (its fault can
 * wait on the command itself, which then cannot end, and neither could a thread of ours stuck in
 * it) and the call is refused.  It asks the kernel about each address (PROCMAP_QUERY, Linux
 * 6.11) and reads the whole of /proc/PID/maps only on older kernels.  A command that maps such
 * a file over the address between that check and the read still meets the deadline: the loop
 * goes on.  The sandbox's metadata rule (attrs.c) reads directly after the same check: its
 * calls come by the thousand (a chmod -R); the race above can hold its loop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "confine/sandbox.h"

enum { READ_MAX = 4096 };

/* Shared by the watch and its reader thread; freed by whichever lets go last. */
typedef struct worker {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs;      /* the owner (until it abandons or frees it) and the thread */
    bool quit;     /* the owner let go: the thread ends after the read in hand */
    bool has_job;  /* a read waits for the thread */
    bool done;     /* the read in hand is over (got, err) */
    int fd;        /* the job's own copy of the descriptor; the thread closes it */
    off_t off;
    size_t n;
    ssize_t got;
    int err;
    char buf[READ_MAX];
} worker;

struct shc__memreader {
    worker *w; /* NULL: none yet, or the last one was abandoned */
};

static void worker_drop(worker *w)
{
    pthread_mutex_lock(&w->mu);
    bool last = --w->refs == 0;
    pthread_mutex_unlock(&w->mu);
    if (!last)
        return;
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->has_job && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->has_job)
            break;
        int fd = w->fd;
        off_t off = w->off;
        size_t n = w->n;
        pthread_mutex_unlock(&w->mu);
        ssize_t got = pread(fd, w->buf, n, off); /* buf is ours while has_job */
        int err = errno;
        close(fd);
        pthread_mutex_lock(&w->mu);
        w->got = got;
        w->err = err;
        w->has_job = false;
        w->done = true;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    worker_drop(w);
    return NULL;
}

static worker *worker_start(void)
{
    worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0) {
        free(w);
        return NULL;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&w->mu, NULL);
    w->refs = 2;
    pthread_attr_t at;
    pthread_t t;
    int rc = pthread_attr_init(&at);
    if (!rc) {
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 64 * 1024);
        rc = pthread_create(&t, &at, worker_main, w);
        pthread_attr_destroy(&at);
    }
    if (rc) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        errno = rc;
        return NULL;
    }
    return w;
}

/* The owner lets go of w: the thread ends once its read (if any) returns. */
static void worker_abandon(worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    worker_drop(w);
}

shc__memreader *shc__memreader_new(void)
{
    return calloc(1, sizeof(shc__memreader));
}

void shc__memreader_free(shc__memreader *r)
{
    if (!r)
        return;
    if (r->w)
        worker_abandon(r->w);
    free(r);
}

ssize_t shc__mem_pread(shc__memreader *r, int mem, void *buf, size_t n, uint64_t addr)
{
    if (!r || mem < 0 || n == 0 || n > READ_MAX) {
        errno = EINVAL;
        return -1;
    }
    if (!r->w && !(r->w = worker_start()))
        return -1;
    worker *w = r->w;
    int fd = fcntl(mem, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += SHC__MEM_DEADLINE_MS / 1000;
    dl.tv_nsec += (long)(SHC__MEM_DEADLINE_MS % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->mu);
    w->fd = fd;
    w->off = (off_t)addr;
    w->n = n;
    w->done = false;
    w->has_job = true;
    pthread_cond_broadcast(&w->cv);
    while (!w->done && pthread_cond_timedwait(&w->cv, &w->mu, &dl) != ETIMEDOUT)
        ;
    ssize_t got = -1;
    int err = ETIMEDOUT;
    bool done = w->done;
    if (done) {
        got = w->got;
        err = w->err;
        if (got > 0)
            memcpy(buf, w->buf, (size_t)got);
    }
    pthread_mutex_unlock(&w->mu);
    if (!done) { /* stuck in a fault: leave it, the next read gets a new thread */
        r->w = NULL;
        worker_abandon(w);
    }
    errno = err;
    return got;
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
