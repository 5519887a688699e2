/* Per-command cgroups (cgroup v2): the containment a command cannot leave.  Internal to the
 * executor.
 *
 * Where this process may create cgroups (root, or a user slice systemd delegated to us), the
 * agent makes `<our cgroup>/shcard-<agent pid>-<nonce>/` and one `cmd-<n>/` in it per command; the
 * command's first process moves itself there before exec (pty_spawn.c), so everything it ever
 * starts - setsid, env -i, double forks - is in that cgroup until it ends.  Ending a command
 * writes cgroup.kill (kernel 5.14+; else freeze, kill every member, thaw), waits until the cgroup
 * is empty and removes it.  Where no cgroup can be made, shc__cg_setup says why and the executor
 * falls back to the guardian's process tree (sweep.h).  SHC_EXEC_NO_CGROUP=1 forces the fallback
 * (tests). */
#ifndef SHC_CGROUP_H
#define SHC_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct shc_cg {
    bool on;               /* cgroups in use */
    bool has_kill;         /* cgroup.kill exists (else freeze + kill) */
    char dir[PATH_MAX - 64]; /* <our cgroup>/shcard-<owner>-<nonce> */
} shc_cg;

/* The directory of this process's own cgroup v2 when it may create cgroups under it: 0, or -1
 * with why filled (no cgroup v2 mounted, not writable, ...). */
int shc__cg_self(char *out, size_t n, char *why, size_t nwhy);
/* Makes <our cgroup>/shcard-<owner>-<nonce>/ (and first ends the shcard-<pid>-* of agents that
 * are gone).  0 with cg->on, or -1 with cg->on false and why filled. */
int shc__cg_setup(shc_cg *cg, pid_t owner, char *why, size_t nwhy);
/* Makes cmd-<id>/ and returns an O_WRONLY|O_CLOEXEC fd on its cgroup.procs, or -1. */
int shc__cg_cmd_open(const shc_cg *cg, unsigned long id);
/* Kills every process in cmd-<id>/, waits (bounded) until it is empty, removes it.  Returns the
 * number of processes that were in it, or -1 when the cgroup was not there. */
int shc__cg_cmd_end(const shc_cg *cg, unsigned long id);
/* Ends every cmd-N directory under cg, then removes cg's own directory. */
void shc__cg_end(shc_cg *cg);

#endif
