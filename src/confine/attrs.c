/* The sandbox's metadata rule (sandbox.h): chmod, chown, timestamps, extended attributes and
 * inode flags, which Landlock has no right for.  In `read-only` a plain filter refuses them all
 * (EPERM): nothing is writable there but a few devices, whose metadata no command needs to
 * change.  In `workspace` they must work under the writable roots (`chmod +x`, `touch`, `cp -p`,
 * git's modes) and nowhere else, which only a path can tell: the listener filter notifies them
 * and the supervisor (watch.c) asks shc__attr_decide(), which resolves the call's file itself
 * (from /proc/PID/cwd, /proc/PID/fd/N, never through a magic link; a descriptor's file by
 * pidfd_getfd), checks where that object is, and under a writable root makes the call itself on
 * that object, with its effective capabilities off for the moment (the command has none): the
 * kernel never resolves the path a second time, so swapping a link or rewriting the path in
 * memory meanwhile gains nothing.  Elsewhere, or when in doubt, the call fails with EPERM.
 * file_setattr and the encryption-policy ioctl are refused even in the workspace.  A foreign
 * ABI (i386 and x32 on x86_64) gets the calls refused in every mode; on aarch64 the 32-bit ABI
 * is refused whole (its numbers are not listed here).  io_uring_setup is refused in every mode
 * (IORING_OP_SETXATTR would pass every filter).  Raw syscall() throughout. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/xattr.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine/bpfbuf.h"
#include "confine/sandbox.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define FOREIGN_ARCH AUDIT_ARCH_I386
#define X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define FOREIGN_ARCH AUDIT_ARCH_ARM
#else
#define NATIVE_ARCH 0
#endif

/* Newer than some system headers; one number on every architecture. */
#define NR_FCHMODAT2 452
#define NR_SETXATTRAT 463
#define NR_REMOVEXATTRAT 466
#define NR_FILE_SETATTR 469
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif

enum { AT_CWD = -100, EMPTY_PATH = 0x1000, NOFOLLOW = 0x100 };

/* One metadata call: where its path, directory fd and flags are (-1: none), whether it follows a
 * final symlink without AT_SYMLINK_NOFOLLOW, and fd: the call names a descriptor (arg 0). */
typedef struct attr_call {
    int nr;
    signed char path, dirfd, flags;
    bool follow, fd;
} attr_call;

#define P(n, path, dirfd, flags, follow) {n, path, dirfd, flags, follow, false}
#define F(n) {n, -1, 0, -1, true, true}
static const attr_call calls[] = {
#ifdef __NR_chmod
    P(__NR_chmod, 0, -1, -1, true),
    P(__NR_chown, 0, -1, -1, true),
    P(__NR_lchown, 0, -1, -1, false),
    P(__NR_utime, 0, -1, -1, true),
    P(__NR_utimes, 0, -1, -1, true),
    P(__NR_futimesat, 1, 0, -1, true),
#endif
    P(__NR_fchmodat, 1, 0, -1, true),
    P(NR_FCHMODAT2, 1, 0, 3, true),
    P(__NR_fchownat, 1, 0, 4, true),
    P(__NR_utimensat, 1, 0, 3, true),
    P(__NR_setxattr, 0, -1, -1, true),
    P(__NR_lsetxattr, 0, -1, -1, false),
    P(__NR_removexattr, 0, -1, -1, true),
    P(__NR_lremovexattr, 0, -1, -1, false),
    P(NR_SETXATTRAT, 1, 0, 2, true),
    P(NR_REMOVEXATTRAT, 1, 0, 2, true),
    P(NR_FILE_SETATTR, 1, 0, 4, true),
    F(__NR_fchmod),
    F(__NR_fchown),
    F(__NR_fsetxattr),
    F(__NR_fremovexattr),
    F(__NR_ioctl), /* only with the requests below (the filter tests them) */
};
#undef P
#undef F

/* ioctl requests that change an inode's flags or attributes (chattr, xfs_io), 64- and 32-bit
 * forms: FS_IOC_SETFLAGS, FS_IOC_SETVERSION, FS_IOC_FSSETXATTR, and the directory encryption
 * policy (FS_IOC_SET_ENCRYPTION_POLICY). */
static const uint32_t ioctls[] = {0x40086602u, 0x40046602u, 0x40087602u,
                                  0x40047602u, 0x401c5820u, 0x800c6613u};

/* io_uring_setup: its operations (IORING_OP_SETXATTR, ...) run past every seccomp filter, so
 * the sandbox refuses it whatever the network setting (the same number everywhere). */
#define NR_IO_URING_SETUP 425u

#ifdef __x86_64__
/* The same calls in the i386 ABI (and its ioctl, 54). */
static const uint32_t i386_calls[] = {15,  16,  30,  94,  95,  182, 198, 207, 212, 226,
                                      227, 228, 235, 236, 237, 271, 298, 299, 306, 320,
                                      412, 452, 463, 466, 469};
#endif

/* ------------------------------------------------------------------ filters */

#define OFF_NR ((uint32_t)offsetof(struct seccomp_data, nr))
#define OFF_ARCH ((uint32_t)offsetof(struct seccomp_data, arch))
#define OFF_ARG(i) ((uint32_t)offsetof(struct seccomp_data, args) + 8u * (uint32_t)(i))
#define EPERM_RET (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

/* With A = the call's number: `act` for each listed call (ioctl only with a listed request);
 * falls through otherwise, A clobbered only on the ioctl path (which then allows). */
static void match_native(fbuf *b, uint32_t act, uint32_t bias)
{
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        uint32_t nr = bias | (uint32_t)calls[i].nr;
        if (calls[i].nr == __NR_ioctl) {
            size_t k = sizeof ioctls / sizeof ioctls[0];
            emit(b, JEQ, 0, (unsigned char)(k + 3), nr);
            emit(b, LD_ABS, 0, 0, OFF_ARG(1));
            for (size_t j = 0; j < k; j++)
                emit(b, JEQ, (unsigned char)(k - j), 0, ioctls[j]);
            emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
            emit(b, RET, 0, 0, act);
        } else {
            emit(b, JEQ, 0, 1, nr);
            emit(b, RET, 0, 0, act);
        }
    }
}

size_t shc__attrfilter_build(unsigned mode, struct sock_filter *f, size_t cap)
{
#if NATIVE_ARCH == 0
    (void)mode;
    (void)f;
    (void)cap;
    return 0;
#else
    fbuf b = {f, 0, cap};
    emit(&b, LD_ABS, 0, 0, OFF_ARCH);
#ifdef __x86_64__
    emit(&b, JEQ, 2, 0, NATIVE_ARCH);  /* -> 4 */
    emit(&b, JEQ, 0, 0, FOREIGN_ARCH); /* -> the i386 checks (patched below), else 3 */
    size_t to_i386 = b.n - 1;
    emit(&b, RET, 0, 0, SECCOMP_RET_ALLOW);
#else
    emit(&b, JEQ, 3, 0, NATIVE_ARCH);  /* -> 5 */
    emit(&b, JEQ, 0, 1, FOREIGN_ARCH); /* -> 3, else 4 */
    emit(&b, RET, 0, 0, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
    emit(&b, RET, 0, 0, SECCOMP_RET_ALLOW);
#endif
    emit(&b, LD_ABS, 0, 0, OFF_NR);
    emit(&b, JEQ, 0, 1, NR_IO_URING_SETUP);
    emit(&b, RET, 0, 0, EPERM_RET);
    if (mode == SHC_SANDBOX_READ_ONLY)
        match_native(&b, EPERM_RET, 0);
#ifdef __x86_64__
    emit(&b, LD_ABS, 0, 0, OFF_NR);
    emit(&b, JEQ, 0, 1, X32_BIT | NR_IO_URING_SETUP);
    emit(&b, RET, 0, 0, EPERM_RET);
    match_native(&b, EPERM_RET, X32_BIT); /* x32: never supervised */
    emit(&b, LD_ABS, 0, 0, OFF_NR);
    emit(&b, JEQ, 0, 1, X32_BIT | 514u); /* x32's own ioctl */
    emit(&b, RET, 0, 0, EPERM_RET);
    emit(&b, RET, 0, 0, SECCOMP_RET_ALLOW);
    size_t at = b.n;
    if (at - to_i386 - 1 > 255)
        return SIZE_MAX;
    if (to_i386 < cap)
        f[to_i386].jt = (unsigned char)(at - to_i386 - 1);
    emit(&b, LD_ABS, 0, 0, OFF_NR);
    emit(&b, JEQ, 0, 1, NR_IO_URING_SETUP);
    emit(&b, RET, 0, 0, EPERM_RET);
    for (size_t i = 0; i < sizeof i386_calls / sizeof i386_calls[0]; i++) {
        emit(&b, JEQ, 0, 1, i386_calls[i]);
        emit(&b, RET, 0, 0, EPERM_RET);
    }
    emit(&b, JEQ, 0, 8, 54u); /* ioctl: its 32-bit requests */
    emit(&b, LD_ABS, 0, 0, OFF_ARG(1));
    emit(&b, JEQ, 5, 0, 0x800c6613u);
    emit(&b, JEQ, 4, 0, 0x40046602u);
    emit(&b, JEQ, 3, 0, 0x40047602u);
    emit(&b, JEQ, 2, 0, 0x401c5820u);
    emit(&b, JEQ, 1, 0, 0x40086602u);
    emit(&b, RET, 0, 0, SECCOMP_RET_ALLOW);
    emit(&b, RET, 0, 0, EPERM_RET);
#endif
    emit(&b, RET, 0, 0, SECCOMP_RET_ALLOW);
    return b.n <= cap ? b.n : cap + 1;
#endif
}

int shc__attrfilter_apply(unsigned mode)
{
    struct sock_filter f[256];
    return shc__filter_install(f, shc__attrfilter_build(mode, f, 256), 256);
}

size_t shc__attr_listener_build(struct sock_filter *f, size_t cap)
{
#if NATIVE_ARCH == 0
    (void)f;
    (void)cap;
    return 0;
#else
    fbuf b = {f, 0, cap};
    emit(&b, LD_ABS, 0, 0, OFF_ARCH);
    emit(&b, JEQ, 1, 0, NATIVE_ARCH);
    emit(&b, RET, 0, 0, SECCOMP_RET_ALLOW); /* the foreign ABI: refused by the filter above */
    emit(&b, LD_ABS, 0, 0, OFF_NR);
    match_native(&b, SECCOMP_RET_USER_NOTIF, 0);
    emit(&b, JEQ, 0, 3, (uint32_t)__NR_prctl); /* the hand-over marker (shc_confine_handoff) */
    emit(&b, LD_ABS, 0, 0, OFF_ARG(0));
    emit(&b, JEQ, 0, 1, SHC__CONFINE_MARKER);
    emit(&b, RET, 0, 0, SECCOMP_RET_USER_NOTIF);
    emit(&b, RET, 0, 0, SECCOMP_RET_ALLOW);
    return b.n <= cap ? b.n : cap + 1;
#endif
}

int shc__attr_listener(void)
{
    struct sock_filter f[128];
    size_t n = shc__attr_listener_build(f, 128);
    if (n == 0)
        return -ENOSYS;
    return shc__filter_install_flags(f, n, 128, SECCOMP_FILTER_FLAG_NEW_LISTENER);
}

/* ------------------------------------------------------------------ the supervisor's check */

struct open_how_k {
    uint64_t flags, mode, resolve;
};
#define RESOLVE_NO_MAGICLINKS_K 0x02

static const attr_call *find(int nr)
{
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (calls[i].nr == nr)
            return &calls[i];
    return NULL;
}

/* The path at addr; false when unreadable or longer than PATH_MAX (the kernel refuses it too). */
static bool read_path(const shc__target *t, uint64_t addr, char *buf, size_t cap)
{
    return shc__target_str(t, addr, buf, cap) == 1;
}

/* An O_PATH descriptor of pid's fd (the file it names). */
static int open_fd_of(pid_t pid, long fd, int *err)
{
    char link[64];
    if (fd == AT_CWD)
        snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
    else if (fd < 0 || fd > INT_MAX) {
        *err = EBADF;
        return -1;
    } else
        snprintf(link, sizeof link, "/proc/%d/fd/%ld", (int)pid, fd);
    int o = open(link, O_PATH | O_CLOEXEC);
    if (o < 0)
        *err = errno == ENOENT ? EBADF : EPERM;
    return o;
}

/* Whether the object o is under one of the roots: the path the kernel gives for it (the one we
 * reached it by), still naming the same inode, begins with a root. */
static bool under_roots(int o, const char *const *roots, size_t nroots)
{
    struct stat st, again;
    if (fstat(o, &st) != 0)
        return false;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", o);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0 || path[0] != '/')
        return false;
    path[n] = 0;
    if (lstat(path, &again) != 0 || again.st_dev != st.st_dev || again.st_ino != st.st_ino)
        return false; /* removed or moved meanwhile: when in doubt, no */
    for (size_t i = 0; i < nroots; i++) {
        size_t l = strlen(roots[i]);
        if (l == 1 && roots[i][0] == '/')
            return true;
        if (!strncmp(path, roots[i], l) && (path[l] == 0 || path[l] == '/'))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ doing the call ourselves */

/* The agent's effective capabilities off (on) for this thread: the call is made with what the
 * command has, its uid and none of them (landlock.c drops them all in the child). */
static bool caps(bool off, uint32_t saved[6])
{
    struct {
        uint32_t version;
        int pid;
    } hdr = {0x20080522, 0};
    if (off) {
        if (syscall(__NR_capget, &hdr, saved) != 0)
            return false;
        if (!saved[0] && !saved[3])
            return true; /* none to drop */
        uint32_t d[6] = {0, saved[1], saved[2], 0, saved[4], saved[5]};
        return syscall(__NR_capset, &hdr, d) == 0;
    }
    if (saved[0] || saved[3])
        syscall(__NR_capset, &hdr, saved);
    return true;
}

static int rc_of(long r)
{
    return r == 0 ? 0 : errno;
}

/* Reads n bytes at addr; EFAULT when it cannot. */
static bool rd(const shc__target *mem, uint64_t addr, void *buf, size_t n)
{
    return addr && shc__target_read(mem, buf, n, addr);
}

/* The timestamps of a utime-family call as utimensat's pair; *null when it gave none. */
static int times_of(const attr_call *c, const struct seccomp_data *d, const shc__target *mem,
                    struct timespec ts[2], bool *null)
{
    int nr = c->nr;
    uint64_t addr = nr == __NR_utimensat ? d->args[2]
#ifdef __NR_utime
                    : nr == __NR_futimesat ? d->args[2]
#endif
                                           : d->args[1];
    *null = !addr;
    if (!addr)
        return 0;
#ifdef __NR_utime
    if (nr == __NR_utime) {
        long b[2];
        if (!rd(mem, addr, b, sizeof b))
            return EFAULT;
        ts[0] = (struct timespec){b[0], 0};
        ts[1] = (struct timespec){b[1], 0};
        return 0;
    }
    if (nr == __NR_utimes || nr == __NR_futimesat) {
        long tv[4];
        if (!rd(mem, addr, tv, sizeof tv))
            return EFAULT;
        if (tv[1] < 0 || tv[1] >= 1000000 || tv[3] < 0 || tv[3] >= 1000000)
            return EINVAL;
        ts[0] = (struct timespec){tv[0], tv[1] * 1000};
        ts[1] = (struct timespec){tv[2], tv[3] * 1000};
        return 0;
    }
#endif
    return rd(mem, addr, ts, 2 * sizeof ts[0]) ? 0 : EFAULT;
}

/* The call c on the object o (an O_PATH descriptor, or with `real` the command's own open file):
 * 0 or the errno it fails with. */
static int perform(const attr_call *c, const struct seccomp_data *d, const shc__target *mem, int o, bool real,
                   unsigned flags)
{
    struct stat st;
    if (fstat(o, &st) != 0)
        return EPERM;
    bool link = S_ISLNK(st.st_mode);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o);
    int nr = c->nr;
    /* the argument after the path (or the fd): mode, owner, name */
    int a = c->fd ? 1 : c->path + 1;
    if (nr == __NR_fchmodat || nr == NR_FCHMODAT2 || nr == __NR_fchmod
#ifdef __NR_chmod
        || nr == __NR_chmod
#endif
    ) {
        mode_t mode = (mode_t)(d->args[a] & 07777);
        if (link)
            return EOPNOTSUPP;
        return rc_of(real ? fchmod(o, mode) : fchmodat(AT_FDCWD, proc, mode, 0));
    }
    if (nr == __NR_fchownat || nr == __NR_fchown
#ifdef __NR_chown
        || nr == __NR_chown || nr == __NR_lchown
#endif
    )
        return rc_of(fchownat(o, "", (uid_t)d->args[a], (gid_t)d->args[a + 1], AT_EMPTY_PATH));
    if (nr == __NR_utimensat
#ifdef __NR_utime
        || nr == __NR_utime || nr == __NR_utimes || nr == __NR_futimesat
#endif
    ) {
        struct timespec ts[2];
        bool null = false;
        int e = times_of(c, d, mem, ts, &null);
        if (e)
            return e;
        long r = syscall(__NR_utimensat, o, "", null ? NULL : ts,
                         AT_EMPTY_PATH | (link ? AT_SYMLINK_NOFOLLOW : 0));
        if (r != 0 && errno == EINVAL && !link) /* a kernel before AT_EMPTY_PATH here (5.8) */
            r = utimensat(AT_FDCWD, proc, null ? NULL : ts, 0);
        return rc_of(r);
    }
    if (nr == __NR_ioctl) {
        uint32_t req = (uint32_t)d->args[1];
        char arg[32] = {0};
        size_t n = req == 0x401c5820u ? 28 : 4;
        if (req == 0x800c6613u || !real)
            return EPERM; /* no encryption policies, even in the workspace */
        if (!rd(mem, d->args[2], arg, n))
            return EFAULT;
        return rc_of(ioctl(o, (unsigned long)req, arg));
    }
    /* the extended attributes: name, and for a set the value */
    bool at = nr == NR_SETXATTRAT || nr == NR_REMOVEXATTRAT;
    char name[256];
    if (!read_path(mem, d->args[at ? 3 : a], name, sizeof name))
        return ERANGE;
    if (link && !real)
        return EPERM; /* as the kernel answers for user.* on a symlink */
    bool set = nr == __NR_setxattr || nr == __NR_lsetxattr || nr == __NR_fsetxattr ||
               nr == NR_SETXATTRAT;
    if (!set)
        return rc_of(real ? fremovexattr(o, name) : removexattr(proc, name));
    uint64_t vaddr = d->args[a + 1], size = d->args[a + 2];
    int xflags = (int)d->args[a + 3];
    if (at) {
        struct {
            uint64_t value;
            uint32_t size, flags;
        } xa;
        if (d->args[5] < sizeof xa || !rd(mem, d->args[4], &xa, sizeof xa))
            return EFAULT;
        vaddr = xa.value;
        size = xa.size;
        xflags = (int)xa.flags;
    }
    (void)flags;
    if (size > 65536)
        return E2BIG;
    char *val = malloc(size ? (size_t)size : 1);
    if (!val)
        return ENOMEM;
    int rc = size && !rd(mem, vaddr, val, (size_t)size) ? EFAULT : 0;
    if (!rc)
        rc = rc_of(real ? fsetxattr(o, name, val, (size_t)size, xflags)
                        : setxattr(proc, name, val, (size_t)size, xflags));
    free(val);
    return rc;
}

/* A copy of the command's own open file fd (the one its call names). */
static int take_fd(pid_t pid, long fd, int *err)
{
    *err = EBADF;
    if (fd < 0 || fd > INT_MAX)
        return -1;
    long pfd = syscall(__NR_pidfd_open, pid, 0);
    if (pfd < 0) {
        *err = EPERM;
        return -1;
    }
    long got = syscall(__NR_pidfd_getfd, (int)pfd, (int)fd, 0);
    *err = got < 0 && errno != EBADF ? EPERM : EBADF;
    close((int)pfd);
    return (int)got;
}

int shc__attr_decide(const char *const *roots, size_t nroots, const struct seccomp_notif *n,
                     const shc__target *mem)
{
    const struct seccomp_data *d = &n->data;
#ifdef __x86_64__
    if (d->arch != NATIVE_ARCH || (uint32_t)d->nr >= X32_BIT)
        return -1;
#else
    if (d->arch != NATIVE_ARCH)
        return -1;
#endif
    const attr_call *c = find(d->nr);
    if (!c)
        return -1;
    if (c->nr == __NR_ioctl) {
        bool listed = false;
        for (size_t i = 0; i < sizeof ioctls / sizeof ioctls[0]; i++)
            listed |= (uint32_t)d->args[1] == ioctls[i];
        if (!listed)
            return -1;
    }
    pid_t pid = (pid_t)n->pid;
    int err = EPERM, o = -1;
    unsigned flags = c->flags >= 0 ? (unsigned)d->args[c->flags] : 0;
    if (c->nr == NR_FILE_SETATTR)
        return EPERM; /* new (6.17) and rare: refused, not done for the command */
    if (c->fd) {
        o = take_fd(pid, (long)(int)d->args[0], &err);
    } else {
        long dirfd = c->dirfd >= 0 ? (long)(int)d->args[c->dirfd] : AT_CWD;
        uint64_t addr = d->args[c->path];
        char path[PATH_MAX], again[PATH_MAX];
        if (!addr && (c->nr == __NR_utimensat
#ifdef __NR_futimesat
                      || c->nr == __NR_futimesat
#endif
                      )) {
            o = open_fd_of(pid, dirfd, &err); /* utimensat(fd, NULL, ...): the fd's file */
        } else if (!read_path(mem, addr, path, sizeof path)) {
            return EFAULT;
        } else if (!path[0]) {
            if (!(flags & EMPTY_PATH))
                return ENOENT;
            o = open_fd_of(pid, dirfd, &err);
        } else {
            /* The process's root must be ours (a sandboxed command cannot chroot; if it did,
             * no). */
            char link[64];
            struct stat pr, ours;
            snprintf(link, sizeof link, "/proc/%d/root", (int)pid);
            if (stat(link, &pr) != 0 || stat("/", &ours) != 0 || pr.st_dev != ours.st_dev ||
                pr.st_ino != ours.st_ino)
                return EPERM;
            int base = path[0] == '/' ? open("/", O_PATH | O_CLOEXEC)
                                      : open_fd_of(pid, dirfd, &err);
            if (base < 0)
                return err;
            bool follow = c->follow && !(flags & NOFOLLOW);
            struct open_how_k how = {O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW), 0,
                                     RESOLVE_NO_MAGICLINKS_K};
            o = (int)syscall(__NR_openat2, base, path, &how, sizeof how);
            err = o < 0 ? (errno == ELOOP && follow ? EPERM : errno) : 0;
            close(base);
            if (o < 0)
                return err == ENOSYS ? EPERM : err;
            /* The path we resolved must still be the call's. */
            if (!read_path(mem, addr, again, sizeof again) || strcmp(path, again)) {
                close(o);
                return EPERM;
            }
        }
    }
    if (o < 0)
        return err;
    int rc = EPERM;
    uint32_t saved[6];
    if (under_roots(o, roots, nroots) && caps(true, saved)) {
        rc = perform(c, d, mem, o, c->fd, flags);
        caps(false, saved);
    }
    close(o);
    return rc;
}
