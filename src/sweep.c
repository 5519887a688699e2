#define _GNU_SOURCE
#include "sweep.h"

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

typedef struct procinfo {
    pid_t pid, ppid, pgrp, sid;
    char state;
} procinfo;

static int read_stat(pid_t pid, procinfo *pi)
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

int shc__sweep(pid_t leader, const char *token, const pid_t *keep, size_t nkeep)
{
    pid_t self = getpid();
    int total = 0;
    /* Killing an orphan re-parents its children to us: repeat until a round finds nothing. */
    for (int round = 0; round < 32; round++) {
        DIR *d = opendir("/proc");
        if (!d)
            return total;
        pid_t mine[256];
        size_t nmine = 0;
        int killed = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            char *end;
            long v = strtol(e->d_name, &end, 10);
            if (*end || v <= 0 || (pid_t)v == self)
                continue;
            procinfo pi;
            if (read_stat((pid_t)v, &pi) != 0)
                continue;
            bool child = pi.ppid == self;
            if (kept(pi.pid, keep, nkeep))
                continue;
            bool match = (leader > 0 && (pi.pgrp == leader || pi.sid == leader)) ||
                         (child && token && pi.state != 'Z' && has_token(pi.pid, token));
            if (match && pi.state != 'Z') {
                kill(pi.pid, SIGKILL);
                killed++;
            }
            if (child && (match || pi.state == 'Z') && nmine < sizeof mine / sizeof mine[0])
                mine[nmine++] = pi.pid;
        }
        closedir(d);
        for (size_t i = 0; i < nmine; i++)
            reap(mine[i]);
        total += killed;
        if (!killed)
            break;
    }
    return total;
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
        if (read_stat((pid_t)v, &pi) != 0 || pi.ppid != self)
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
