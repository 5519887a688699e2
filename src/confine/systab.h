/* The system calls the watch notifies, as one table both the filter (sysfilter.c) and the
 * supervisor (watch.c) read.  Internal to src/confine/. */
#ifndef SHC_CONFINE_SYSTAB_H
#define SHC_CONFINE_SYSTAB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

/* When the filter notifies a call. */
enum {
    SHC_SC_ALWAYS,    /* every call */
    SHC_SC_OPEN_ARG1, /* when arg1 (open's flags) asks for write/create/truncate/tmpfile */
    SHC_SC_OPEN_ARG2, /* the same for arg2 (openat) */
    SHC_SC_IOCTL,     /* ioctl: every request but the queries a card tool makes */
    SHC_SC_FCNTL,     /* fcntl: F_SETOWN, F_SETOWN_EX, F_SETSIG, F_SETLEASE, and the locks
                       * F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW (an unlock too: its type
                       * is in memory) */
    SHC_SC_FLOCK,     /* flock: any operation (arg1) but LOCK_UN */
    SHC_SC_MADVISE,   /* madvise: an advice (arg2) other than those on its own memory only */
    SHC_SC_FADVISE,   /* fadvise64: POSIX_FADV_DONTNEED (arg3), which drops others' cache */
    SHC_SC_PRCTL,     /* prctl(PR_SET_SECCOMP) */
    SHC_SC_ADDR4,     /* arg `path` not NULL (sendto's address, prlimit64's new limit) */
    SHC_SC_NOT_UNIX,  /* socket, socketpair: a family (arg0) other than AF_UNIX */
    SHC_SC_OUTFD,     /* read, readv on descriptor 1 or 2 (checked before the frequent calls) */
    SHC_SC_CLONE,     /* clone with a CLONE_NEW* flag (arg0) */
    SHC_SC_ENOSYS,    /* not notified: fails with ENOSYS (clone3: its flags live in memory, so
                       * libc falls back to clone, whose flags the filter sees) */
};

/* What the supervisor reads to describe it. */
enum {
    SHC_SD_PATH,    /* a path: arg `path`, relative to dirfd arg `dirfd` (-1 = cwd) */
    SHC_SD_EXEC,    /* a program path (arg `path`) */
    SHC_SD_OPENAT2, /* openat2: path arg1, struct open_how at arg2 */
    SHC_SD_SOCK,    /* a sockaddr at arg `path`, length arg `dirfd` */
    SHC_SD_MSG,     /* a struct msghdr at arg1 (sendmsg; sendmmsg's first) */
    SHC_SD_FD,      /* a descriptor at arg `dirfd`: the file it names */
    SHC_SD_DOMAIN,  /* a socket's family at arg `dirfd` */
    SHC_SD_IOCTL,   /* an ioctl request (arg1) on the descriptor at arg `dirfd` */
    SHC_SD_TTYREAD, /* a read of the descriptor at arg `dirfd`: an event when it is the terminal */
    SHC_SD_SIGNAL,  /* a signal to the process at arg `dirfd`, signal number at arg `path` */
    SHC_SD_FCNTL,   /* fcntl(fd, cmd, arg) */
    SHC_SD_PID,     /* a process at arg `dirfd` (0: itself; setpriority, ioprio_set: arg0 says
                     * whether it is a process, a group or a user) */
    SHC_SD_EXIT,    /* the process or thread ends: what it still holds open (object.c) */
    SHC_SD_NONE,
};

typedef struct shc_sysent {
    int nr;
    const char *name;
    const char *what; /* the event's class (confine.h) */
    unsigned char when, describe;
    signed char path, dirfd;
} shc_sysent;

/* The table (n entries) for the architecture this was built for. */
const shc_sysent *shc__confine_systab(size_t *n);
/* The entry for nr, or NULL. */
const shc_sysent *shc__confine_sys(int nr);

/* The watch's filter for the native ABI `arch` (AUDIT_ARCH_*), written into f (cap
 * instructions; sysfilter.c, no allocation).  Returns its length, more than cap when it does not
 * fit.  A call of another ABI is told; a call of this one as the table says. */
struct sock_filter;
enum { SHC__SYSTAB_MAX = 256, SHC__WATCH_FILTER_MAX = 40 + 11 * SHC__SYSTAB_MAX };
size_t shc__watch_filter(struct sock_filter *f, size_t cap, uint32_t arch);

/* Numbers newer than some headers; the same on x86_64 and aarch64 (the unified table). */
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#define __NR_move_mount 429
#define __NR_fsopen 430
#define __NR_fsconfig 431
#define __NR_fsmount 432
#define __NR_fspick 433
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif

#endif
