/* The Linux system calls the executor makes that older C libraries have no wrapper for
 * (pidfd_open came with glibc 2.36, close_range with 2.34): called through syscall(2), so
 * that a release binary needs nothing newer than glibc 2.28 and still uses them when the
 * kernel has them (the callers keep their fallbacks for kernels that answer ENOSYS). */
#ifndef SHC_EXEC_SYSCALLS_H
#define SHC_EXEC_SYSCALLS_H

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* the numbers are the same on every architecture but alpha (kernel 5.3 and 5.9) */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

static inline int shc__pidfd_open(pid_t pid, unsigned int flags)
{
    return (int)syscall(SYS_pidfd_open, pid, flags);
}

static inline int shc__close_range(unsigned int first, unsigned int last, unsigned int flags)
{
    return (int)syscall(SYS_close_range, first, last, flags);
}

#endif
