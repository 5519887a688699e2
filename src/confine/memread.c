/* Reading a watched command's memory with a deadline (sandbox.h), for the supervisor (watch.c,
 * attrs.c).  A pread() of /proc/PID/mem faults the page in on the command's behalf, and a page
 * backed by a file system the command serves itself (FUSE) or a slow network mount can keep
 * that pread waiting for ever, with the agent's loop inside it.  So each read runs on a
 * short-lived thread of its own, and the caller waits for it at most SHC__MEM_DEADLINE_MS: past
 * that the read counts as failed (ETIMEDOUT), the caller goes on, and the thread is left to
 * finish when the fault does (when the command or its file system goes away) and frees what it
 * used.  The thread works on its own copy of the descriptor and its own buffer.
 * shc__mem_remote() tells the supervisor beforehand whether a call's arguments point into a
 * mapping of a file on FUSE or a network file system: such a page is never read (its fault can
 * wait on the command itself, which then cannot end, and neither could a thread of ours stuck in
 * it) and the call is refused.  A command that maps such a file over the address between that
 * check and the read still meets the deadline: the loop goes on.  The sandbox's metadata rule
 * (attrs.c) reads directly after the same check: its calls come by the thousand (a chmod -R),
 * and a thread for each read cost too much; the race above can hold its loop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "confine/sandbox.h"

typedef struct job {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs; /* the caller and the thread */
    bool done;
    int fd;
    off_t off;
    size_t n;
    ssize_t got;
    int err;
    char buf[];
} job;

static void job_drop(job *j)
{
    pthread_mutex_lock(&j->mu);
    bool last = --j->refs == 0;
    pthread_mutex_unlock(&j->mu);
    if (!last)
        return;
    close(j->fd);
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->mu);
    free(j);
}

static void *reader(void *arg)
{
    job *j = arg;
    ssize_t got = pread(j->fd, j->buf, j->n, j->off);
    int err = errno;
    pthread_mutex_lock(&j->mu);
    j->got = got;
    j->err = err;
    j->done = true;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    job_drop(j);
    return NULL;
}

/* Whether the file system of device "MM:mm" is one whose pages may never arrive (FUSE, network
 * file systems), by pid's own mount table. */
static bool remote_dev(const char *pidstr, const char *dev)
{
    static const char *const slow[] = {"fuse", "nfs", "cifs", "smb", "9p", "ceph", "afs"};
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%s/mountinfo", pidstr);
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

bool shc__mem_remote(int mem, const uint64_t *addrs, size_t naddrs)
{
    char link[64], target[64], pidstr[16], path[64], line[1024];
    snprintf(link, sizeof link, "/proc/self/fd/%d", mem);
    ssize_t n = mem >= 0 ? readlink(link, target, sizeof target - 1) : -1;
    if (n <= 0)
        return false;
    target[n] = 0;
    if (sscanf(target, "/proc/%15[0-9]/mem", pidstr) != 1)
        return false;
    snprintf(path, sizeof path, "/proc/%s/maps", pidstr);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool remote = false;
    while (!remote && fgets(line, sizeof line, f)) {
        unsigned long long lo = 0, hi = 0, ino = 0;
        unsigned maj = 0, min = 0;
        if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu", &lo, &hi, &maj, &min, &ino) != 5)
            continue;
        /* anonymous memory and disks (a real major number) never wait on a server */
        if (ino == 0 || maj != 0)
            continue;
        bool in = false;
        for (size_t i = 0; i < naddrs && !in; i++)
            in = addrs[i] >= lo && addrs[i] < hi;
        if (!in)
            continue;
        char dev[32]; /* maps spells the device in hex, mountinfo in decimal */
        snprintf(dev, sizeof dev, "%u:%u", maj, min);
        remote = remote_dev(pidstr, dev);
    }
    fclose(f);
    return remote;
}

ssize_t shc__mem_pread(int mem, void *buf, size_t n, uint64_t addr)
{
    if (mem < 0 || n == 0) {
        errno = EINVAL;
        return -1;
    }
    job *j = calloc(1, sizeof *j + n);
    if (!j)
        return -1;
    j->fd = fcntl(mem, F_DUPFD_CLOEXEC, 0);
    pthread_condattr_t ca;
    if (j->fd < 0 || pthread_condattr_init(&ca) != 0) {
        if (j->fd >= 0)
            close(j->fd);
        free(j);
        return -1;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&j->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&j->mu, NULL);
    j->refs = 2;
    j->off = (off_t)addr;
    j->n = n;
    pthread_attr_t at;
    pthread_t t;
    int rc = pthread_attr_init(&at);
    if (!rc) {
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 64 * 1024);
        rc = pthread_create(&t, &at, reader, j);
        pthread_attr_destroy(&at);
    }
    if (rc) {
        j->refs = 1;
        job_drop(j);
        errno = rc;
        return -1;
    }
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += SHC__MEM_DEADLINE_MS / 1000;
    dl.tv_nsec += (long)(SHC__MEM_DEADLINE_MS % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    ssize_t got = -1;
    int err = ETIMEDOUT;
    pthread_mutex_lock(&j->mu);
    while (!j->done && pthread_cond_timedwait(&j->cv, &j->mu, &dl) != ETIMEDOUT)
        ;
    if (j->done) {
        got = j->got;
        err = j->err;
        if (got > 0)
            memcpy(buf, j->buf, (size_t)got);
    }
    pthread_mutex_unlock(&j->mu);
    job_drop(j);
    errno = err;
    return got;
}
