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

/* The system call a sleeping process is in, and its first argument; false if unknown
 * (running, or /proc/PID/syscall is not readable for us). */
static bool in_syscall(pid_t pid, long *nr, unsigned long *arg0)
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
    *arg0 = strtoul(end, NULL, 16);
    return true;
}

static bool is_read(long nr)
{
    return nr == SYS_read || nr == SYS_readv || nr == SYS_pread64;
}

static bool is_poll(long nr)
{
    return nr == SYS_ppoll || nr == SYS_pselect6 || nr == SYS_epoll_pwait
#ifdef SYS_poll
           || nr == SYS_poll
#endif
#ifdef SYS_select
           || nr == SYS_select
#endif
#ifdef SYS_epoll_wait
           || nr == SYS_epoll_wait
#endif
        ;
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

static bool one_waits(const shc_procinfo *pi, const shc_stall_cmd *c)
{
    if (pi->state == 'T')
        return true; /* stopped (SIGSTOP, SIGTSTP, SIGTTIN...): nothing will continue it */
    if (pi->state != 'S')
        return false;
    struct termios t;
    bool have_t = c->master >= 0 && tcgetattr(c->master, &t) == 0;
    long nr;
    unsigned long arg0;
    if (!in_syscall(pi->pid, &nr, &arg0))
        /* not ours to look at (a setuid program such as sudo): a terminal with echo off is a
         * password prompt */
        return have_t && !(t.c_lflag & ECHO);
    if (is_read(nr))
        return fd_is_tty(pi->pid, arg0, c->pts);
    /* a full-screen program (raw mode) or a password prompt (no echo) polling for keys */
    return is_poll(nr) && have_t && (!(t.c_lflag & ICANON) || !(t.c_lflag & ECHO));
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
