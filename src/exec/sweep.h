/* The orphan sweep (executor-and-performance.md §1.9 item 7): after a command ends, find the
 * processes it left behind and end them.  This process must be a child subreaper, so escaped
 * processes (setsid, nohup, double fork) are re-parented to it when their parents die.
 *
 * A process belongs to the command when its process group or session is the command's leader
 * pid, or when it is our child and its environment carries the command's token.  Each match
 * gets SIGKILL; our zombie children are reaped, except the pids in keep (live leaders that
 * their own executor will reap). */
#ifndef SHC_SWEEP_H
#define SHC_SWEEP_H

#include <stddef.h>
#include <sys/types.h>

/* A process's state letter, parent, group and session, from /proc/PID/stat. */
typedef struct shc_procinfo {
    pid_t pid, ppid, pgrp, sid;
    char state;
} shc_procinfo;
int shc__proc_stat(pid_t pid, shc_procinfo *pi); /* 0, or -1 when it is gone */

/* token: "NAME=value" as put into the command's environment, or NULL.  Returns the number of
 * processes signalled. */
int shc__sweep(pid_t leader, const char *token, const pid_t *keep, size_t nkeep);

/* The children of pid (0 = this process), from /proc/PID/task/TID/children: the count, or -1
 * when the kernel has no such file. */
int shc__children(pid_t pid, pid_t *out, int max);

/* Reaps every zombie child of this process whose pid is not in keep. */
void shc__reap_orphans(const pid_t *keep, size_t nkeep);

/* SIGKILL to every descendant of this process (found through /proc/PID/task/TID/children,
 * round after round, since a dying process's children come back to us as a subreaper), and
 * reaps them, until none is left or about 2 s have passed. */
void shc__kill_descendants(void);

/* Number of processes whose parent is this process (zombies included), for tests. */
int shc__count_children(int *zombies);

#endif
