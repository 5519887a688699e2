/* The fork/exec half of the executor (pty.c drives it): environment, PTY pair, child setup.
 * Internal to the executor. */
#ifndef SHC_PTY_SPAWN_H
#define SHC_PTY_SPAWN_H

#include <sys/types.h>

#include "confine/confine.h"
#include "exec/pty.h"

/* Opens a PTY, forks, and in the child: resets signals, setsid, sets the controlling tty, puts
 * /dev/null on fd 0 and the tty on 1 and 2, closes every other fd, chdir, execve.  Waits until
 * the exec happened or failed (a CLOEXEC pipe carries the child's errno), so a chdir or exec
 * failure is an error here and never output.  On success *pid is the leader and *master the
 * owned non-blocking, CLOEXEC master fd.  token ("NAME=value") is added to the environment.
 * cg (or -1): a cgroup.procs fd the child writes itself into before anything else (cgroup.h);
 * the child is also made a child subreaper, so that orphans of its tree stay with it while it
 * lives.  With spec (may be NULL) asking for a watch, the child applies it last before exec,
 * and *listener is the owned, CLOEXEC listener fd (else -1); the exec of the shell was answered.
 * 0 or a negative SHC_E_* with err filled (stage "cgroup" when the move failed). */
int shc__pty_fork(pid_t *pid, int *master, int *listener, const shc_pty_opts *o,
                  const shc_confine_spec *spec, const char *token, int cg, shc_pty_error *err);

#endif
