/* Is a command waiting for terminal input?  (stall.h)  One pass over /proc serves every running
 * command: each process's session says which command it belongs to; then only the members of
 * a watched session are looked at more closely. */
#define _GNU_SOURCE
#include "exec/stall.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "exec/sweep.h"

/* The system call a sleeping process is in, and its first two arguments; false if unknown
 * (running, or /proc/PID/syscall is not readable for us). */
static bool in_syscall(pid_t pid, long *nr, unsigned long *arg0, unsigned long *arg1)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    char *end;
    *nr = strtol(buf, &end, 10);
    if (end == buf)
        return false; /* "running" */
    *arg0 = strtoul(end, &end, 16);
    *arg1 = strtoul(end, NULL, 16);
    return true;
}

/* Reads n bytes at addr of the process's memory (we are its ancestor); false if not allowed. */
static bool peek(pid_t pid, unsigned long addr, void *buf, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t got = pread(fd, buf, n, (off_t)addr);
    close(fd);
    return got == (ssize_t)n;
}

static bool is_read(long nr)
{
    return nr == SYS_read || nr == SYS_readv || nr == SYS_pread64;
}

static bool is_pollfds(long nr) /* (struct pollfd *fds, nfds_t nfds, ...) */
{
#ifdef SYS_poll
    if (nr == SYS_poll)
        return true;
#endif
    return nr == SYS_ppoll;
}

static bool is_fdset(long nr) /* (int nfds, fd_set *readfds, ...) */
{
#ifdef SYS_select
    if (nr == SYS_select)
        return true;
#endif
    return nr == SYS_pselect6;
}

static bool is_epoll(long nr)
{
#ifdef SYS_epoll_wait
    if (nr == SYS_epoll_wait)
        return true;
#endif
    return nr == SYS_epoll_pwait;
}

/* Whether the process's fd is the command's terminal. */
static bool fd_is_tty(pid_t pid, unsigned long fd, const char *pts)
{
    char path[64], link[128];
    snprintf(path, sizeof path, "/proc/%d/fd/%lu", (int)pid, fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return false;
    link[n] = 0;
    return !strcmp(link, "/dev/tty") || (pts && *pts && !strcmp(link, pts));
}

/* Polling for input on the terminal: the fds it waits to read, taken from its memory.  -1 when
 * they cannot be read. */
static int polls_tty(pid_t pid, long nr, unsigned long a0, unsigned long a1, const char *pts)
{
    if (is_pollfds(nr)) {
        struct pollfd_ {
            int fd;
            short events, revents;
        } fds[64];
        size_t n = a1 < 64 ? a1 : 64;
        if (n && !peek(pid, a0, fds, n * sizeof fds[0]))
            return -1;
        for (size_t i = 0; i < n; i++)
            if (fds[i].fd >= 0 && (fds[i].events & 1 /* POLLIN */) &&
                fd_is_tty(pid, (unsigned long)fds[i].fd, pts))
                return 1;
        return 0;
    }
    if (is_fdset(nr)) {
        unsigned char set[128]; /* fds 0..1023 */
        size_t nfds = a0 < 1024 ? a0 : 1024;
        if (!a1 || !nfds)
            return 0;
        if (!peek(pid, a1, set, (nfds + 7) / 8))
            return -1;
        for (size_t fd = 0; fd < nfds; fd++)
            if ((set[fd / 8] >> (fd % 8)) & 1 && fd_is_tty(pid, fd, pts))
                return 1;
        return 0;
    }
    return -1; /* epoll: its set lives in the kernel */
}

static bool one_waits(const shc_procinfo *pi, const shc_stall_cmd *c)
{
    if (pi->state == 'T')
        return true; /* stopped (SIGSTOP, SIGTSTP, SIGTTIN...): nothing will continue it */
    if (pi->state != 'S')
        return false;
    struct termios t;
    bool have_t = c->master >= 0 && tcgetattr(c->master, &t) == 0;
    long nr;
    unsigned long arg0, arg1;
    if (!in_syscall(pi->pid, &nr, &arg0, &arg1))
        /* not ours to look at (a setuid program such as sudo): a terminal with echo off is a
         * password prompt */
        return have_t && !(t.c_lflag & ECHO);
    if (is_read(nr))
        return fd_is_tty(pi->pid, arg0, c->pts);
    if (!is_pollfds(nr) && !is_fdset(nr) && !is_epoll(nr))
        return false;
    int r = polls_tty(pi->pid, nr, arg0, arg1, c->pts);
    if (r >= 0)
        return r == 1;
    /* the fds cannot be read: a full-screen program (raw mode) or a password prompt (no echo)
     * polling is taken as waiting for keys */
    return have_t && (!(t.c_lflag & ICANON) || !(t.c_lflag & ECHO));
}

void shc__stall_scan(const shc_stall_cmd *cmds, size_t n, bool *waiting)
{
    for (size_t i = 0; i < n; i++)
        waiting[i] = false;
    if (!n)
        return;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (*end || v <= 0)
            continue;
        shc_procinfo pi;
        if (shc__proc_stat((pid_t)v, &pi) != 0)
            continue;
        for (size_t i = 0; i < n; i++)
            if (pi.sid == cmds[i].sid && !waiting[i] && one_waits(&pi, &cmds[i]))
                waiting[i] = true;
    }
    closedir(d);
}
