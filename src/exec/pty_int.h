/* What pty.c and pty_query.c share inside src/exec/: the executor's and a command's state. */
#ifndef SHC_EXEC_PTY_INT_H
#define SHC_EXEC_PTY_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/guard.h"
#include "exec/pty.h"
#include "exec/stream.h"

enum {
    READ_SIZE = 65536,
    STUCK_GRACE_MS = 1000, /* after SIGKILL, wait this long for the leader before giving up */
    DRAIN_GRACE_MS = 150, /* after exit, wait this long for EOF before hanging up */
    DRAIN_READS = 16,     /* then read at most this many READ_SIZE blocks */
    WATCH_MS = 250,       /* how often commands are checked for waiting on terminal input */
    NUDGE_MS = 100,       /* how often, while commands run, a stopped guardian is looked for */
};

struct shc_exec {
    shc_loop *loop;   /* borrowed */
    shc_guard *guard; /* owned: forks the commands and ends them if we die; NULL once lost */
    shc_pty *live;    /* commands not ended yet (not owned) */
    uint64_t seq;
    bool paused;      /* shc_exec_pause: the PTYs are not read */
    int t_watch;      /* the input-wait check, while a command has input_wait_ms */
    int t_nudge;      /* the stopped-guardian check, while commands run */
    unsigned long long since; /* our start time: children since then are the executor's */
};

struct shc_pty {
    shc_exec *ex; /* borrowed; NULL once detached by shc_exec_free */
    shc_loop *loop;
    shc_pty *next, *prev;
    bool linked;
    pid_t pid;
    int master;
    int w_master;
    int t_timeout, t_kill, t_drain;
    bool exited, eof, done, laddering;
    bool ended; /* its group was killed, orphans swept, the leader reaped */
    shc_pty_status st;
    uint64_t t0, bytes_read;
    char token[80]; /* SHCARD_CMD_ID=... */
    shc_stream out;      /* display chunks, model text, tail ring */
    unsigned char *rbuf; /* owned, READ_SIZE */
    uint64_t kill_grace_ms;
    uint64_t input_wait_ms, wait_since; /* stall.h: how long it may wait; since when it does */
    char pts[32];                       /* its terminal, "/dev/pts/N" */
    shc_confine_watch *watch; /* owned: the supervisor of a watched command, or NULL */
    bool wait_told;
    shc_pty_confine_fn on_confine;
    shc_pty_wait_fn on_wait;
    shc_pty_output_fn on_output;
    shc_pty_exit_fn on_exit;
    void *payload;
};

#endif
