/* The fallback containment (where no cgroup can be made, cgroup.h): the guardian's process tree.
 * Internal to the executor.
 *
 * Every process re-parented to the guardian is an escape of some command.  Each command's first
 * process is a child subreaper (pty_spawn.c), so while it lives its orphans come back to it;
 * processes reach the guardian only when one of its own children dies - a command's first
 * process, or an escape adopted earlier - and at that moment they are attributed to the command
 * the dead one belonged to.  Nothing a command can change (environment, process group, session)
 * enters into it.  When two deaths race, or a command clears its subreaper bit, the escape is
 * "unknown" and start times decide: it belongs to one of the unfinished commands that started
 * before it, so it is killed when the last of those ends, never earlier. */
#ifndef SHC_ADOPT_H
#define SHC_ADOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A command's first process, as the guardian knows it. */
typedef struct shc_lead {
    pid_t pid;
    unsigned long long start; /* start time in clock ticks (/proc/PID/stat field 22) */
    bool taken;               /* its death was seen and its orphans attributed */
} shc_lead;

typedef struct shc_adopted {
    pid_t pid;
    unsigned long long start;
    pid_t owner; /* the command's first pid, or 0 when unknown */
} shc_adopted;

typedef struct shc_adopt {
    shc_adopted *a;
    size_t n, cap;
} shc_adopt;

/* Now, on the clock of process start times (clock ticks since boot). */
unsigned long long shc__ticks_now(void);
/* The start time of pid; 0 when it is gone. */
unsigned long long shc__proc_start(pid_t pid);
/* Attributes this process's new children (leads: the unfinished commands). */
void shc__adopt_scan(shc_adopt *t, shc_lead *leads, size_t nlead);
/* Command x ends: kills (SIGKILL) and reaps every adopted process that is x's, or no unfinished
 * command's, round after round as their children come back.  leads includes x.  Returns the
 * number killed. */
int shc__adopt_end(shc_adopt *t, pid_t x, shc_lead *leads, size_t nlead);
void shc__adopt_free(shc_adopt *t);

/* The agent's side: SIGKILL to every child of this process started at or after since (start
 * time in clock ticks) and to their subtrees, round after round (a subreaper gets the orphans
 * of what it kills), reaping them, until none is left or about 2 s have passed.  What a dead
 * guardian held comes back to the agent; nothing of it may outlive the agent. */
void shc__kill_adopted(unsigned long long since);

#endif
