/* The table of watched system calls (systab.h) and the watch's seccomp filter built from it in
 * the child (no allocation).  After the architecture checks, the call's number is looked up in a binary tree
 * of JGE tests over the table's numbers, sorted; each leaf tests at most LEAF numbers in turn
 * (a call always told: one test jumping to the leaf's NOTIFY; the others: their block) and
 * allows every other call.  What a call gets is exactly what the
 * table says; the tree only keeps the filter's walk short: at install the kernel walks the
 * filter once for every system call number (its cache of always-allowed calls), and a linear
 * list of 150 numbers made that walk, not the filter, the cost of a watched command's start. */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

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

#include "confine/bpfbuf.h"
#include "confine/systab.h"

enum { LEAF = 8 };

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
    /* effects beyond the process and what it reads: a lock holds other programs off (a
     * read-only descriptor can take one: dpkg's lock-frontend, sqlite's locks); madvise's
     * HWPOISON and SOFT_OFFLINE take a page out of the machine, COLLAPSE, PAGEOUT, COLD and
     * REMOVE act on memory others share; fadvise64's DONTNEED drops the page cache of a file
     * for every user */
    ENT(flock, "system", SHC_SC_FLOCK, SHC_SD_FD, -1, 0),
    ENT(madvise, "system", SHC_SC_MADVISE, SHC_SD_NONE, -1, -1),
    ENT(fadvise64, "system", SHC_SC_FADVISE, SHC_SD_FD, -1, 0),
    /* the end of a process (and of a thread): a program the exec check has not seen yet is
     * looked at now at the latest, and what it reads from others still open (watch.c) */
    ENT(exit_group, "terminal", SHC_SC_ALWAYS, SHC_SD_EXIT, -1, -1),
    ENT(exit, "terminal", SHC_SC_ALWAYS, SHC_SD_EXIT, -1, -1),
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

/* The madvise advices that act on the caller's own memory only: NORMAL, RANDOM, SEQUENTIAL,
 * WILLNEED, DONTNEED, FREE, DONTFORK, DOFORK, UNMERGEABLE, HUGEPAGE, NOHUGEPAGE, DONTDUMP,
 * DODUMP, WIPEONFORK, KEEPONFORK, POPULATE_READ, POPULATE_WRITE, DONTNEED_LOCKED,
 * GUARD_INSTALL, GUARD_REMOVE.  Every other one is told (REMOVE 9, MERGEABLE 12, COLD 20,
 * PAGEOUT 21, COLLAPSE 25, HWPOISON 100, SOFT_OFFLINE 101, and any new one). */
static const uint32_t madv_own[] = {0, 1, 2, 3, 4, 8, 10, 11, 13, 14, 15, 16, 17, 18, 19, 22, 23, 24,
                                    102, 103};

/* fcntl commands told: F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW, F_SETOWN, F_SETOWN_EX,
 * F_SETSIG, F_SETLEASE (F_GETLK, F_OFD_GETLK and the other queries are not). */
static const uint32_t fcntl_told[] = {6, 7, 37, 38, 8, 15, 10, 1024};

#define NOTIFY SECCOMP_RET_USER_NOTIF
#define ALLOW SECCOMP_RET_ALLOW
#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args) + 8u * (uint32_t)(i))
#define ARG_HI(i) (ARG_LO(i) + 4u) /* little-endian on both architectures */

/* One entry's block: "A == nr ?" (A holds the number; when not, the block is skipped with A
 * unchanged), then its tests, every path ending in a return. */
static void block(fbuf *b, const shc_sysent *e)
{
    uint32_t nr = (uint32_t)e->nr;
    switch (e->when) {
    case SHC_SC_OUTFD: /* read, readv: told only on descriptors 1 and 2 (the terminal) */
        emit(b, JEQ, 0, 5, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 2, 0, 1);
        emit(b, JEQ, 1, 0, 2);
        emit(b, RET, 0, 0, ALLOW);
        emit(b, RET, 0, 0, NOTIFY);
        break;
    case SHC_SC_NOT_UNIX: /* socket(domain, ...): any family but AF_UNIX */
        emit(b, JEQ, 0, 4, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 1, 0, 1 /* AF_UNIX */);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_IOCTL: { /* every request but the queries above */
        size_t na = sizeof ioctl_reads / sizeof ioctl_reads[0];
        emit(b, JEQ, 0, (unsigned char)(na + 3), nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(1));
        for (size_t k = 0; k < na; k++) /* -> ALLOW after the NOTIFY */
            emit(b, JEQ, (unsigned char)(na - k), 0, ioctl_reads[k]);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    }
    case SHC_SC_CLONE: /* clone with a CLONE_NEW* flag, as unshare */
        emit(b, JEQ, 0, 4, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, BPF_JMP | BPF_JSET | BPF_K, 0, 1, CLONE_NEWS);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_ENOSYS: /* not told: fails with ENOSYS */
        emit(b, JEQ, 0, 1, nr);
        emit(b, RET, 0, 0, SECCOMP_RET_ERRNO | 38 /* ENOSYS */);
        break;
    case SHC_SC_PRCTL: /* prctl(PR_SET_SECCOMP) */
        emit(b, JEQ, 0, 4, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 0, 1, 22 /* PR_SET_SECCOMP */);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_FCNTL: { /* fcntl: a lock, a signal's owner (SIGIO, SIGURG), a lease */
        size_t nf = sizeof fcntl_told / sizeof fcntl_told[0];
        emit(b, JEQ, 0, (unsigned char)(nf + 3), nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(1));
        for (size_t k = 0; k < nf; k++) /* -> the NOTIFY after the ALLOW */
            emit(b, JEQ, (unsigned char)(nf - k), 0, fcntl_told[k]);
        emit(b, RET, 0, 0, ALLOW);
        emit(b, RET, 0, 0, NOTIFY);
        break;
    }
    case SHC_SC_MADVISE: { /* madvise: any advice but those on its own memory */
        size_t na = sizeof madv_own / sizeof madv_own[0];
        emit(b, JEQ, 0, (unsigned char)(na + 3), nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(2));
        for (size_t k = 0; k < na; k++) /* -> the ALLOW after the NOTIFY */
            emit(b, JEQ, (unsigned char)(na - k), 0, madv_own[k]);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    }
    case SHC_SC_FLOCK: /* flock: any operation but LOCK_UN (with or without LOCK_NB) */
        emit(b, JEQ, 0, 5, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(1));
        emit(b, BPF_ALU | BPF_AND | BPF_K, 0, 0, ~4u /* LOCK_NB */);
        emit(b, JEQ, 1, 0, 8 /* LOCK_UN */);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_FADVISE: /* fadvise64(fd, offset, len, advice): POSIX_FADV_DONTNEED */
        emit(b, JEQ, 0, 4, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(3));
        emit(b, JEQ, 0, 1, 4 /* POSIX_FADV_DONTNEED */);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_OPEN_ARG1:
    case SHC_SC_OPEN_ARG2:
        emit(b, JEQ, 0, 4, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(e->when == SHC_SC_OPEN_ARG1 ? 1 : 2));
        emit(b, BPF_JMP | BPF_JSET | BPF_K, 0, 1, WRITE_FLAGS);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_ADDR4: /* arg `path` (sendto's address, prlimit64's new limit) not NULL */
        emit(b, JEQ, 0, 6, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(e->path));
        emit(b, JEQ, 0, 2, 0);
        emit(b, LD_ABS, 0, 0, ARG_HI(e->path));
        emit(b, JEQ, 1, 0, 0);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_ALWAYS: /* one test in its leaf (leaf()) */
    default: break;
    }
}

/* A leaf: the entries ix[0..n) in turn, then ALLOW, then the NOTIFY that an ALWAYS entry's one
 * test jumps to (A holds the number; a block not taken leaves it so). */
static void leaf(fbuf *b, const shc_sysent *tab, const unsigned short *ix, size_t n)
{
    size_t end = b->n; /* where the tests end: counted first */
    for (size_t i = 0; i < n; i++) {
        if (tab[ix[i]].when == SHC_SC_ALWAYS) {
            end++;
        } else {
            fbuf one = {NULL, 0, 0};
            block(&one, &tab[ix[i]]);
            end += one.n;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (tab[ix[i]].when == SHC_SC_ALWAYS) /* to the NOTIFY after the ALLOW at end */
            emit(b, JEQ, (unsigned char)(end + 1 - b->n - 1), 0, (uint32_t)tab[ix[i]].nr);
        else
            block(b, &tab[ix[i]]);
    }
    emit(b, RET, 0, 0, ALLOW);
    emit(b, RET, 0, 0, NOTIFY);
}

/* The entries ix[0..n) (sorted by number, distinct): A holds the call's number.  A JGE goes to
 * the upper half past the lower one (through a JA when that is too far for its 8 bits). */
static void tree(fbuf *b, const shc_sysent *tab, const unsigned short *ix, size_t n)
{
    if (n <= LEAF) {
        leaf(b, tab, ix, n);
        return;
    }
    size_t mid = n / 2;
    fbuf dry = {NULL, 0, 0};
    tree(&dry, tab, ix, mid);
    uint32_t k = (uint32_t)tab[ix[mid]].nr;
    if (dry.n <= 255) {
        emit(b, BPF_JMP | BPF_JGE | BPF_K, (unsigned char)dry.n, 0, k);
    } else {
        emit(b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, k);
        emit(b, BPF_JMP | BPF_JA, 0, 0, (uint32_t)dry.n);
    }
    tree(b, tab, ix, mid);
    tree(b, tab, ix + mid, n - mid);
}

size_t shc__watch_filter(struct sock_filter *f, size_t cap, uint32_t arch)
{
    fbuf b = {f, 0, cap};
    size_t n = 0;
    const shc_sysent *tab = shc__confine_systab(&n);
    unsigned short ix[SHC__SYSTAB_MAX];
    size_t m = 0;
    if (n > SHC__SYSTAB_MAX)
        return cap + 1;
    /* sorted by number (insertion, stable); a number listed twice keeps its first entry */
    for (size_t i = 0; i < n; i++) {
        size_t j = m;
        while (j > 0 && tab[ix[j - 1]].nr > tab[i].nr)
            j--;
        if (j > 0 && tab[ix[j - 1]].nr == tab[i].nr)
            continue;
        for (size_t k = m; k > j; k--)
            ix[k] = ix[k - 1];
        ix[j] = (unsigned short)i;
        m++;
    }
    emit(&b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, arch));
    emit(&b, JEQ, 1, 0, arch);
    emit(&b, RET, 0, 0, NOTIFY); /* a foreign ABI: every call is told */
    emit(&b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
    emit(&b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, 0x40000000u); /* x32 */
    emit(&b, RET, 0, 0, NOTIFY);
#endif
    tree(&b, tab, ix, m);
    return b.n;
}
