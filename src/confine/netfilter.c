/* The sandbox's network filter (sandbox.h): with the network off, socket() of any family but
 * AF_UNIX fails with EACCES, which covers UDP, raw and netlink sockets and kernels whose Landlock
 * has no TCP rights; io_uring_setup fails too, since io_uring can create sockets without the
 * socket() system call.  The foreign ABI (i386 on x86_64, arm on aarch64) gets the same checks
 * under its own numbers, and its multiplexer socketcall() fails outright (its arguments live in
 * memory the filter cannot read).  Everything else is allowed: this filter denies, it never
 * notifies (the watch, confine.c, is a separate filter). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine/bpfbuf.h"
#include "confine/sandbox.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define FOREIGN_ARCH AUDIT_ARCH_I386
#define FOREIGN_SOCKET 359u
#define X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define FOREIGN_ARCH AUDIT_ARCH_ARM
#define FOREIGN_SOCKET 281u
#define X32_BIT 0u /* no such ABI: the x32 rows repeat the native ones */
#else
#define NATIVE_ARCH 0
#endif

#define FOREIGN_SOCKETCALL 102u
#define FOREIGN_IOCTL 54u   /* i386 and arm alike */
#define X32_IOCTL 514u      /* x32 has its own ioctl number */
#define NR_IO_URING_SETUP 425u /* the same number on every architecture */

#define DENY (SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define OFF_ARCH ((uint32_t)offsetof(struct seccomp_data, arch))
#define OFF_NR ((uint32_t)offsetof(struct seccomp_data, nr))
#define OFF_ARG0 ((uint32_t)offsetof(struct seccomp_data, args))

/* Copies n instructions into out (cap): n, or more than cap when they do not fit. */
static size_t put(const struct sock_filter *f, size_t n, struct sock_filter *out, size_t cap)
{
    if (n <= cap)
        memcpy(out, f, n * sizeof *f);
    return n <= cap ? n : cap + 1;
}

int shc__filter_install_flags(const struct sock_filter *f, size_t n, size_t cap, unsigned flags)
{
    if (n == 0)
        return -ENOSYS;
    if (n > cap || n > BPF_MAXINSNS)
        return -E2BIG;
    struct sock_fprog prog = {(unsigned short)n, (struct sock_filter *)(uintptr_t)f};
    /* SPEC_ALLOW: on kernels in the default "seccomp" mode of the speculative store bypass
     * mitigation, a filter switches it on for the process and its children, slowing the whole
     * command; the sandbox confines files, network and processes, not side channels inside the
     * command's own address space (docs/sandbox.md) */
    long r = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                     flags | SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog);
    return r < 0 ? -errno : (int)r;
}

int shc__filter_install(const struct sock_filter *f, size_t n, size_t cap)
{
    int r = shc__filter_install_flags(f, n, cap, 0);
    return r < 0 ? r : 0;
}

size_t shc__filter_join(const struct sock_filter *const *progs, const size_t *lens, size_t n,
                        struct sock_filter *out, size_t cap)
{
    size_t at = 0;
    for (size_t i = n; i-- > 0;) { /* the newest first */
        size_t start = at;
        if (!lens[i] || progs[i][0].code != (BPF_LD | BPF_W | BPF_ABS))
            return SIZE_MAX; /* A is not set first */
        for (size_t k = 0; k < lens[i]; k++, at++) {
            struct sock_filter x = progs[i][k];
            unsigned short cls = BPF_CLASS(x.code);
            if (cls == BPF_ST || cls == BPF_STX || cls == BPF_LDX || cls == BPF_MISC ||
                (BPF_MODE(x.code) == BPF_MEM && cls == BPF_LD) ||
                ((cls == BPF_JMP || cls == BPF_ALU) && BPF_SRC(x.code) == BPF_X))
                return SIZE_MAX; /* X or scratch memory: not joined */
            if (cls == BPF_RET) {
                uint32_t act = x.k & SECCOMP_RET_ACTION_FULL;
                /* a notification only from the oldest, which runs last: every errno before it
                 * wins over it, as in the kernel (an errno takes precedence over a notify) */
                bool notify = act == SECCOMP_RET_USER_NOTIF && i == 0;
                if (BPF_RVAL(x.code) != BPF_K ||
                    (act != SECCOMP_RET_ALLOW && act != SECCOMP_RET_ERRNO && !notify))
                    return SIZE_MAX; /* only an allow and an errno are joined */
                if (act == SECCOMP_RET_ALLOW && i > 0) /* -> the next older program */
                    x = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
                                                     (uint32_t)(start + lens[i] - at - 1));
            }
            if (at < cap)
                out[at] = x;
        }
    }
    return at <= cap ? at : cap + 1;
}

size_t shc__netfilter_build(struct sock_filter *out, size_t cap)
{
#if NATIVE_ARCH
    /* Jump offsets are counted by hand: each comment names the instruction's index. */
    struct sock_filter f[] = {
        /* 0 */ BPF_STMT(LD_ABS, OFF_ARCH),
        /* 1 */ BPF_JUMP(JEQ, FOREIGN_ARCH, 6, 0), /* -> 8 */
        /* 2 */ BPF_JUMP(JEQ, NATIVE_ARCH, 0, 12), /* another arch: -> 15 allow */
        /* 3 */ BPF_STMT(LD_ABS, OFF_NR),
        /* 4 */ BPF_JUMP(JEQ, (uint32_t)__NR_socket, 7, 0),           /* -> 12 */
        /* 5 */ BPF_JUMP(JEQ, X32_BIT | (uint32_t)__NR_socket, 6, 0), /* -> 12 */
        /* 6 */ BPF_JUMP(JEQ, NR_IO_URING_SETUP, 7, 0),               /* -> 14 */
        /* 7 */ BPF_JUMP(JEQ, X32_BIT | NR_IO_URING_SETUP, 6, 7),     /* -> 14, else 15 */
        /* 8 */ BPF_STMT(LD_ABS, OFF_NR),
        /* 9 */ BPF_JUMP(JEQ, FOREIGN_SOCKET, 2, 0),     /* -> 12 */
        /* 10 */ BPF_JUMP(JEQ, FOREIGN_SOCKETCALL, 3, 0), /* -> 14 */
        /* 11 */ BPF_JUMP(JEQ, NR_IO_URING_SETUP, 2, 3),  /* -> 14, else 15 */
        /* 12 */ BPF_STMT(LD_ABS, OFF_ARG0),              /* the family (an int: the low half) */
        /* 13 */ BPF_JUMP(JEQ, AF_UNIX, 1, 0),            /* -> 15, else 14 */
        /* 14 */ BPF_STMT(RET, DENY),
        /* 15 */ BPF_STMT(RET, SECCOMP_RET_ALLOW),
    };
    return put(f, sizeof f / sizeof f[0], out, cap);
#else
    (void)out;
    (void)cap;
    return 0;
#endif
}

int shc__netfilter_apply(void)
{
    struct sock_filter f[32];
    return shc__filter_install(f, shc__netfilter_build(f, 32), 32);
}

/* In the child, whatever the network setting: ioctl(TIOCSTI) and ioctl(TIOCLINUX) fail with
 * EPERM, so a sandboxed command cannot type into a terminal (its own, or another one it can open
 * for reading); so do TIOCSCTTY and TIOCNOTTY, so that (with setsid() refused, procfilter.c) the
 * command keeps its own terminal as its controlling one and /dev/tty never names another.  The
 * request is an int: the filter reads the low half of the argument. */
size_t shc__ttyfilter_build(struct sock_filter *out, size_t cap)
{
#if NATIVE_ARCH == 0
    (void)out;
    (void)cap;
    return 0;
#else
    struct sock_filter f[] = {
        /* 0 */ BPF_STMT(LD_ABS, OFF_ARCH),
        /* 1 */ BPF_JUMP(JEQ, NATIVE_ARCH, 1, 0),
        /* 2 */ BPF_JUMP(JEQ, FOREIGN_ARCH, 4, 6), /* -> 7, else 9 allow */
        /* 3 */ BPF_STMT(LD_ABS, OFF_NR),
        /* 4 */ BPF_JUMP(JEQ, (uint32_t)__NR_ioctl, 5, 0),    /* -> 10 */
        /* 5 */ BPF_JUMP(JEQ, X32_BIT | X32_IOCTL, 4, 0),     /* -> 10 */
        /* 6 */ BPF_JUMP(JEQ, X32_BIT | (uint32_t)__NR_ioctl, 3, 2), /* -> 10, else 9 */
        /* 7 */ BPF_STMT(LD_ABS, OFF_NR),
        /* 8 */ BPF_JUMP(JEQ, FOREIGN_IOCTL, 1, 0),           /* -> 10, else 9 */
        /* 9 */ BPF_STMT(RET, SECCOMP_RET_ALLOW),
        /* 10 */ BPF_STMT(LD_ABS, OFF_ARG0 + 8),              /* the request (args[1]) */
        /* 11 */ BPF_JUMP(JEQ, (uint32_t)TIOCSTI, 4, 0),      /* -> 16 */
        /* 12 */ BPF_JUMP(JEQ, (uint32_t)TIOCLINUX, 3, 0),    /* -> 16 */
        /* 13 */ BPF_JUMP(JEQ, (uint32_t)TIOCSCTTY, 2, 0),    /* -> 16 */
        /* 14 */ BPF_JUMP(JEQ, (uint32_t)TIOCNOTTY, 1, 0),    /* -> 16, else 15 */
        /* 15 */ BPF_STMT(RET, SECCOMP_RET_ALLOW),
        /* 16 */ BPF_STMT(RET, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    return put(f, sizeof f / sizeof f[0], out, cap);
#endif
}

int shc__ttyfilter_apply(void)
{
    struct sock_filter f[32];
    return shc__filter_install(f, shc__ttyfilter_build(f, 32), 32);
}
