/* The confinement filters as the kernel itself runs them, call by call: a child installs them
 * exactly as the executor's child does (shc_confine_apply) and makes each call; what comes back
 * says what the filter decided.  A change of the programs' shape (the order of the tests, a
 * tree, a join) cannot drop a watched or refused call without failing here.
 *   - the watch: every call of the table (systab.h) with arguments its rule tells, answered by
 *     this test as the supervisor with an errno only it sends (EHWPOISON); clone3's ENOSYS; a
 *     sample of calls the watch lets through (never EHWPOISON); a call of the x32 ABI and of the
 *     i386 ABI (int $0x80) told too; the argument rules one by one: each lock command of fcntl
 *     and flock told and each query or unlock not, each madvise advice outside the own-memory
 *     list told and each in it not, fadvise64 DONTNEED told and the other advices not;
 *   - the sandbox's joined filters (read-only mode): each refused call refused (EPERM, EACCES),
 *     in the native and the i386 ABI, and its allowed neighbours not.
 * Every probe's arguments make the call fail harmlessly should a filter let it through. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine/confine.h"
#include "confine/systab.h"

#ifndef EHWPOISON
#define EHWPOISON 133
#endif
#define MARK EHWPOISON /* the errno the test's supervisor answers with */
#define BAD ((long)-1)

enum { MAXP = 400 };
typedef struct probe {
    long nr;
    long a[6];
    int want; /* MARK: told; ENOSYS: clone3; -1: anything but MARK; else that errno */
    int i386; /* by int $0x80 */
} probe;

#if defined(__x86_64__)
static long int80(long nr, long a0, long a1, long a2)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a0), "c"(a1), "d"(a2) : "memory");
    return r;
}
#endif

/* Whether the i386 ABI answers here (an unfiltered getpid by int $0x80, in a child: kernels
 * booted without IA32 emulation kill it). */
static bool has_i386(void)
{
#if defined(__x86_64__)
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* not the test framework's handler */
        _exit(int80(20 /* getpid */, 0, 0, 0) > 0 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
#else
    return false;
#endif
}

/* Runs the probes in a child confined by spec; for each, the errno it got (0: success) into
 * got[].  With a listener (the watch) this process answers every notification with MARK and
 * counts them in *told. */
static void run_probes(const shc_confine_spec *spec, const probe *p, size_t n, int *got,
                       size_t *told)
{
    int res[2], go[2];
    assert_int_equal(pipe(res), 0);
    assert_int_equal(pipe(go), 0);
    shc_confine_prepare(spec);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(res[0]);
        close(go[1]);
        int lfd = -1;
        if (shc_confine_apply(spec, &lfd) != 0)
            _exit(2);
        if (write(res[1], &lfd, sizeof lfd) != (ssize_t)sizeof lfd)
            _exit(3);
        char c;
        if (read(go[0], &c, 1) != 1) /* the listener is taken */
            _exit(4);
        for (size_t i = 0; i < n; i++) {
            long r;
            errno = 0;
#if defined(__x86_64__)
            if (p[i].i386) {
                r = int80(p[i].nr, p[i].a[0], p[i].a[1], p[i].a[2]);
                r = r < 0 && r > -4096 ? (errno = (int)-r, -1) : r;
            } else
#endif
                r = syscall(p[i].nr, p[i].a[0], p[i].a[1], p[i].a[2], p[i].a[3], p[i].a[4],
                            p[i].a[5]);
            int e = r < 0 ? errno : 0;
            if (write(res[1], &e, sizeof e) != (ssize_t)sizeof e)
                _exit(5);
        }
        pause(); /* killed: the exit is itself told to the watch */
        _exit(0);
    }
    close(res[1]);
    close(go[0]);
    int lfd = -1, listener = -1;
    assert_int_equal(read(res[0], &lfd, sizeof lfd), (ssize_t)sizeof lfd);
    if (lfd >= 0) {
        listener = shc_confine_take(pid, lfd);
        assert_true(listener >= 0);
    }
    assert_int_equal(write(go[1], "g", 1), 1);
    size_t have = 0;
    *told = 0;
    static char nbuf[4096], rbuf[4096];
    while (have < n) {
        struct pollfd pf[2] = {{res[0], POLLIN, 0}, {listener, POLLIN, 0}};
        int pr = poll(pf, listener >= 0 ? 2 : 1, 10000);
        assert_true(pr > 0);
        if (listener >= 0 && (pf[1].revents & POLLIN)) {
            struct seccomp_notif *nt = (void *)nbuf;
            struct seccomp_notif_resp *rp = (void *)rbuf;
            memset(nbuf, 0, sizeof nbuf);
            memset(rbuf, 0, sizeof rbuf);
            if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, nt) == 0) {
                rp->id = nt->id;
                rp->error = -MARK;
                (void)!ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, rp);
                (*told)++;
            }
        }
        if (pf[0].revents & (POLLIN | POLLHUP)) {
            int e;
            ssize_t r = read(res[0], &e, sizeof e);
            if (r != (ssize_t)sizeof e)
                fail_msg("the probing child died after %zu of %zu probes (nr %ld)", have, n,
                         p[have].nr);
            got[have++] = e;
        }
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    if (listener >= 0)
        close(listener);
    close(res[0]);
    close(go[1]);
}

static void check(const probe *p, const int *got, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        bool ok = p[i].want == -1 ? got[i] != MARK : got[i] == p[i].want;
        if (!ok)
            fail_msg("%s: %s nr %ld (arg0 %#lx arg1 %#lx): errno %d, want %s%d", what,
                     p[i].i386 ? "i386" : "native", p[i].nr, (unsigned long)p[i].a[0],
                     (unsigned long)p[i].a[1], got[i], p[i].want == -1 ? "not " : "",
                     p[i].want == -1 ? MARK : p[i].want);
    }
}

static probe mk(long nr, int want)
{
    probe p = {nr, {BAD, BAD, BAD, BAD, BAD, BAD}, want, 0};
    return p;
}

/* Every entry of the table, with arguments its rule tells on. */
static size_t watched_probes(probe *p)
{
    size_t n = 0, nt = 0;
    const shc_sysent *tab = shc__confine_systab(&nt);
    for (size_t i = 0; i < nt; i++) {
        const shc_sysent *e = &tab[i];
        probe q = mk(e->nr, MARK);
        switch (e->when) {
        case SHC_SC_OPEN_ARG1: q.a[1] = 01; break;              /* O_WRONLY */
        case SHC_SC_OPEN_ARG2: q.a[2] = 0100; break;            /* O_CREAT */
        case SHC_SC_IOCTL: q.a[1] = 0x5412; break;              /* TIOCSTI */
        case SHC_SC_FCNTL: q.a[1] = 8; break;                   /* F_SETOWN, fd -1 */
        case SHC_SC_PRCTL: q.a[0] = 22; break;                  /* PR_SET_SECCOMP, bad mode */
        case SHC_SC_ADDR4: q.a[0] = BAD; break;                 /* a pointer: told */
        case SHC_SC_NOT_UNIX: q.a[0] = 2; break;                /* AF_INET, bad type */
        case SHC_SC_OUTFD: q.a[0] = 1; q.a[1] = 0; q.a[2] = 0; break; /* read(1, NULL, 0) */
        case SHC_SC_CLONE: q.a[0] = 0x10000000 | 0x800; break;  /* NEWUSER|SIGHAND: EINVAL */
        case SHC_SC_ENOSYS: q.want = ENOSYS; break;
        case SHC_SC_FLOCK: q.a[1] = 2; break;                   /* LOCK_EX, fd -1 */
        case SHC_SC_MADVISE: q.a[2] = 100; break;               /* MADV_HWPOISON, bad address */
        case SHC_SC_FADVISE: q.a[3] = 4; break;                 /* POSIX_FADV_DONTNEED, fd -1 */
        default: break;
        }
        p[n++] = q;
        static const long more_fcntl[] = {6, 7, 37, 38, 15, 10, 1024}; /* the locks, the rest */
        static const long more_flock[] = {1, 1 | 4, 2 | 4, 32};
        static const long more_madv[] = {9, 12, 20, 21, 25, 101, 26, 1000};
        const long *more = e->when == SHC_SC_FCNTL     ? more_fcntl
                           : e->when == SHC_SC_FLOCK   ? more_flock
                           : e->when == SHC_SC_MADVISE ? more_madv
                                                       : NULL;
        size_t nmore = e->when == SHC_SC_FCNTL     ? sizeof more_fcntl / sizeof *more_fcntl
                       : e->when == SHC_SC_FLOCK   ? sizeof more_flock / sizeof *more_flock
                       : e->when == SHC_SC_MADVISE ? sizeof more_madv / sizeof *more_madv
                                                   : 0;
        for (size_t k = 0; k < nmore; k++) {
            probe m = q;
            m.a[e->when == SHC_SC_MADVISE ? 2 : 1] = more[k];
            p[n++] = m;
        }
        if (e->when == SHC_SC_OPEN_ARG1 || e->when == SHC_SC_OPEN_ARG2) { /* read-only: not */
            probe r = q;
            r.a[e->when == SHC_SC_OPEN_ARG1 ? 1 : 2] = 0; /* O_RDONLY of a bad pointer */
            r.want = -1;
            p[n++] = r;
        }
        if (e->when == SHC_SC_CLONE) { /* every CLONE_NEW* flag on its own */
            static const long news[] = {0x00020000, 0x02000000, 0x04000000, 0x08000000,
                                        0x20000000, 0x40000000};
            for (size_t k = 0; k < sizeof news / sizeof news[0]; k++) {
                probe c = q;
                c.a[0] = news[k] | 0x800;
                p[n++] = c;
            }
        }
        if (e->when == SHC_SC_OUTFD) { /* fd 2 too; a descriptor of its own not */
            probe o = q;
            o.a[0] = 2;
            p[n++] = o;
            o.a[0] = 1000;
            o.want = EBADF;
            p[n++] = o;
        }
    }
    return n;
}

/* Calls the watch lets through (and their errno, which proves they ran). */
static size_t allowed_probes(probe *p)
{
    size_t n = 0;
    probe q = mk(SYS_getppid, 0);
    q.want = -1;
    p[n++] = q;
    q = mk(SYS_close, EBADF);
    p[n++] = q;
    q = mk(SYS_fstat, EBADF);
    p[n++] = q;
    q = mk(SYS_ioctl, EBADF); /* a query: TCGETS on no descriptor */
    q.a[1] = 0x5401;
    p[n++] = q;
    q = mk(SYS_fcntl, EBADF); /* F_GETFL */
    q.a[1] = 3;
    p[n++] = q;
    q = mk(SYS_socket, -1); /* AF_UNIX, a bad type */
    q.a[0] = 1;
    p[n++] = q;
    q = mk(SYS_prctl, -1); /* PR_GET_DUMPABLE */
    q.a[0] = 3;
    p[n++] = q;
    q = mk(SYS_sendto, -1); /* no address */
    q.a[4] = 0;
    p[n++] = q;
    q = mk(SYS_prlimit64, -1); /* no new limit */
    q.a[2] = 0;
    p[n++] = q;
    q = mk(SYS_getdents64, EBADF);
    p[n++] = q;
    q = mk(SYS_lseek, EBADF);
    p[n++] = q;
    static const long fcntl_q[] = {5 /* F_GETLK */, 36 /* F_OFD_GETLK */, 1 /* F_GETFD */,
                                   1025 /* F_GETLEASE */};
    for (size_t k = 0; k < sizeof fcntl_q / sizeof *fcntl_q; k++) {
        q = mk(SYS_fcntl, EBADF);
        q.a[1] = fcntl_q[k];
        p[n++] = q;
    }
    q = mk(SYS_flock, EBADF); /* LOCK_UN, with LOCK_NB too */
    q.a[1] = 8;
    p[n++] = q;
    q.a[1] = 8 | 4;
    p[n++] = q;
    static const long madv_own[] = {0, 1, 2, 3, 4, 8, 10, 11, 13, 14, 15, 16, 17,
                                    18, 19, 22, 23, 24, 102, 103};
    for (size_t k = 0; k < sizeof madv_own / sizeof *madv_own; k++) {
        q = mk(SYS_madvise, -1); /* a bad address: EINVAL */
        q.a[2] = madv_own[k];
        p[n++] = q;
    }
    static const long fadv_ok[] = {0, 1, 2, 3, 5}; /* all but POSIX_FADV_DONTNEED */
    for (size_t k = 0; k < sizeof fadv_ok / sizeof *fadv_ok; k++) {
        q = mk(SYS_fadvise64, EBADF);
        q.a[3] = fadv_ok[k];
        p[n++] = q;
    }
    return n;
}

static void test_watch_in_the_kernel(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#else
    static probe p[MAXP];
    static int got[MAXP];
    size_t n = watched_probes(p), nw = n;
    n += allowed_probes(p + n);
    probe x = mk(0x40000000 | SYS_getpid, MARK); /* x32 */
    p[n++] = x;
    bool i386 = has_i386();
    if (i386) {
        x = mk(20 /* getpid */, MARK);
        x.i386 = 1;
        p[n++] = x;
    } else {
        fprintf(stderr, "test_filter_kernel: no i386 ABI on this kernel: its probe not made\n");
    }
    assert_true(n <= MAXP);
    shc_confine_spec spec = {.flags = SHC_CONFINE_WATCH};
    size_t told = 0;
    run_probes(&spec, p, n, got, &told);
    check(p, got, n, "watch");
    size_t want_told = 0;
    for (size_t i = 0; i < n; i++)
        want_told += p[i].want == MARK;
    assert_int_equal(told, want_told);
    assert_true(nw > 150);
#endif
}

/* The sandbox's plain filters (read-only mode: no listener), joined into one program. */
static void test_sandbox_in_the_kernel(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#else
    static probe p[64];
    static int got[64];
    size_t n = 0;
    static const long all[] = {SYS_shmget, SYS_shmat, SYS_shmctl, SYS_msgget, SYS_msgsnd,
                               SYS_msgrcv, SYS_msgctl, SYS_semget, SYS_semop, SYS_semtimedop,
                               SYS_semctl, SYS_add_key, SYS_request_key, SYS_keyctl, SYS_ptrace,
                               SYS_process_vm_writev, 438 /* pidfd_getfd */, SYS_setsid};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        p[n++] = mk(all[i], EPERM);
    static const long pid_a0[] = {SYS_sched_setaffinity, SYS_sched_setparam,
                                  SYS_sched_setscheduler, 314 /* sched_setattr */,
                                  SYS_migrate_pages, SYS_move_pages};
    for (size_t i = 0; i < sizeof pid_a0 / sizeof pid_a0[0]; i++) {
        probe q = mk(pid_a0[i], EPERM);
        q.a[0] = 1; /* another process */
        p[n++] = q;
        q.a[0] = 0; /* itself: allowed (and fails on its bad pointers) */
        q.want = -2;
        p[n++] = q;
    }
    probe q = mk(SYS_setpriority, EPERM); /* PRIO_USER 0: every process of the uid */
    q.a[0] = 2;
    q.a[1] = 0;
    p[n++] = q;
    q = mk(SYS_prlimit64, EPERM); /* another process, a new limit */
    q.a[0] = 1;
    p[n++] = q;
    q = mk(SYS_socket, EACCES); /* AF_INET */
    q.a[0] = 2;
    p[n++] = q;
    q = mk(SYS_socket, -2); /* AF_UNIX, a bad type: EINVAL, not refused */
    q.a[0] = 1;
    p[n++] = q;
    q = mk(425 /* io_uring_setup */, EPERM); /* the metadata filter's refusal comes first */
    p[n++] = q;
    q = mk(SYS_ioctl, EPERM); /* TIOCSTI */
    q.a[1] = 0x5412;
    p[n++] = q;
    q = mk(SYS_ioctl, EBADF); /* TCGETS: not refused */
    q.a[1] = 0x5401;
    p[n++] = q;
    q = mk(0x40000000 | SYS_keyctl, EPERM); /* x32 */
    p[n++] = q;
    if (has_i386()) {
        q = mk(117 /* ipc */, EPERM);
        q.i386 = 1;
        p[n++] = q;
        q = mk(102 /* socketcall */, EACCES);
        q.i386 = 1;
        p[n++] = q;
        q = mk(54 /* ioctl */, EPERM);
        q.a[1] = 0x5412;
        q.i386 = 1;
        p[n++] = q;
    }
    for (size_t i = 0; i < n; i++) /* -2: anything but a refusal */
        if (p[i].want == -2)
            p[i].want = -1;
    shc_confine_spec spec = {.sandbox = SHC_SANDBOX_READ_ONLY};
    size_t told = 0;
    run_probes(&spec, p, n, got, &told);
    assert_int_equal(told, 0);
    for (size_t i = 0; i < n; i++)
        if (p[i].want == -1 && (got[i] == EPERM || got[i] == EACCES))
            fail_msg("sandbox: nr %ld arg0 %ld refused (%d)", p[i].nr, p[i].a[0], got[i]);
    check(p, got, n, "sandbox");
#endif
}

int main(void)
{
    const char *why = NULL;
    if (!shc_confine_available(&why)) {
        fprintf(stderr, "test_filter_kernel: this kernel cannot watch (%s)\n", why);
        return 1; /* no silent skip */
    }
    if (!shc_sandbox_abi(&why)) {
        fprintf(stderr, "test_filter_kernel: no sandbox here (%s)\n", why);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_in_the_kernel),
        cmocka_unit_test(test_sandbox_in_the_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
