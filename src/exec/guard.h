/* The guardian: a small process forked when an executor starts, which forks every command and
 * outlives the executor's process just long enough to end them.  Internal to the executor.
 *
 * Why: nothing runs in a process killed with SIGKILL, so the process that owns the commands must
 * not be the one that can be killed.  The guardian leaves the agent's session and process group
 * (a signal to the agent's group does not reach it), is a child subreaper (whatever a command
 * leaves behind - setsid, nohup, double forks, processes ignoring SIGTERM and SIGHUP - is
 * re-parented to it and stays in its subtree), and notices its agent's death two ways: the
 * end of its request socket, and PR_SET_PDEATHSIG.  Then it sends SIGKILL to every process
 * group it holds and to every descendant, reaps them all, and exits.
 *
 * While the agent lives the guardian does what the agent asks, over a request socket
 * (synchronous: spawn, finish) and reports each leader's exit over an event socket the agent's
 * loop watches:
 *   - spawn: the guardian runs shc__pty_fork (PTY, fork, exec; waits for the exec) and passes
 *     the PTY master back with SCM_RIGHTS.  It keeps the leader unreaped (a zombie keeps the
 *     pgid reserved) until finish.
 *   - exit event: the leader exited (pid, si_code, si_status), seen with a pidfd (or SIGCHLD and
 *     a safety poll when SHC_EXEC_NO_PIDFD=1 or the kernel has no pidfd).
 *   - finish: SIGKILL to the group, the orphan sweep (sweep.h), reap the leader; answered when
 *     done, so that a command is over, orphans included, when the executor reports it.
 * The agent may signal a leader's group itself (the kill ladder) since the pgid stays reserved.
 *
 * If the guardian dies (someone killed it), the agent is told (lost callback): the commands it
 * held were re-parented to the agent, which is a subreaper too, and the executor ends them. */
#ifndef SHC_GUARD_H
#define SHC_GUARD_H

#include <sys/types.h>

#include "base/loop.h"
#include "exec/pty.h"

typedef struct shc_guard shc_guard;

/* A leader exited: code is CLD_EXITED (status = exit code) or CLD_KILLED/CLD_DUMPED (status =
 * the signal).  Called from the loop. */
typedef void (*shc_guard_exit_fn)(void *payload, pid_t pid, int code, int status);
/* The guardian is gone (killed, or its sockets broke).  Called once, from the loop or from a
 * failed request; the guard is then unusable (shc__guard_free it). */
typedef void (*shc_guard_lost_fn)(void *payload);

/* Forks the guardian and watches its event socket on loop.  0, or SHC_E_IO / SHC_E_NOMEM. */
int shc__guard_start(shc_guard **out, shc_loop *loop, shc_guard_exit_fn on_exit,
                     shc_guard_lost_fn on_lost, void *payload);
/* Spawns a command (see shc__pty_fork for the meaning of everything).  On success *pid is the
 * leader, *master an owned, non-blocking, CLOEXEC master fd and *listener the watch's owned
 * listener fd when o->confine asked for one (else -1); both came with SCM_RIGHTS. */
int shc__guard_spawn(shc_guard *g, const shc_pty_opts *o, const char *token, pid_t *pid,
                     int *master, int *listener, shc_pty_error *err);
/* Ends a command for good: SIGKILL to its group, orphans swept, the leader reaped.  Returns
 * when that is done (0), or SHC_E_IO when the guardian is gone. */
int shc__guard_finish(shc_guard *g, pid_t pid);
int shc__guard_alive(const shc_guard *g);
/* A guardian a command stopped (kill -STOP $PPID) is continued: 1 when it was stopped. */
int shc__guard_nudge(shc_guard *g);
/* What contains the commands: "a cgroup v2 per command under DIR" or "the guardian's process
 * tree (no cgroup: WHY)".  Borrowed. */
const char *shc__guard_containment(const shc_guard *g);
pid_t shc__guard_pid(const shc_guard *g);
/* NULL-safe.  Ends the guardian (it kills whatever it still holds) and reaps it. */
void shc__guard_free(shc_guard *g);

#endif
