/* Commands waiting for terminal input (internal to the executor).  A command's stdin is
 * /dev/null, but a program can still open the terminal itself (read < /dev/tty, less, getpass,
 * a sudo or ssh password prompt) or be stopped (kill -STOP $$, SIGTTIN): then it waits for
 * keys nobody can type, since ACP has no way to write into a running command.
 *
 * A command waits when some process of its session is stopped, or sleeps in read() on the
 * terminal (/dev/tty or the PTY's slave), or sleeps in poll/select with the terminal among the
 * fds it waits to read (read from its memory; when that cannot be read, or for epoll, polling
 * while the terminal is in raw or no-echo mode counts); for a process we may not inspect at all
 * (setuid, such as sudo), a terminal with echo turned off counts.  pty.c ends a command that keeps waiting
 * for its input_wait_ms. */
#ifndef SHC_STALL_H
#define SHC_STALL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct shc_stall_cmd {
    pid_t sid;       /* the command's session (its leader's pid) */
    const char *pts; /* its terminal's slave, "/dev/pts/N" */
    int master;      /* its PTY master (for the terminal's modes), or -1 */
} shc_stall_cmd;

/* One pass over /proc: waiting[i] tells whether cmds[i] waits for terminal input now. */
void shc__stall_scan(const shc_stall_cmd *cmds, size_t n, bool *waiting);

#endif
