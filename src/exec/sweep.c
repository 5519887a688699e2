#define _GNU_SOURCE
#include "exec/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef shc_procinfo procinfo;

int shc__proc_stat(pid_t pid, shc_procinfo *pi)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    /* pid (comm) state ppid pgrp session ...: comm may hold spaces and ')' */
    char *rp = strrchr(buf, ')');
    if (!rp)
        return -1;
    int ppid, pgrp, sid;
    char st;
    if (sscanf(rp + 1, " %c %d %d %d", &st, &ppid, &pgrp, &sid) != 4)
        return -1;
    pi->pid = pid;
    pi->state = st;
    pi->ppid = (pid_t)ppid;
    pi->pgrp = (pid_t)pgrp;
    pi->sid = (pid_t)sid;
    return 0;
}

/* Whether /proc/pid/environ holds token as a whole entry. */
static bool has_token(pid_t pid, const char *token)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t tl = strlen(token);
    enum { CAP = 256 * 1024 };
    char *buf = malloc(CAP + 1);
    bool found = false;
    size_t len = 0;
    if (buf) {
        ssize_t n;
        while (len < CAP && (n = read(fd, buf + len, CAP - len)) > 0)
            len += (size_t)n;
        buf[len] = 0;
        for (size_t i = 0; i + tl <= len; i += strlen(buf + i) + 1)
            if (!memcmp(buf + i, token, tl) && (i + tl == len || buf[i + tl] == 0)) {
                found = true;
                break;
            }
    }
    free(buf);
    close(fd);
    return found;
}

static bool kept(pid_t pid, const pid_t *keep, size_t nkeep)
{
    for (size_t i = 0; i < nkeep; i++)
        if (keep[i] == pid)
            return true;
    return false;
}

/* Reaps pid if it is our child; waits up to ~100 ms for a SIGKILLed process to die. */
static void reap(pid_t pid)
{
    for (int i = 0; i < 100; i++) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return;
        if (r < 0 && errno != EINTR)
            return;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* The children of pid (0 = this process), from /proc/PID/task/<tid>/children (cheap: no scan
 * of every process).  Returns the count, or -1 when the kernel has no such file. */
int shc__children(pid_t pid, pid_t *out, int max)
{
    char dir[64];
    if (pid > 0)
        snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    else
        snprintf(dir, sizeof dir, "/proc/self/task");
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0, files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[400], buf[4096];
        snprintf(path, sizeof path, "%s/%s/children", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        files++;
        size_t len = 0;
        ssize_t r;
        while (len < sizeof buf - 1 && (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
            len += (size_t)r;
        close(fd);
        buf[len] = 0;
        for (char *q = buf; *q && n < max;) {
            char *end;
            long v = strtol(q, &end, 10);
            if (end == q)
                break;
            out[n++] = (pid_t)v;
            q = end;
        }
    }
    closedir(d);
    return files ? n : -1;
}

/* Every pid in /proc (the fallback). */
static int list_all(pid_t *out, int max)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (!*end && v > 0)
            out[n++] = (pid_t)v;
    }
    closedir(d);
    return n;
}

int shc__sweep(pid_t leader, const char *token, const pid_t *keep, size_t nkeep)
{
    enum { MAXP = 4096 };
    pid_t *cand = malloc(MAXP * sizeof *cand);
    if (!cand)
        return 0;
    pid_t self = getpid();
    int total = 0;
    /* Killing an orphan re-parents its children to us: repeat until a round finds nothing.
     * Members of the command's group or session that still have a live parent die with the
     * group kill the caller sends first, or come back to us in a later round. */
    for (int round = 0; round < 32; round++) {
        int n = shc__children(0, cand, MAXP);
        bool all = n < 0;
        if (all)
            n = list_all(cand, MAXP);
        pid_t mine[256];
        size_t nmine = 0;
        int killed = 0;
        for (int i = 0; i < n; i++) {
            procinfo pi;
            if (cand[i] == self || kept(cand[i], keep, nkeep) || shc__proc_stat(cand[i], &pi) != 0)
                continue;
            bool child = pi.ppid == self;
            bool match = (leader > 0 && (pi.pgrp == leader || pi.sid == leader)) ||
                         (child && token && pi.state != 'Z' && has_token(pi.pid, token));
            if (match && pi.state != 'Z') {
                kill(pi.pid, SIGKILL);
                killed++;
            }
            if (child && (match || pi.state == 'Z') && nmine < sizeof mine / sizeof mine[0])
                mine[nmine++] = pi.pid;
        }
        for (size_t i = 0; i < nmine; i++)
            reap(mine[i]);
        total += killed;
        if (!killed)
            break;
    }
    free(cand);
    return total;
}

void shc__reap_orphans(const pid_t *keep, size_t nkeep)
{
    enum { MAXP = 1024 };
    pid_t cand[MAXP];
    int n = shc__children(0, cand, MAXP);
    for (int i = 0; i < n; i++) {
        procinfo pi;
        if (!kept(cand[i], keep, nkeep) && shc__proc_stat(cand[i], &pi) == 0 && pi.state == 'Z')
            waitpid(cand[i], NULL, WNOHANG);
    }
}

void shc__kill_descendants(void)
{
    enum { MAXP = 8192 };
    pid_t *all = malloc(MAXP * sizeof *all);
    for (int round = 0; round < 400; round++) {
        int n = 0;
        if (all) { /* breadth first over the whole subtree */
            int k = shc__children(0, all, MAXP);
            n = k > 0 ? k : 0;
            for (int i = 0; i < n && n < MAXP; i++) {
                k = shc__children(all[i], all + n, MAXP - n);
                if (k > 0)
                    n += k;
            }
        }
        for (int i = 0; i < n; i++)
            kill(all[i], SIGKILL);
        pid_t r;
        while ((r = waitpid(-1, NULL, WNOHANG)) > 0)
            ;
        if (r < 0 && errno == ECHILD)
            break; /* no child left, and so no descendant */
        /* every one left has exited but for a thread stuck in the kernel: no signal ends it */
        bool stuck = n > 0;
        for (int i = 0; i < n && stuck; i++) {
            procinfo pi;
            stuck = shc__proc_stat(all[i], &pi) == 0 && pi.state == 'Z';
        }
        if (stuck && round >= 40)
            break;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    free(all);
}

int shc__count_children(int *zombies)
{
    pid_t self = getpid();
    int n = 0, z = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (*end || v <= 0)
            continue;
        procinfo pi;
        if (shc__proc_stat((pid_t)v, &pi) != 0 || pi.ppid != self)
            continue;
        n++;
        if (pi.state == 'Z')
            z++;
    }
    closedir(d);
    if (zombies)
        *zombies = z;
    return n;
}
