/* The child's side of confinement (confine.h): the spec's wire form, the filter built from the
 * system call table, installing it, and the forking process's first steps with the listener.
 * Raw syscall() throughout: the release build must not need glibc symbols newer than 2.28. */
#define _GNU_SOURCE
#include "confine/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "confine/sandbox.h"
#include "confine/systab.h"
#include "shcard.h"

#if defined(__x86_64__)
#define SHC_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SHC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#define SHC_AUDIT_ARCH 0 /* no watch on other architectures: shc_confine_available says so */
#endif

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef __NR_file_setattr
#define __NR_file_setattr 469
#endif
#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
/* Open flags that make an open more than a read: O_WRONLY, O_RDWR, O_CREAT, O_TRUNC and
 * __O_TMPFILE (the same values on x86_64 and aarch64). */
#define WRITE_FLAGS (01u | 02u | 0100u | 01000u | 020000000u)
/* CLONE_NEWNS, _NEWCGROUP, _NEWUTS, _NEWIPC, _NEWUSER, _NEWPID, _NEWNET (not NEWTIME: clone3's) */
#define CLONE_NEWS 0x7E020000u

/* The ioctl requests a read, search or list tool makes, all queries: every other request is
 * told (its direction bits say how the argument is copied, not whether state changes: socket
 * requests 0x89NN have none, FS_IOC_SET_ENCRYPTION_POLICY is _IOR, LOOP_CTL_ADD is _IO).  The
 * same numbers on x86_64 and aarch64. */
static const uint32_t ioctl_reads[] = {
    0x5401 /* TCGETS */,       0x5405 /* TCGETA */,        0x540F /* TIOCGPGRP */,
    0x5411 /* TIOCOUTQ */,     0x5413 /* TIOCGWINSZ */,    0x5415 /* TIOCMGET */,
    0x5419 /* TIOCGSOFTCAR */, 0x541B /* FIONREAD */,      0x541E /* TIOCGSERIAL */,
    0x5421 /* FIONBIO */,      0x5424 /* TIOCGETD */,      0x5429 /* TIOCGSID */,
    0x5450 /* FIONCLEX */,     0x5451 /* FIOCLEX */,       0x5456 /* TIOCGLCKTRMIOS */,
    0x5460 /* FIOQSIZE */,     0x802C542A /* TCGETS2 */,   0x80045430 /* TIOCGPTN */,
    0x80045432 /* TIOCGDEV */, 0x80045439 /* TIOCGPTLCK */, 0x80045438 /* TIOCGPKT */,
    0x80045440 /* TIOCGEXCL */, 0x80086601 /* FS_IOC_GETFLAGS */,
    0x80046601 /* FS_IOC32_GETFLAGS */, 0x80087601 /* FS_IOC_GETVERSION */,
    0x801C581F /* FS_IOC_FSGETXATTR */, 0xC020660B /* FS_IOC_FIEMAP */, 0x2 /* FIGETBSZ */,
    0x80081272 /* BLKGETSIZE64 */, 0x1260 /* BLKGETSIZE */, 0x1268 /* BLKSSZGET */,
    0x80081270 /* BLKBSZGET */,
};

/* The calls a search makes most, allowed before the table is walked (read first tests its fd). */
static const int frequent[] = {
    __NR_close, __NR_fstat, __NR_getdents64, __NR_lseek, __NR_mmap,
    __NR_write, __NR_futex, __NR_statx, __NR_pread64,    __NR_brk,   __NR_munmap,
#ifdef __NR_newfstatat
    __NR_newfstatat,
#endif
};

#define ENT(n, w, when, d, p, fd) {__NR_##n, #n, w, when, d, p, fd}
static const shc_sysent systab[] = {
    ENT(execve, "exec", SHC_SC_ALWAYS, SHC_SD_EXEC, 0, -1),
    ENT(execveat, "exec", SHC_SC_ALWAYS, SHC_SD_EXEC, 1, 0),
#ifdef __NR_open
    ENT(open, "write", SHC_SC_OPEN_ARG1, SHC_SD_PATH, 0, -1),
#endif
#ifdef __NR_creat
    ENT(creat, "write", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
    ENT(openat, "write", SHC_SC_OPEN_ARG2, SHC_SD_PATH, 1, 0),
    ENT(openat2, "write", SHC_SC_ALWAYS, SHC_SD_OPENAT2, 1, 0), /* flags in memory: an event */
#ifdef __NR_unlink
    ENT(unlink, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
    ENT(unlinkat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
#ifdef __NR_rename
    ENT(rename, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
#ifdef __NR_renameat
    ENT(renameat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
#endif
    ENT(renameat2, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
#ifdef __NR_mkdir
    ENT(mkdir, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
    ENT(mkdirat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
#ifdef __NR_rmdir
    ENT(rmdir, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
#ifdef __NR_link
    ENT(link, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, -1),
#endif
    ENT(linkat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 3, 2),
#ifdef __NR_symlink
    ENT(symlink, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, -1),
#endif
    ENT(symlinkat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 2, 1),
    ENT(truncate, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
    ENT(ftruncate, "change", SHC_SC_ALWAYS, SHC_SD_FD, -1, 0),
    ENT(fallocate, "change", SHC_SC_ALWAYS, SHC_SD_FD, -1, 0),
#ifdef __NR_chmod
    ENT(chmod, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
    ENT(fchmod, "change", SHC_SC_ALWAYS, SHC_SD_FD, -1, 0),
    ENT(fchmodat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
    ENT(fchmodat2, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
#ifdef __NR_chown
    ENT(chown, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
#ifdef __NR_lchown
    ENT(lchown, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
    ENT(fchown, "change", SHC_SC_ALWAYS, SHC_SD_FD, -1, 0),
    ENT(fchownat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
#ifdef __NR_utime
    ENT(utime, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
#ifdef __NR_utimes
    ENT(utimes, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
#ifdef __NR_futimesat
    ENT(futimesat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
#endif
    ENT(utimensat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
#ifdef __NR_mknod
    ENT(mknod, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
#endif
    ENT(mknodat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
    ENT(setxattr, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
    ENT(lsetxattr, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
    ENT(fsetxattr, "change", SHC_SC_ALWAYS, SHC_SD_FD, -1, 0),
    ENT(removexattr, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
    ENT(lremovexattr, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
    ENT(fremovexattr, "change", SHC_SC_ALWAYS, SHC_SD_FD, -1, 0),
    ENT(setxattrat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
    ENT(removexattrat, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
    ENT(file_setattr, "change", SHC_SC_ALWAYS, SHC_SD_PATH, 1, 0),
    ENT(connect, "network", SHC_SC_ALWAYS, SHC_SD_SOCK, 1, 2),
    ENT(bind, "network", SHC_SC_ALWAYS, SHC_SD_SOCK, 1, 2),
    ENT(sendto, "network", SHC_SC_ADDR4, SHC_SD_SOCK, 4, 5),
    ENT(sendmsg, "network", SHC_SC_ALWAYS, SHC_SD_MSG, 1, -1),
    ENT(sendmmsg, "network", SHC_SC_ALWAYS, SHC_SD_MSG, 1, -1),
    /* any socket but AF_UNIX: the network without an address (listen's autobind, netlink) */
    ENT(socket, "network", SHC_SC_NOT_UNIX, SHC_SD_DOMAIN, -1, 0),
    ENT(socketpair, "network", SHC_SC_NOT_UNIX, SHC_SD_DOMAIN, -1, 0),
    ENT(listen, "network", SHC_SC_ALWAYS, SHC_SD_FD, -1, 0),
    ENT(ioctl, "terminal", SHC_SC_IOCTL, SHC_SD_IOCTL, -1, 0),
    ENT(fcntl, "signal", SHC_SC_FCNTL, SHC_SD_FCNTL, -1, 0),
    ENT(read, "terminal", SHC_SC_OUTFD, SHC_SD_TTYREAD, -1, 0),
    ENT(readv, "terminal", SHC_SC_OUTFD, SHC_SD_TTYREAD, -1, 0),
    ENT(io_uring_setup, "io_uring", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(ptrace, "process", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(process_vm_writev, "process", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(process_madvise, "process", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(pidfd_getfd, "process", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    /* signals: to a process outside the command's own tree (watch.c decides) */
    ENT(kill, "signal", SHC_SC_ALWAYS, SHC_SD_SIGNAL, 1, 0),
    ENT(tkill, "signal", SHC_SC_ALWAYS, SHC_SD_SIGNAL, 1, 0),
    ENT(tgkill, "signal", SHC_SC_ALWAYS, SHC_SD_SIGNAL, 2, 0),
    ENT(rt_sigqueueinfo, "signal", SHC_SC_ALWAYS, SHC_SD_SIGNAL, 1, 0),
    ENT(rt_tgsigqueueinfo, "signal", SHC_SC_ALWAYS, SHC_SD_SIGNAL, 2, 0),
    ENT(pidfd_send_signal, "signal", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    /* settings of a process: only its own tree's (watch.c) */
    ENT(prlimit64, "process", SHC_SC_ADDR4, SHC_SD_PID, 2, 0),
    ENT(setpriority, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 1),
    ENT(ioprio_set, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 1),
    ENT(sched_setaffinity, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 0),
    ENT(sched_setscheduler, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 0),
    ENT(sched_setparam, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 0),
    ENT(sched_setattr, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 0),
    ENT(migrate_pages, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 0),
    ENT(move_pages, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 0),
    /* what a read, search or list tool never needs: the system's state, other IPC, handles */
    ENT(open_by_handle_at, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(mq_open, "system", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
    ENT(mq_unlink, "system", SHC_SC_ALWAYS, SHC_SD_PATH, 0, -1),
    ENT(mq_timedsend, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(msgget, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(msgsnd, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(shmget, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(semget, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(msgrcv, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1), /* an id can be guessed */
    ENT(msgctl, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(shmat, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(shmctl, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(semctl, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(semop, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(semtimedop, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    /* a filter of its own: a newer listener would take the watch's notifications */
    ENT(seccomp, "blind", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(prctl, "blind", SHC_SC_PRCTL, SHC_SD_NONE, -1, -1),
    ENT(mount, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(umount2, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(open_tree, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(move_mount, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(fsopen, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(fsconfig, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(fsmount, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(fspick, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(mount_setattr, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(pivot_root, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(chroot, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(unshare, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(setns, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(sethostname, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(setdomainname, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(settimeofday, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(clock_settime, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(clock_adjtime, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(adjtimex, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(reboot, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(swapon, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(swapoff, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(init_module, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(finit_module, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(delete_module, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(kexec_load, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
#ifdef __NR_kexec_file_load
    ENT(kexec_file_load, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
#endif
    ENT(keyctl, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(add_key, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(request_key, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(bpf, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(perf_event_open, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(fanotify_init, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(fanotify_mark, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(userfaultfd, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(acct, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(quotactl, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(quotactl_fd, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(clone, "system", SHC_SC_CLONE, SHC_SD_NONE, -1, -1), /* new namespaces, as unshare */
    ENT(clone3, "system", SHC_SC_ENOSYS, SHC_SD_NONE, -1, -1),
    ENT(syslog, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(vhangup, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
#ifdef __NR_iopl
    ENT(iopl, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(ioperm, "system", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
#endif
    ENT(process_vm_readv, "process", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(kcmp, "process", SHC_SC_ALWAYS, SHC_SD_NONE, -1, -1),
    ENT(pidfd_open, "process", SHC_SC_ALWAYS, SHC_SD_PID, -1, 0), /* outside its own tree */
};
#undef ENT

const shc_sysent *shc__confine_systab(size_t *n)
{
    *n = sizeof systab / sizeof systab[0];
    return systab;
}

const shc_sysent *shc__confine_sys(int nr)
{
    for (size_t i = 0; i < sizeof systab / sizeof systab[0]; i++)
        if (systab[i].nr == nr)
            return &systab[i];
    return NULL;
}

/* ------------------------------------------------------------------ the spec's wire form */

static void put32(char *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

static uint32_t get32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

size_t shc_confine_pack(const shc_confine_spec *s, char *buf, size_t cap)
{
    size_t n = 20 + s->programs_len + s->writable_len;
    if (n > cap || n > SHC_CONFINE_PACK_MAX)
        return 0;
    put32(buf, 2); /* version */
    put32(buf + 4, s->flags);
    put32(buf + 8, (uint32_t)s->programs_len);
    put32(buf + 12, s->sandbox);
    put32(buf + 16, (uint32_t)s->writable_len);
    if (s->programs_len)
        memcpy(buf + 20, s->programs, s->programs_len);
    if (s->writable_len)
        memcpy(buf + 20 + s->programs_len, s->writable, s->writable_len);
    return n;
}

int shc_confine_unpack(shc_confine_spec *out, const char *buf, size_t len)
{
    memset(out, 0, sizeof *out);
    if (len < 20 || get32(buf) != 2)
        return SHC_E_USAGE;
    uint32_t pl = get32(buf + 8), wl = get32(buf + 16), mode = get32(buf + 12);
    if (pl > len - 20 || wl != len - 20 - pl || (pl && buf[20 + pl - 1] != 0) ||
        (wl && buf[len - 1] != 0) || !shc_sandbox_name(mode))
        return SHC_E_USAGE;
    out->flags = get32(buf + 4);
    out->programs = pl ? buf + 20 : NULL;
    out->programs_len = pl;
    out->sandbox = mode;
    out->writable = wl ? buf + 20 + pl : NULL;
    out->writable_len = wl;
    return 0;
}

/* ------------------------------------------------------------------ the kernel */

static long sys_seccomp(unsigned op, unsigned flags, void *arg)
{
    return syscall(__NR_seccomp, op, flags, arg);
}

bool shc_confine_available(const char **why)
{
    const char *no = getenv("SHCARD_NO_VERIFY");
    if (no && !strcmp(no, "1")) {
        *why = "SHCARD_NO_VERIFY=1";
        return false;
    }
    if (!SHC_AUDIT_ARCH) {
        *why = "this architecture has no watch";
        return false;
    }
    uint32_t act = SECCOMP_RET_USER_NOTIF;
    if (sys_seccomp(SECCOMP_GET_ACTION_AVAIL, 0, &act) != 0) {
        *why = "the kernel has no seccomp user notification";
        return false;
    }
    struct utsname u;
    unsigned maj = 0, min = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &maj, &min) != 2 ||
        maj * 1000 + min < 5006) {
        *why = "the kernel is older than 5.6 (seccomp CONTINUE, pidfd_getfd)";
        return false;
    }
    /* pidfd_getfd on no pidfd: EBADF where it exists, ENOSYS (or a seccomp EPERM) where not */
    errno = 0;
    if (syscall(__NR_pidfd_getfd, -1, 0, 0) != -1 || errno != EBADF) {
        *why = "pidfd_getfd is not available";
        return false;
    }
    *why = NULL;
    return true;
}

/* Filter instructions, written into a caller's array (no allocation: the child may not). */
typedef struct fbuf {
    struct sock_filter *f;
    size_t n, cap;
} fbuf;

static void emit(fbuf *b, unsigned short code, unsigned char jt, unsigned char jf, uint32_t k)
{
    if (b->n < b->cap)
        b->f[b->n] = (struct sock_filter){code, jt, jf, k};
    b->n++;
}

#define LD_ABS (BPF_LD | BPF_W | BPF_ABS)
#define JEQ (BPF_JMP | BPF_JEQ | BPF_K)
#define RET (BPF_RET | BPF_K)
#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args) + 8u * (uint32_t)(i))
#define ARG_HI(i) (ARG_LO(i) + 4u) /* little-endian on both architectures */

static void build(fbuf *b)
{
    emit(b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, arch));
    emit(b, JEQ, 1, 0, SHC_AUDIT_ARCH);
    emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF); /* a foreign ABI: every call is told */
    emit(b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
    emit(b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, 0x40000000u); /* x32 */
    emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
#endif
    /* read and readv: told only on descriptors 1 and 2 (the terminal, opened read-write) */
    for (size_t i = 0; i < sizeof systab / sizeof systab[0]; i++) {
        if (systab[i].when != SHC_SC_OUTFD)
            continue;
        emit(b, JEQ, 0, 5, (uint32_t)systab[i].nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 2, 0, 1);
        emit(b, JEQ, 1, 0, 2);
        emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
        emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
    }
    for (size_t i = 0; i < sizeof frequent / sizeof frequent[0]; i++) {
        emit(b, JEQ, 0, 1, (uint32_t)frequent[i]);
        emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
    }
    for (size_t i = 0; i < sizeof systab / sizeof systab[0]; i++) {
        const shc_sysent *e = &systab[i];
        uint32_t nr = (uint32_t)e->nr;
        switch (e->when) {
        case SHC_SC_OUTFD: break; /* above */
        case SHC_SC_NOT_UNIX: /* socket(domain, ...): any family but AF_UNIX */
            emit(b, JEQ, 0, 4, nr);
            emit(b, LD_ABS, 0, 0, ARG_LO(0));
            emit(b, JEQ, 1, 0, 1 /* AF_UNIX */);
            emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
            emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
            break;
        case SHC_SC_IOCTL: { /* every request but the queries above */
            size_t na = sizeof ioctl_reads / sizeof ioctl_reads[0];
            emit(b, JEQ, 0, (unsigned char)(na + 3), nr);
            emit(b, LD_ABS, 0, 0, ARG_LO(1));
            for (size_t k = 0; k < na; k++) /* -> ALLOW after the NOTIF */
                emit(b, JEQ, (unsigned char)(na - k), 0, ioctl_reads[k]);
            emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
            emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
            break;
        }
        case SHC_SC_CLONE:
            emit(b, JEQ, 0, 4, nr);
            emit(b, LD_ABS, 0, 0, ARG_LO(0));
            emit(b, BPF_JMP | BPF_JSET | BPF_K, 0, 1, CLONE_NEWS);
            emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
            emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
            break;
        case SHC_SC_ENOSYS:
            emit(b, JEQ, 0, 1, nr);
            emit(b, RET, 0, 0, SECCOMP_RET_ERRNO | ENOSYS);
            break;
        case SHC_SC_ALWAYS:
            emit(b, JEQ, 0, 1, nr);
            emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
            break;
        case SHC_SC_PRCTL: /* prctl(PR_SET_SECCOMP) */
            emit(b, JEQ, 0, 4, nr);
            emit(b, LD_ABS, 0, 0, ARG_LO(0));
            emit(b, JEQ, 0, 1, 22 /* PR_SET_SECCOMP */);
            emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
            emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
            break;
        case SHC_SC_FCNTL: /* fcntl: a signal's owner (SIGIO, SIGURG), a lease */
            emit(b, JEQ, 0, 7, nr);
            emit(b, LD_ABS, 0, 0, ARG_LO(1));
            emit(b, JEQ, 4, 0, 8 /* F_SETOWN */);
            emit(b, JEQ, 3, 0, 15 /* F_SETOWN_EX */);
            emit(b, JEQ, 2, 0, 10 /* F_SETSIG */);
            emit(b, JEQ, 1, 0, 1024 /* F_SETLEASE */);
            emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
            emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
            break;
        case SHC_SC_OPEN_ARG1:
        case SHC_SC_OPEN_ARG2: {
            int arg = e->when == SHC_SC_OPEN_ARG1 ? 1 : 2;
            emit(b, JEQ, 0, 4, nr);
            emit(b, LD_ABS, 0, 0, ARG_LO(arg));
            emit(b, BPF_JMP | BPF_JSET | BPF_K, 0, 1, WRITE_FLAGS);
            emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
            emit(b, RET, 0, 0, SECCOMP_RET_ALLOW); /* A no longer holds nr */
            break;
        }
        case SHC_SC_ADDR4: /* arg `path` (sendto's address, prlimit64's new limit) not NULL */
            emit(b, JEQ, 0, 6, nr);
            emit(b, LD_ABS, 0, 0, ARG_LO(e->path));
            emit(b, JEQ, 0, 2, 0);
            emit(b, LD_ABS, 0, 0, ARG_HI(e->path));
            emit(b, JEQ, 1, 0, 0);
            emit(b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
            emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
            break;
        default: break;
        }
    }
    emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
}

int shc_confine_apply(const shc_confine_spec *s, int *listener)
{
    *listener = -1;
    if (s && s->sandbox != SHC_SANDBOX_OFF) {
        int rc = shc__sandbox_apply(s);
        if (rc)
            return rc;
    }
    if (s && s->sandbox == SHC_SANDBOX_WORKSPACE && !(s->flags & SHC_CONFINE_WATCH)) {
        /* the metadata calls go to the supervisor (attrs.c); with the watch, its filter
         * notifies them already (only one listener per process) */
        int fd = shc__attr_listener();
        if (fd == -EBUSY) /* a supervisor of ours already (nested): refuse them all instead */
            return shc__attrfilter_apply(SHC_SANDBOX_READ_ONLY);
        if (fd < 0)
            return fd;
        *listener = fd;
        return 0;
    }
    if (!s || !(s->flags & SHC_CONFINE_WATCH))
        return 0;
    if (!SHC_AUDIT_ARCH)
        return -ENOSYS;
    struct sock_filter f[8 + 2 * sizeof frequent / sizeof frequent[0] +
                         sizeof ioctl_reads / sizeof ioctl_reads[0] +
                         16 * sizeof systab / sizeof systab[0]];
    fbuf b = {f, 0, sizeof f / sizeof f[0]};
    build(&b);
    if (b.n > b.cap)
        return -E2BIG;
    struct sock_fprog prog = {(unsigned short)b.n, f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    /* SPEC_ALLOW: a filter would otherwise switch on the speculative store bypass mitigation for
     * the process (and its children), slowing every watched command by ~10%: the watch
     * observes, it is not a sandbox against side channels. */
    long fd = sys_seccomp(SECCOMP_SET_MODE_FILTER,
                          SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog);
    if (fd < 0)
        return -errno;
    *listener = (int)fd;
    return 0;
}

void shc_confine_handoff(const shc_confine_spec *s)
{
    if (s && !(s->flags & SHC_CONFINE_WATCH) && s->sandbox == SHC_SANDBOX_WORKSPACE)
        syscall(__NR_prctl, SHC__CONFINE_MARKER, 0, 0, 0, 0);
}

int shc_confine_take(pid_t child, int fd)
{
    long pfd = syscall(__NR_pidfd_open, child, 0);
    if (pfd < 0)
        return -errno;
    long got = syscall(__NR_pidfd_getfd, (int)pfd, fd, 0);
    int e = errno;
    close((int)pfd);
    if (got < 0)
        return -e;
    fcntl((int)got, F_SETFD, FD_CLOEXEC); /* pidfd_getfd sets it already; say so anyway */
    return (int)got;
}

int shc_confine_pass_exec(int listener, int timeout_ms)
{
    struct seccomp_notif_sizes sz;
    if (sys_seccomp(SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
        return -errno;
    size_t nsz = sz.seccomp_notif > sizeof(struct seccomp_notif) ? sz.seccomp_notif
                                                                  : sizeof(struct seccomp_notif);
    size_t rsz = sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
                     ? sz.seccomp_notif_resp
                     : sizeof(struct seccomp_notif_resp);
    struct seccomp_notif *n = calloc(1, nsz);
    struct seccomp_notif_resp *r = calloc(1, rsz);
    int rc = -ENOMEM;
    if (!n || !r)
        goto done;
    struct pollfd pf = {listener, POLLIN, 0};
    int pr;
    do
        pr = poll(&pf, 1, timeout_ms);
    while (pr < 0 && errno == EINTR);
    if (pr <= 0 || !(pf.revents & POLLIN)) {
        rc = pr < 0 ? -errno : -ETIMEDOUT;
        goto done;
    }
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0) {
        rc = -errno;
        goto done;
    }
    r->id = n->id;
    r->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    rc = ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, r) == 0 ? 0 : -errno;
done:
    free(n);
    free(r);
    return rc;
}
